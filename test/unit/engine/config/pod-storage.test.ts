import { describe, expect, it, vi } from 'vitest';
import type { Pod } from '../../../../src/engine/api/v1.js';
import { PodStorage, type PodOperation, type PodUpdate } from '../../../../src/engine/config/pod-storage.js';

function pod(
  name: string,
  patch: {
    image?: string;
    status?: Pod['status'];
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
    deletionTimestamp?: string;
    uid?: string;
    namespace?: string;
  } = {},
): Pod {
  return {
    metadata: {
      uid: patch.uid ?? `uid-${name}`,
      name,
      namespace: patch.namespace ?? 'default',
      annotations: { 'kubernetes.io/config.source': 'file', 'kubernetes.io/config.seen': '2026-01-01T00:00:00.000Z', ...patch.annotations },
      ...(patch.labels ? { labels: patch.labels } : {}),
      ...(patch.deletionTimestamp ? { deletionTimestamp: patch.deletionTimestamp } : {}),
    },
    spec: { containers: [{ name: 'main', image: patch.image ?? 'busybox:1' }] },
    status: patch.status ?? { phase: 'Pending' },
  };
}

/** The updates as `[op, [pod names]]`, easy to compare in a table. */
const summary = (updates: PodUpdate[]): [PodOperation, string[]][] => updates.map((u) => [u.op, u.pods.map((p) => p.metadata.name!)]);

describe('PodStorage.merge', () => {
  it.each<[string, Pod[], Pod[], [PodOperation, string[]][]]>([
    ['the same snapshot again', [pod('a')], [pod('a')], []],
    ['a spec change', [pod('a')], [pod('a', { image: 'busybox:2' })], [['UPDATE', ['a']]]],
    ['a label change', [pod('a')], [pod('a', { labels: { tier: 'x' } })], [['UPDATE', ['a']]]],
    ['a change of a non-local annotation', [pod('a')], [pod('a', { annotations: { owner: 'me' } })], [['UPDATE', ['a']]]],
    ['only config.seen changed', [pod('a')], [pod('a', { annotations: { 'kubernetes.io/config.seen': '2026-02-02T00:00:00.000Z' } })], []],
    ['only config.source changed', [pod('a')], [pod('a', { annotations: { 'kubernetes.io/config.source': 'http' } })], []],
    ['only the status changed', [pod('a')], [pod('a', { status: { phase: 'Running' } })], [['RECONCILE', ['a']]]],
    [
      'a spec and status change is an update only',
      [pod('a')],
      [pod('a', { image: 'busybox:2', status: { phase: 'Running' } })],
      [['UPDATE', ['a']]],
    ],
    ['deletionTimestamp newly set', [pod('a')], [pod('a', { deletionTimestamp: '2026-01-01T00:01:00Z' })], [['DELETE', ['a']]]],
    ['the pod is gone', [pod('a'), pod('b')], [pod('b')], [['REMOVE', ['a']]]],
    [
      'a new pod already being deleted is an ADD',
      [pod('a')],
      [pod('a'), pod('b', { deletionTimestamp: '2026-01-01T00:01:00Z' })],
      [['ADD', ['b']]],
    ],
    [
      "everything at once, in the kubelet's order",
      [pod('gone'), pod('upd'), pod('del'), pod('rec')],
      [
        pod('rec', { status: { phase: 'Running' } }),
        pod('del', { deletionTimestamp: '2026-01-01T00:01:00Z' }),
        pod('upd', { image: 'busybox:2' }),
        pod('new'),
      ],
      [
        ['REMOVE', ['gone']],
        ['ADD', ['new']],
        ['UPDATE', ['upd']],
        ['DELETE', ['del']],
        ['RECONCILE', ['rec']],
      ],
    ],
  ])('second snapshot: %s', (_case, first, second, expected) => {
    const storage = new PodStorage();
    expect(summary(storage.merge('file', first))).toEqual([['ADD', first.map((p) => p.metadata.name!)]]);
    expect(summary(storage.merge('file', second))).toEqual(expected);
  });

  it('makes every pod of a first snapshot an ADD, tagged with its source', () => {
    const updates = new PodStorage().merge('file', [pod('a'), pod('b')]);
    expect(updates).toEqual([{ op: 'ADD', pods: [pod('a'), pod('b')], source: 'file' }]);
  });

  it('sends an empty ADD for an empty first snapshot, so the source counts as seen', () => {
    const storage = new PodStorage();
    expect(storage.seenAllSources(['file'])).toBe(false);
    expect(storage.merge('file', [])).toEqual([{ op: 'ADD', pods: [], source: 'file' }]);
    expect(storage.seenAllSources(['file'])).toBe(true);
    expect(storage.merge('file', [])).toEqual([]);
  });

  it('gives a first snapshot with pods one ADD, without an extra empty one', () => {
    expect(new PodStorage().merge('file', [pod('a')])).toHaveLength(1);
  });

  it('knows when every source has sent a snapshot', () => {
    const storage = new PodStorage();
    storage.merge('file', []);
    expect(storage.seenAllSources(['file', 'http'])).toBe(false);
    storage.merge('http', [pod('x')]);
    expect(storage.seenAllSources(['file', 'http'])).toBe(true);
    expect(storage.seenAllSources([])).toBe(true);
  });

  it("keeps sources apart: a snapshot of one never removes another's pods", () => {
    const storage = new PodStorage();
    storage.merge('file', [pod('a')]);
    storage.merge('http', [pod('b')]);
    expect(storage.merge('http', [])).toEqual([{ op: 'REMOVE', pods: [pod('b')], source: 'http' }]);
    expect(storage.allPods().map((p) => p.metadata.name)).toEqual(['a']);
  });

  it('keeps the first of two pods with the same full name and reports the other', () => {
    const storage = new PodStorage();
    const onDuplicate = vi.fn();
    const twin = pod('a', { uid: 'uid-other', image: 'other' });
    const updates = storage.merge('file', [pod('a'), twin, pod('a', { namespace: 'kube-system', uid: 'uid-ks' })], onDuplicate);
    expect(summary(updates)).toEqual([['ADD', ['a', 'a']]]);
    expect(updates[0].pods.map((p) => p.metadata.uid)).toEqual(['uid-a', 'uid-ks']);
    expect(onDuplicate).toHaveBeenCalledTimes(1);
    expect(onDuplicate).toHaveBeenCalledWith(twin);
  });

  it('reports a second pod with the same UID as a duplicate', () => {
    const onDuplicate = vi.fn();
    const updates = new PodStorage().merge('file', [pod('a'), pod('b', { uid: 'uid-a' })], onDuplicate);
    expect(summary(updates)).toEqual([['ADD', ['a']]]);
    expect(onDuplicate).toHaveBeenCalledTimes(1);
  });

  it('keeps the first-seen time across updates', () => {
    const storage = new PodStorage();
    storage.merge('file', [pod('a')]);
    const [update] = storage.merge('file', [pod('a', { image: 'busybox:2', annotations: { 'kubernetes.io/config.seen': 'later' } })]);
    expect(update.op).toBe('UPDATE');
    expect(update.pods[0].metadata.annotations?.['kubernetes.io/config.seen']).toBe('2026-01-01T00:00:00.000Z');
    expect(update.pods[0].spec.containers[0].image).toBe('busybox:2');
  });

  it('stores the new status on reconcile, so the same status again is no change', () => {
    const storage = new PodStorage();
    storage.merge('file', [pod('a')]);
    const [update] = storage.merge('file', [pod('a', { status: { phase: 'Running' } })]);
    expect(update.pods[0].status).toEqual({ phase: 'Running' });
    expect(storage.merge('file', [pod('a', { status: { phase: 'Running' } })])).toEqual([]);
  });

  it('hands out copies: changing an emitted pod changes nothing in the storage', () => {
    const storage = new PodStorage();
    storage.merge('file', [pod('a')]);
    const [update] = storage.merge('file', [pod('a', { image: 'busybox:2' })]);
    update.pods[0].spec.containers[0].image = 'mutated';
    update.pods[0].status = { phase: 'Failed' };
    update.pods[0].metadata.labels = { mutated: 'yes' };

    expect(storage.merge('file', [pod('a', { image: 'busybox:2' })])).toEqual([]);
    expect(storage.allPods()[0].spec.containers[0].image).toBe('busybox:2');
  });

  it('compares only the pods a snapshot sends as new objects: the apiserver source sends every pod on each change', () => {
    const storage = new PodStorage();
    const specReads = new Map<string, number>();
    /** A pod whose spec counts its reads, as a comparison reads it. */
    const counted = (p: Pod) => {
      let { spec } = p;
      Object.defineProperty(p, 'spec', {
        get: () => (specReads.set(p.metadata.name!, (specReads.get(p.metadata.name!) ?? 0) + 1), spec),
        set: (value: Pod['spec']) => (spec = value),
        enumerable: true,
      });
      return p;
    };
    const [a, b] = [counted(pod('a')), counted(pod('b'))];
    storage.merge('api', [a, b]);
    specReads.clear();
    const b2 = counted(pod('b', { image: 'busybox:2' }));
    expect(summary(storage.merge('api', [a, b2]))).toEqual([['UPDATE', ['b']]]);
    expect(specReads.get('a')).toBeUndefined();
    expect(specReads.get('b')).toBeGreaterThan(0);
    // A new object with the same content is still compared.
    specReads.clear();
    expect(storage.merge('api', [counted(pod('a')), b2])).toEqual([]);
    expect(specReads.get('a')).toBeGreaterThan(0);
    expect(specReads.get('b')).toBeUndefined();
  });

  it('hands out copies on ADD too', () => {
    const storage = new PodStorage();
    const [added] = storage.merge('file', [pod('a')]);
    added.pods[0].spec.containers[0].image = 'mutated';
    expect(storage.merge('file', [pod('a')])).toEqual([]);
  });
});
