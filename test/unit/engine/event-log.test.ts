import { describe, expect, it } from 'vitest';
import { EVENT_TTL_MS, EventLog, type EventLogChange } from '../../../src/engine/event-log.js';
import { EventStream } from '../../../src/engine/events.js';
import { FakeClock } from '../../../src/util/clock.js';
import type { Pod } from '../../../src/engine/api/v1.js';
import { containerFieldPath } from '../../../src/engine/kubelet-events.js';

function setup() {
  const clock = new FakeClock();
  const events = new EventStream(() => clock.now());
  const log = new EventLog(clock, 'n1');
  log.start(events);
  const changes: EventLogChange[] = [];
  log.watch((c) => changes.push(c));
  const backOff = (pod = 'default/crash') =>
    events.emit({
      type: 'ContainerBackOff',
      pod,
      uid: `uid-${pod}`,
      container: 'app',
      reason: 'BackOff',
      message: 'Back-off restarting failed container app',
      detail: { remainingMs: 10_000 },
    });
  return { clock, events, log, changes, backOff };
}

describe('the node event log', () => {
  it("keeps the kubelet's events as core/v1 Events on the pod and container, and leaves the rest out", () => {
    const { log, events } = setup();
    events.emit({
      type: 'ContainerStarted',
      pod: 'shop/web',
      uid: 'uid-1',
      container: 'app',
      reason: 'Started',
      message: 'Started container app',
      detail: { containerId: 'c-1', restartCount: 0, containerType: 'container' },
    });
    events.emit({ type: 'PodSynced', pod: 'shop/web', uid: 'uid-1', detail: { updateType: 'sync', state: 'syncing', durationMs: 1 } });
    const [started] = log.list();
    expect(log.list()).toHaveLength(1);
    expect(started).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { namespace: 'shop', name: expect.stringMatching(/^web\.[0-9a-f]+$/) },
      involvedObject: { kind: 'Pod', namespace: 'shop', name: 'web', uid: 'uid-1', fieldPath: 'spec.containers{app}' },
      type: 'Normal',
      reason: 'Started',
      source: { component: 'kubelet', host: 'n1' },
      count: 1,
    });
    expect(started.firstTimestamp).toBe(started.lastTimestamp);
  });

  it('counts a repeat on the first event, with its first and last times', async () => {
    const { clock, log, backOff, changes } = setup();
    const first = clock.now();
    backOff();
    await clock.advance(30_000);
    backOff();
    await clock.advance(90_000);
    backOff();
    const [event] = log.list();
    expect(log.list()).toHaveLength(1);
    expect(event.count).toBe(3);
    expect(Date.parse(event.firstTimestamp!)).toBe(Math.floor(first / 1000) * 1000);
    expect(Date.parse(event.lastTimestamp!)).toBe(Math.floor((first + 120_000) / 1000) * 1000);
    expect(changes.map((c) => c.type)).toEqual(['ADDED', 'MODIFIED', 'MODIFIED']);
    expect(changes[2].object.metadata.name).toBe(changes[0].object.metadata.name);
  });

  it('forgets an event an hour after it was last written, and a later repeat starts anew', async () => {
    const { clock, log, backOff, changes } = setup();
    backOff();
    await clock.advance(EVENT_TTL_MS - 60_000);
    backOff('default/other');
    // Still kept: its last write is less than an hour old.
    expect(log.list()).toHaveLength(2);
    await clock.advance(60_000);
    expect(log.list().map((e) => e.involvedObject.name)).toEqual(['other']);
    expect(changes.at(-1)).toMatchObject({ type: 'DELETED', object: { involvedObject: { name: 'crash' } } });
    backOff();
    expect(log.list().find((e) => e.involvedObject.name === 'crash')?.count).toBe(1);
  });

  it('keeps a repeated event alive: the hour runs from its last write', async () => {
    const { clock, log, backOff } = setup();
    backOff();
    await clock.advance(40 * 60_000);
    backOff();
    await clock.advance(40 * 60_000);
    expect(log.list()).toHaveLength(1);
    expect(log.list()[0].count).toBe(2);
  });

  it('lists and watches one object, and throttles an object that floods as client-go does', () => {
    const { log, events, backOff } = setup();
    const seen: string[] = [];
    log.watch((c) => seen.push(`${c.type} ${c.object.involvedObject.name}`), { kind: 'Pod', name: 'crash' });
    backOff('default/other');
    backOff('default/crash');
    expect(log.list({ name: 'crash' }).map((e) => e.involvedObject.name)).toEqual(['crash']);
    expect(log.list({ namespace: 'shop' })).toEqual([]);
    expect(seen).toEqual(['ADDED crash']);
    for (let i = 0; i < 40; i++)
      events.emit({
        type: 'ProbeFailed',
        pod: 'default/flood',
        uid: 'u',
        container: 'app',
        reason: 'Unhealthy',
        message: `try ${i}`,
        detail: { probe: 'liveness' },
      });
    expect(log.list({ name: 'flood' })).toHaveLength(25);
  });

  it("names an init container's field as the kubelet's GenerateContainerRef does", () => {
    const clock = new FakeClock();
    const events = new EventStream(() => clock.now());
    const pod: Pod = {
      metadata: { name: 'web', namespace: 'default', uid: 'u1' },
      spec: { initContainers: [{ name: 'prepare' }], containers: [{ name: 'app' }] },
    };
    const log = new EventLog(clock, 'n1', (uid, container) => containerFieldPath(uid === 'u1' ? pod : undefined, container));
    log.start(events);
    for (const container of ['prepare', 'app'])
      events.emit({
        type: 'ContainerCreated',
        pod: 'default/web',
        uid: 'u1',
        container,
        reason: 'Created',
        message: `Created container ${container}`,
        detail: { containerId: container, restartCount: 0 },
      });
    expect(log.list().map((e) => e.involvedObject.fieldPath)).toEqual(['spec.initContainers{prepare}', 'spec.containers{app}']);
  });
});
