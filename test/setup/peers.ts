// Starts the real containerds for the integration suites and hands their
// endpoints to them: Debian's containerd 1.6 (test/containerd/containerd.sh) as
// `containerdEndpoint`, and containerd 2 built from the Go module proxy
// (test/peers/containerd2.sh, built on first use) as `containerd2Endpoint`. On a
// machine where they cannot run (not root, no packages, no Go), the run fails
// with the reason, unless KNODE_TEST_CONTAINERD=off says to test the embedded
// runtime alone (KNODE_TEST_CONTAINERD2=off: without containerd 2), or
// KNODE_TEST_CONTAINERD_ENDPOINT / KNODE_TEST_CONTAINERD2_ENDPOINT name one
// already running. It also builds cricheck, the CRI client on k8s.io/cri-client
// that drives the embedded runtime as crictl would (`cricheckPath`), and crictl
// itself (`crictlPath`), the Go SPDY client of exec, attach and port-forward. Before the
// containerds, it starts the local registry (test/registry/registry.sh) that
// both use as docker.io's mirror, so their pulls are real (`registry`).
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startRegistry, type LocalRegistry } from '../helpers/registry.js';

declare module 'vitest' {
  export interface ProvidedContext {
    containerdEndpoint: string;
    containerd2Endpoint: string;
    /** The cricheck binary (test/peers/cricheck), or '' with KNODE_TEST_CRICHECK=off. */
    cricheckPath: string;
    /** crictl (cri-tools), or '' with KNODE_TEST_CRICTL=off. */
    crictlPath: string;
    /** The local registry the containerds pull docker.io images from. */
    registry: { host: string; images: LocalRegistry['images'] };
  }
}

interface Containerd {
  script: string;
  off: boolean;
  endpoint?: string;
}

/** Starts one containerd (or takes the given endpoint); returns its endpoint and how to stop it. */
function start({ script, off, endpoint }: Containerd): { endpoint: string; stop(): void } {
  if (off) return { endpoint: '', stop: () => {} };
  if (endpoint) return { endpoint, stop: () => {} };
  const dir = mkdtempSync(join(tmpdir(), 'kctr-'));
  const started = execFileSync('bash', [script, 'up', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  return { endpoint: started, stop: () => execFileSync('bash', [script, 'down', dir], { stdio: 'inherit' }) };
}

/** Builds a Go-built CRI client (cricheck, crictl) if it is not built yet (seconds with the Go caches warm) and returns its path. */
function criClient(name: 'cricheck' | 'crictl'): string {
  if (process.env[`KNODE_TEST_${name.toUpperCase()}`] === 'off') return '';
  const build = join(import.meta.dirname, '../peers/build.sh');
  execFileSync('bash', [build, name], { stdio: ['ignore', 'ignore', 'inherit'] });
  return join(execFileSync('bash', [build, 'path', name], { encoding: 'utf8' }).trim(), name);
}

export default function setup(project: TestProject) {
  const allOff = process.env.KNODE_TEST_CONTAINERD === 'off';
  const registry = startRegistry();
  process.env.KNODE_REGISTRY_MIRROR = registry.host;
  project.provide('registry', { host: registry.host, images: registry.images });
  let one: { endpoint: string; stop(): void };
  try {
    one = start({
      script: join(import.meta.dirname, '../containerd/containerd.sh'),
      off: allOff,
      endpoint: process.env.KNODE_TEST_CONTAINERD_ENDPOINT,
    });
  } catch (err) {
    registry.stop();
    throw err;
  }
  let two: { endpoint: string; stop(): void };
  try {
    two = start({
      script: join(import.meta.dirname, '../peers/containerd2.sh'),
      off: allOff || process.env.KNODE_TEST_CONTAINERD2 === 'off',
      endpoint: process.env.KNODE_TEST_CONTAINERD2_ENDPOINT,
    });
  } catch (err) {
    one.stop();
    registry.stop();
    throw err;
  }
  try {
    project.provide('cricheckPath', criClient('cricheck'));
    project.provide('crictlPath', criClient('crictl'));
  } catch (err) {
    two.stop();
    one.stop();
    registry.stop();
    throw err;
  }
  project.provide('containerdEndpoint', one.endpoint);
  project.provide('containerd2Endpoint', two.endpoint);
  return () => {
    two.stop();
    one.stop();
    registry.stop();
  };
}
