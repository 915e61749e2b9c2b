import { describe, expect, it } from 'vitest';
import { LabelIndex } from '../../../src/runtime/label-index.js';

describe('LabelIndex', () => {
  const index = () => {
    const i = new LabelIndex();
    i.add('a', { 'io.kubernetes.pod.uid': 'u1', 'io.kubernetes.pod.namespace': 'default' });
    i.add('b', { 'io.kubernetes.pod.uid': 'u2', 'io.kubernetes.pod.namespace': 'default' });
    i.add('c', { 'io.kubernetes.pod.uid': 'u2', 'io.kubernetes.pod.namespace': 'default', app: 'x' });
    return i;
  };

  it("gives the ids under the selector's rarest label, none for a label no record has, and undefined for no selector", () => {
    const i = index();
    expect([...i.candidates({ 'io.kubernetes.pod.uid': 'u2', 'io.kubernetes.pod.namespace': 'default' })!]).toEqual(['b', 'c']);
    expect([...i.candidates({ 'io.kubernetes.pod.namespace': 'default', app: 'x' })!]).toEqual(['c']);
    expect([...i.candidates({ 'io.kubernetes.pod.uid': 'u3' })!]).toEqual([]);
    expect(i.candidates({})).toBeUndefined();
    expect(i.candidates(undefined)).toBeUndefined();
  });

  it('forgets a removed id, and keeps the first labels of an id added again', () => {
    const i = index();
    i.remove('b');
    i.add('c', { 'io.kubernetes.pod.uid': 'other' });
    expect([...i.candidates({ 'io.kubernetes.pod.uid': 'u2' })!]).toEqual(['c']);
    expect([...i.candidates({ 'io.kubernetes.pod.uid': 'other' })!]).toEqual([]);
  });
});
