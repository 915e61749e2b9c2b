// Apply's summary lines and exit code (summarize).
import { expect, it } from 'vitest';
import { summarize } from '../../../src/cli/apply-report.js';
import type { PodOutcome } from '../../../src/engine/run-once.js';

const pod = (name: string, ok: boolean, result: string): PodOutcome => ({ pod: name, uid: name, ok, result }) as PodOutcome;

it('counts as workloads only the objects that run pods, not the ConfigMaps and Secrets beside them', () => {
  const lines: string[] = [];
  const objects = new Map([
    ['ConfigMap/default/site', { state: 'ready' as const, message: 'configmap "site" created' }],
    ['Secret/default/creds', { state: 'ready' as const, message: 'secret "creds" created' }],
    ['Deployment/default/web', { state: 'failed' as const, message: 'timed out' }],
    ['Job/default/batch', { state: 'ready' as const, message: 'job "batch" complete' }],
  ]);
  const code = summarize([pod('default/once', true, 'Succeeded')], objects, { path: 'wl.yaml', errors: 0 }, (l) => lines.push(l));
  expect(lines).toEqual(['1 pod: 1 Succeeded', '2 workloads: 1 ready, 1 not']);
  expect(code).toBe(1);
});

it('takes a file of ConfigMaps alone as applied, with no workload line', () => {
  const lines: string[] = [];
  const objects = new Map([['ConfigMap/default/site', { state: 'ready' as const, message: 'configmap "site" created' }]]);
  expect(summarize([], objects, { path: 'cm.yaml', errors: 0 }, (l) => lines.push(l))).toBe(0);
  expect(lines).toEqual([]);
});
