import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Event } from '../../../src/engine/api/cluster.js';
import type { Pod } from '../../../src/engine/api/v1.js';
import { describePod } from '../../../src/ui/describe-pod.js';
import { EventTable, sortEvents } from '../../../src/ui/event-table.js';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8');
const pod = JSON.parse(fixture('describe-pod.json')) as Pod;
const now = Date.parse('2026-12-01T12:00:00Z');
const ago = (s: number) => new Date(now - s * 1000).toISOString().replace('.000Z', 'Z');

// kubectl prints times in the local zone: the expectations are in UTC.
let zone: string | undefined;
beforeAll(() => {
  zone = process.env.TZ;
  process.env.TZ = 'UTC';
});
afterAll(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

describe('knode describe pod', () => {
  // The *.kubectl.txt files are what kubectl's own code (k8s.io/kubectl v0.37.2:
  // pkg/describe's PodDescriber over a fake clientset, cmd/events' printer) printed
  // for the pod beside them, with TZ=UTC; fixtures/kubectl-describe.go is the
  // program (the pod-only files were printed with ShowEvents false).
  // crash-pod.json and web-pod.json are pods as a knode node served them on /pods
  // (web-pod's fieldRef given the apiserver's default apiVersion, as a cluster
  // stores it).
  it.each(['describe-pod', 'crash-pod', 'web-pod'])('prints %s exactly as kubectl describe pod does', (name) => {
    const described = describePod(JSON.parse(fixture(`${name}.json`)) as Pod, undefined, now);
    expect(described).toBe(fixture(`${name}.kubectl.txt`));
  });

  // crash-pod-events.kubectl.txt: kubectl's describer and `kubectl events`' printer
  // (cmd/events EventPrinter) for these events, at the time `now` in the file.
  it('prints the events in describe and in the events table exactly as kubectl does', () => {
    const { now: at, events } = JSON.parse(fixture('crash-pod-events.json')) as { now: number; events: Event[] };
    const described = describePod(JSON.parse(fixture('crash-pod.json')) as Pod, events, at);
    const table = new EventTable(false).format(sortEvents(events), at, true);
    expect(`${described}=====\n${table}`).toBe(fixture('crash-pod-events.kubectl.txt'));
  });

  it('ends with the events, aligned on their own, with repeats and the container they are about', () => {
    const event = (reason: string, type: 'Normal' | 'Warning', first: number, last: number, count: number): Event => ({
      metadata: { name: `web-n1.${reason}`, namespace: 'shop' },
      involvedObject: { kind: 'Pod', name: 'web-n1', namespace: 'shop', fieldPath: 'spec.containers{app}' },
      reason,
      message: `${reason} container app`,
      type,
      source: { component: 'kubelet', host: 'n1' },
      firstTimestamp: ago(first),
      lastTimestamp: ago(last),
      count,
    });
    const out = describePod(pod, [event('BackOff', 'Warning', 300, 10, 12), event('Pulled', 'Normal', 400, 400, 1)], now);
    expect(out.slice(out.indexOf('Events:'))).toBe(
      [
        'Events:',
        '  Type     Reason   Age                From     Message',
        '  ----     ------   ----               ----     -------',
        '  Normal   Pulled   6m40s              kubelet  spec.containers{app}: Pulled container app',
        '  Warning  BackOff  10s (x12 over 5m)  kubelet  spec.containers{app}: BackOff container app',
        '',
      ].join('\n'),
    );
    expect(describePod(pod, [], now)).toMatch(/\nEvents: +<none>\n$/);
  });

  it('says Terminating for a pod being deleted, and <none> where a pod has nothing', () => {
    const bare: Pod = {
      metadata: { name: 'bare', namespace: 'default', deletionTimestamp: ago(12), deletionGracePeriodSeconds: 30 },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
      status: { phase: 'Running' },
    };
    const out = describePod(bare, undefined, now);
    expect(out).toContain('Node:                      <none>\n');
    expect(out).toContain('Status:                    Terminating (lasts 12s)\nTermination Grace Period:  30s\n');
    expect(out).toContain('IPs:                       <none>\n');
    expect(out).toContain('    Port:         <none>\n    Host Port:    <none>\n    Environment:  <none>\n    Mounts:       <none>\n');
    expect(out).toContain('    Mounts:       <none>\nVolumes:          <none>\nQoS Class:        BestEffort\n');
  });
});
