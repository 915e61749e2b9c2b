import { describe, expect, it } from 'vitest';
import type { LifecycleEvent } from '../../../src/engine/events.js';
import { eventVerbosity } from '../../../src/engine/events-table.js';
import { formatEventLine, formatEventLogJson } from '../../../src/ui/event-line.js';

const at = Date.parse('2026-11-23T10:00:01.250Z');
// A part of the detail only: the JSON line below shows each of its keys.
const started = {
  type: 'ContainerStarted',
  pod: 'default/web-n1',
  uid: 'u-1',
  at,
  container: 'app',
  reason: 'Started',
  message: 'Started container app',
  detail: { restartCount: 0 },
} as LifecycleEvent;

describe('log lines of a running node', () => {
  it('puts problems and the pod lifecycle at 0, worker steps at 3, relists and status changes at 4', () => {
    const e = (type: LifecycleEvent['type'], extra: { reason?: string } = {}) =>
      ({ type, pod: 'default/p', uid: 'u', at, ...extra }) as LifecycleEvent;
    expect([e('ContainerStarted'), e('PodRunning'), e('SyncFailed'), e('ClusterWarning'), e('ProbeFailed')].map(eventVerbosity)).toEqual([
      0, 0, 0, 0, 0,
    ]);
    expect([e('PodSynced'), e('PLEGEvent'), e('WorkerStarted')].map(eventVerbosity)).toEqual([3, 3, 3]);
    expect([e('PLEGRelist'), e('StatusChanged'), e('Housekeeping')].map(eventVerbosity)).toEqual([4, 4, 4]);
    // A relist that found something to say is not noise.
    expect(eventVerbosity(e('PLEGRelist', { reason: 'RelistSlow' }))).toBe(0);
  });

  it('names the pod as namespace/name, and adds its UID from -v 2', () => {
    expect(formatEventLine(started)).toBe('10:00:01.250 ContainerStarted  default/web-n1/app [Started] Started container app');
    expect(formatEventLine(started, 2)).toBe('10:00:01.250 ContainerStarted  default/web-n1/app (u-1) [Started] Started container app');
    expect(formatEventLine({ type: 'NodeStarted', pod: '', uid: '', at, message: 'node n1' } as LifecycleEvent, 5)).toBe(
      '10:00:01.250 NodeStarted       node node n1',
    );
  });

  it("names a PLEG event's container by its short id, and a removed pod by its UID", () => {
    const id = 'c0ffee'.repeat(10) + 'abcd';
    const pleg = (pod: string) =>
      ({ type: 'PLEGEvent', pod, uid: 'u-1', at, reason: 'ContainerRemoved', detail: { containerId: id } }) as LifecycleEvent;
    expect(formatEventLine(pleg('default/web-n1'))).toBe('10:00:01.250 PLEGEvent         default/web-n1 [ContainerRemoved] c0ffeec0ffeec');
    expect(formatEventLine(pleg(''), 2)).toBe('10:00:01.250 PLEGEvent         pod u-1 [ContainerRemoved] c0ffeec0ffeec');
  });

  it('names a workload by its kind, namespace and name, not by its UID', () => {
    const created = {
      type: 'WorkloadEvent',
      pod: '',
      uid: 'u-sts',
      at,
      reason: 'SuccessfulCreate',
      message: 'create Pod db-0 in StatefulSet db successful',
      detail: { kind: 'StatefulSet', namespace: 'default', name: 'db', eventType: 'Normal' },
    } as LifecycleEvent;
    expect(formatEventLine(created, 2)).toBe(
      '10:00:01.250 WorkloadEvent     statefulset default/db [SuccessfulCreate] create Pod db-0 in StatefulSet db successful',
    );
  });

  it("writes klog's JSON: ts in seconds, v, msg, the pod as an object reference, the rest as keys", () => {
    expect(JSON.parse(formatEventLogJson(started))).toEqual({
      ts: at / 1000,
      v: 0,
      severity: 'I',
      msg: 'Started container app',
      event: 'ContainerStarted',
      pod: { name: 'web-n1', namespace: 'default' },
      container: 'app',
      reason: 'Started',
      restartCount: 0,
    });
    expect(JSON.parse(formatEventLogJson(started, 2)).podUID).toBe('u-1');
    const failed = JSON.parse(
      formatEventLogJson({
        type: 'ContainerFailed',
        pod: 'default/web-n1',
        uid: 'u-1',
        at,
        container: 'app',
        reason: 'Failed',
        message: 'Error: boom',
      }),
    );
    expect([failed.severity, failed.msg]).toEqual(['W', 'Error: boom']);
  });
});
