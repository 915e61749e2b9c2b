// The parts every scenario file of the kubelet differential builds its pods
// from: the image, a shell container, a pod on the host network, and the
// scripts whose ends the scenarios rely on.
import type { Container, PodSpec } from '../../src/engine/api/v1.js';

/** One pod of the corpus: its manifest, what happens to it, and how long it is watched. */
export interface Scenario {
  /** The pod's metadata.name (the static pod is `<name>-<node>`). */
  name: string;
  /** What it exercises, one line. */
  what: string;
  spec: PodSpec;
  /** Rewrite the manifest with this spec `at` seconds after the agent showed the pod begun. */
  edit?: { at: number; spec: PodSpec };
  /** Remove the manifest this many seconds after the agent showed the pod begun. */
  removeAt?: number;
  /** Seconds after the pod began by which it has shown all it will (default LASTS); the run lasts that long after it. */
  lasts?: number;
  /**
   * It never settles (a crash loop, an image pull back-off): at the end of the run only
   * its restart counts are compared, within RESTART_SLACK, since the moment of the last
   * sample falls anywhere in a cycle.
   */
  loop?: boolean;
  /** The manifest's file name in the static pod directory (default NAME.yaml). */
  fileName?: string;
  /** The manifest's text as written, instead of one generated from `spec`. */
  text?: string;
}

/** Debian's busybox-static as an image, imported into each containerd by containerd2.sh (no network here). */
export const IMAGE = 'busybox:1.36';

/** A busybox container running a shell script. */
export function sh(name: string, script: string, extra: Partial<Container> = {}): Container {
  return { name, image: IMAGE, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', script], ...extra };
}

/** A pod spec on the host network with a short grace period. */
export function pod(containers: Container[], extra: Partial<PodSpec> = {}): PodSpec {
  return { hostNetwork: true, terminationGracePeriodSeconds: 2, containers, ...extra };
}

/** An exec probe or hook handler. */
export const exec = (...command: string[]) => ({ exec: { command } });

/** A script that sleeps until killed, exiting 0 on SIGTERM (PID 1 ignores SIGTERM without a handler). */
export const SLEEP = "trap 'exit 0' TERM; sleep 3600 & wait";

/**
 * A container that ignores SIGTERM (PID 1 without a handler) and dies of SIGKILL at the
 * end of its grace period, exit code 137: for containers a probe or a failed postStart
 * hook kills, which may happen before a shell has set a trap (the exit code would then
 * depend on timing: a CI run once saw the kubelet's container die of SIGKILL there).
 */
export const STUBBORN = 'exec sleep 3600';
