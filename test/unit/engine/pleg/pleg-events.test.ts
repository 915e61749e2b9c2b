import { describe, expect, it } from 'vitest';
import type { ContainerRuntimeState, RunningPod } from '../../../../src/engine/container/types.js';
import { computeEvents, generateEvents } from '../../../../src/engine/pleg/generic.js';
import type { PodLifecycleEventType } from '../../../../src/engine/pleg/types.js';

// ---- builders ---------------------------------------------------------------

type PlegState = Parameters<typeof generateEvents>[0];

const UID = 'uid-1';

/** A pod as a relist sees it: `sandboxes` and `containers` are id → state. */
function relisted(sandboxes: Record<string, 'ready' | 'notready'>, containers: Record<string, ContainerRuntimeState> = {}): RunningPod {
  return {
    uid: UID,
    name: 'web',
    namespace: 'default',
    sandboxes: Object.entries(sandboxes).map(([id, state]) => ({ id, state, createdAt: 1 })),
    containers: Object.entries(containers).map(([id, state]) => ({
      id,
      name: id.replace(/-\d+$/, ''),
      state,
      createdAt: 2,
      hash: 'h',
      sandboxId: 'sb-1',
    })),
  };
}

/** The events of a relist grouped by container (or sandbox) id, in the order they were emitted for that id. */
function byId(events: ReturnType<typeof computeEvents>): Record<string, PodLifecycleEventType[]> {
  const out: Record<string, PodLifecycleEventType[]> = {};
  for (const e of events) {
    expect(e.id).toBe(UID);
    (out[e.data] ??= []).push(e.type);
  }
  return out;
}

// ---- generateEvents ---------------------------------------------------------

describe('generateEvents', () => {
  const rows: [PlegState, PlegState, PodLifecycleEventType[]][] = [
    // No change, no event.
    ['running', 'running', []],
    ['exited', 'exited', []],
    ['unknown', 'unknown', []],
    ['nonexistent', 'nonexistent', []],
    // Now running.
    ['nonexistent', 'running', ['ContainerStarted']],
    ['exited', 'running', ['ContainerStarted']],
    ['unknown', 'running', ['ContainerStarted']],
    // Now exited.
    ['running', 'exited', ['ContainerDied']],
    ['nonexistent', 'exited', ['ContainerDied']],
    ['unknown', 'exited', ['ContainerDied']],
    // Now unknown (or created, which the kubelet does not tell apart yet).
    ['running', 'unknown', ['ContainerChanged']],
    ['nonexistent', 'unknown', ['ContainerChanged']],
    ['nonexistent', 'created', ['ContainerChanged']],
    // Gone: a container not seen dying dies and is removed; one seen dying is only removed.
    ['running', 'nonexistent', ['ContainerDied', 'ContainerRemoved']],
    ['unknown', 'nonexistent', ['ContainerDied', 'ContainerRemoved']],
    ['exited', 'nonexistent', ['ContainerRemoved']],
  ];
  it.each(rows)('%s → %s: %j', (oldState, newState, want) => {
    expect(generateEvents(oldState, newState)).toEqual(want);
  });
});

// ---- computeEvents ----------------------------------------------------------

describe('computeEvents', () => {
  const rows: [string, RunningPod | undefined, RunningPod | undefined, Record<string, PodLifecycleEventType[]>][] = [
    ['pod unseen before and after', undefined, undefined, {}],
    ['nothing changed', relisted({ 'sb-1': 'ready' }, { 'app-1': 'running' }), relisted({ 'sb-1': 'ready' }, { 'app-1': 'running' }), {}],
    ['new pod: its sandbox counts as a started container', undefined, relisted({ 'sb-1': 'ready' }), { 'sb-1': ['ContainerStarted'] }],
    [
      'container created: reported as changed',
      relisted({ 'sb-1': 'ready' }),
      relisted({ 'sb-1': 'ready' }, { 'app-1': 'created' }),
      { 'app-1': ['ContainerChanged'] },
    ],
    [
      'created container started',
      relisted({ 'sb-1': 'ready' }, { 'app-1': 'created' }),
      relisted({ 'sb-1': 'ready' }, { 'app-1': 'running' }),
      { 'app-1': ['ContainerStarted'] },
    ],
    [
      'container started between relists',
      relisted({ 'sb-1': 'ready' }),
      relisted({ 'sb-1': 'ready' }, { 'app-1': 'running' }),
      { 'app-1': ['ContainerStarted'] },
    ],
    [
      'container exited',
      relisted({ 'sb-1': 'ready' }, { 'app-1': 'running' }),
      relisted({ 'sb-1': 'ready' }, { 'app-1': 'exited' }),
      { 'app-1': ['ContainerDied'] },
    ],
    [
      'container restarted: the old instance died, the new one started',
      relisted({ 'sb-1': 'ready' }, { 'app-1': 'running' }),
      relisted({ 'sb-1': 'ready' }, { 'app-1': 'exited', 'app-2': 'running' }),
      { 'app-1': ['ContainerDied'], 'app-2': ['ContainerStarted'] },
    ],
    [
      'exited container removed',
      relisted({ 'sb-1': 'ready' }, { 'app-1': 'exited' }),
      relisted({ 'sb-1': 'ready' }),
      { 'app-1': ['ContainerRemoved'] },
    ],
    [
      'running container removed at once',
      relisted({ 'sb-1': 'ready' }, { 'app-1': 'running' }),
      relisted({ 'sb-1': 'ready' }),
      { 'app-1': ['ContainerDied', 'ContainerRemoved'] },
    ],
    [
      'sandbox stopped: it counts as a container that died',
      relisted({ 'sb-1': 'ready' }, { 'app-1': 'exited' }),
      relisted({ 'sb-1': 'notready' }, { 'app-1': 'exited' }),
      { 'sb-1': ['ContainerDied'] },
    ],
    [
      'whole pod gone while running: sandbox and container die and are removed',
      relisted({ 'sb-1': 'ready' }, { 'app-1': 'running' }),
      undefined,
      { 'sb-1': ['ContainerDied', 'ContainerRemoved'], 'app-1': ['ContainerDied', 'ContainerRemoved'] },
    ],
    [
      'stopped pod gone: only removals',
      relisted({ 'sb-1': 'notready' }, { 'app-1': 'exited' }),
      undefined,
      { 'sb-1': ['ContainerRemoved'], 'app-1': ['ContainerRemoved'] },
    ],
    [
      'sandbox replaced: the old one is removed, the new one started',
      relisted({ 'sb-1': 'notready' }),
      relisted({ 'sb-2': 'ready' }),
      { 'sb-1': ['ContainerRemoved'], 'sb-2': ['ContainerStarted'] },
    ],
  ];
  it.each(rows)('%s', (_name, old, current, want) => {
    expect(byId(computeEvents(UID, old, current))).toEqual(want);
  });

  it('carries the pod uid as id and the container id as data', () => {
    expect(computeEvents('pod-42', undefined, { ...relisted({}, { 'app-1': 'running' }), uid: 'pod-42' })).toEqual([
      { id: 'pod-42', type: 'ContainerStarted', data: 'app-1' },
    ]);
  });
});
