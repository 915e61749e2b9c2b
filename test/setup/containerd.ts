// Starts a real containerd (test/containerd/containerd.sh) for the integration
// suites and hands its endpoint to them as `containerdEndpoint`. On a machine
// where containerd cannot run (not root, no packages), the run fails with the
// reason, unless KNODE_TEST_CONTAINERD=off says to test the embedded runtime
// alone, or KNODE_TEST_CONTAINERD_ENDPOINT names a containerd already running.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    containerdEndpoint: string;
  }
}

const script = join(import.meta.dirname, '../containerd/containerd.sh');

export default function setup(project: TestProject) {
  if (process.env.KNODE_TEST_CONTAINERD === 'off') {
    project.provide('containerdEndpoint', '');
    return;
  }
  if (process.env.KNODE_TEST_CONTAINERD_ENDPOINT) {
    project.provide('containerdEndpoint', process.env.KNODE_TEST_CONTAINERD_ENDPOINT);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'kctr-'));
  const endpoint = execFileSync('bash', [script, 'up', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  project.provide('containerdEndpoint', endpoint);
  return () => {
    execFileSync('bash', [script, 'down', dir], { stdio: 'inherit' });
  };
}
