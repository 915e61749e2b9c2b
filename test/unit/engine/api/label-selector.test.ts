// kubectl's -l as apimachinery's labels.Parse reads it, matched by the same
// selectorMatches the controllers use.
import { describe, expect, it } from 'vitest';
import { parseLabelSelector, SelectorError } from '../../../../src/engine/api/label-selector.js';
import { selectorMatches } from '../../../../src/engine/api/workloads.js';

const matches = (text: string, labels: Record<string, string>) => selectorMatches(parseLabelSelector(text), labels);

describe('parseLabelSelector', () => {
  it('reads equality, inequality, sets and existence, joined by commas', () => {
    expect(matches('app=web', { app: 'web' })).toBe(true);
    expect(matches('app==web', { app: 'db' })).toBe(false);
    expect(matches('app!=web', {})).toBe(true); // as upstream: a pod without the key matches
    expect(matches('app!=web', { app: 'web' })).toBe(false);
    expect(matches('tier in (front, back),app', { tier: 'back', app: 'x' })).toBe(true);
    expect(matches('tier notin (front,back)', { tier: 'front' })).toBe(false);
    expect(matches('!canary', { app: 'web' })).toBe(true);
    expect(matches('app.kubernetes.io/name=web , !canary', { 'app.kubernetes.io/name': 'web', canary: 'y' })).toBe(false);
    expect(matches('', { any: 'thing' })).toBe(true);
  });

  it('refuses what upstream refuses, naming the requirement', () => {
    for (const bad of ['app=web,', 'a b', 'tier in ()', 'bad key=1', '-x=1']) expect(() => parseLabelSelector(bad)).toThrow(SelectorError);
    expect(() => parseLabelSelector('a b')).toThrow('unable to parse requirement: "a b"');
  });
});
