import { describe, expect, it } from 'vitest';
import { EventStream, type LifecycleEvent, type LifecycleEventType } from '../../../src/engine/events.js';
import { EVENT_CLASSES, eventSeverity, eventVerbosity, isQuiet, type EventClass } from '../../../src/engine/events-table.js';
import { applyEvent, emptyNodeView } from '../../../src/ui/tui/node-view.js';

const TYPES = Object.keys(EVENT_CLASSES) as LifecycleEventType[];
const typesOf = (pick: (row: EventClass) => boolean) => TYPES.filter((t) => pick(EVENT_CLASSES[t])).sort();
/** An event of `type` with no detail: the faces read its type, and keep what they had for a detail left out. */
const eventOf = (type: LifecycleEventType) => ({ type, pod: 'default/web', uid: 'uid-web', at: 1000, container: 'app' }) as LifecycleEvent;

describe('the event classes', () => {
  it('gives every event type a class, and tsc refuses a table without a row for each', () => {
    // @ts-expect-error: a type without a row does not compile.
    const partial: Record<LifecycleEventType, EventClass> = { PodSeen: { class: 'lifecycle', quiet: false } };
    expect(Object.keys(partial)).toHaveLength(1);
    for (const type of TYPES) {
      expect(['lifecycle', 'step', 'noisy', 'problem', 'failure']).toContain(EVENT_CLASSES[type].class);
      expect(typeof EVENT_CLASSES[type].quiet).toBe('boolean');
    }
  });

  it('names the problems, the failures, the steps, the noisy and the quiet types', () => {
    expect(typesOf((r) => r.class === 'failure')).toEqual([
      'ManifestError',
      'PLEGUnhealthy',
      'PodEvicted',
      'PodFailed',
      'PodPreempted',
      'RuntimeUnhealthy',
    ]);
    expect(typesOf((r) => r.class === 'problem')).toEqual(
      [
        'PodRejected',
        'SyncFailed',
        'SandboxFailed',
        'PodNetworkMissing',
        'DNSConfigForming',
        'CheckLimitsForResolvConf',
        'ImagePullFailed',
        'ImagePullBackOff',
        'ContainerFailed',
        'ContainerBackOff',
        'ProbeFailed',
        'ClusterWarning',
        'RuntimeConditionChanged',
        'NodeReadyChanged',
        'OrphanKilled',
        'ManifestSkipped',
        'ContainerLogRotationFailed',
        'ContainerGCFailed',
        'FreeDiskSpaceFailed',
        'ImageGCFailed',
        'NodePressureChanged',
        'CertificateRenewFailed',
      ].sort(),
    );
    expect(typesOf((r) => r.class === 'step')).toEqual([
      'MissingClusterDNS',
      'PLEGEvent',
      'PodSynced',
      'VolumesReady',
      'WorkerFinished',
      'WorkerStarted',
    ]);
    expect(typesOf((r) => r.class === 'noisy')).toEqual([
      'ContainerGarbageCollected',
      'ContainerLogRotated',
      'EvictionThresholdMet',
      'Housekeeping',
      'ImageGarbageCollected',
      'PLEGRelist',
      'StatusChanged',
      'WorkloadStatus',
    ]);
    expect(typesOf((r) => r.quiet)).toEqual([
      'ContainerGarbageCollected',
      'ContainerLogRotated',
      'ImageGarbageCollected',
      'PLEGEvent',
      'PLEGRelist',
      'PodSynced',
      'StatusChanged',
      'WorkloadStatus',
    ]);
  });

  it("is what the log's verbosity and severity and the TUI's events pane read, for every type", () => {
    const verbosity = { lifecycle: 0, step: 3, noisy: 4, problem: 0, failure: 0 };
    const severity = { lifecycle: 'I', step: 'I', noisy: 'I', problem: 'W', failure: 'E' };
    for (const type of TYPES) {
      const row = EVENT_CLASSES[type];
      expect([type, eventVerbosity(eventOf(type))]).toEqual([type, verbosity[row.class]]);
      expect([type, eventSeverity(eventOf(type))]).toEqual([type, severity[row.class]]);
      const listed = applyEvent(emptyNodeView(), eventOf(type)).events.length > 0;
      expect([type, listed]).toEqual([type, !row.quiet]);
      expect(isQuiet(eventOf(type))).toBe(row.quiet);
    }
  });
});

describe('the typed event stream', () => {
  it('refuses at compile time a payload that is not the type’s', () => {
    const seen: LifecycleEvent[] = [];
    const events = new EventStream(() => 5);
    events.subscribe((e) => seen.push(e));
    events.emit({ type: 'VolumesReady', pod: 'default/web', uid: 'u', detail: { volumes: 2 } });
    // @ts-expect-error: VolumesReady counts its volumes in a number.
    events.emit({ type: 'VolumesReady', pod: 'default/web', uid: 'u', detail: { volumes: '2' } });
    const synced = { updateType: 'sync', state: 'syncing', durationMs: 1 } as const;
    // @ts-expect-error: PodSynced's detail has no phase.
    events.emit({ type: 'PodSynced', pod: 'default/web', uid: 'u', detail: { ...synced, phase: 'x' } });
    // @ts-expect-error: ContainerStarted names its container and carries its detail.
    events.emit({ type: 'ContainerStarted', pod: 'default/web', uid: 'u' });
    expect(seen.map((e) => [e.type, e.at])).toEqual([
      ['VolumesReady', 5],
      ['VolumesReady', 5],
      ['PodSynced', 5],
      ['ContainerStarted', 5],
    ]);
  });
});
