import { createHash } from 'node:crypto';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AppliedAs, RolloutState } from '../controllers/index.js';
import { kindOf, readCapped } from '../engine/config/bounded-read.js';
import { MAX_MANIFEST_BYTES } from '../engine/config/manifest.js';
import type { PodOutcome } from '../engine/run-once.js';
import { ExitCode, UserError } from '../util/user-error.js';

/**
 * The path apply reads; stdin is saved under the root dir first, so its pods get a stable UID.
 * A path that is neither a directory nor a regular file (a device, a FIFO) is a usage error:
 * in a directory it would be skipped, but named alone it can only be a mistake. Stdin is read
 * up to the manifest limit and refused past it.
 */
export async function manifestPath(filename: string, rootDir: string, stdin: NodeJS.ReadStream = process.stdin): Promise<string> {
  if (filename !== '-') {
    const path = resolve(filename);
    let info;
    try {
      info = statSync(path);
    } catch {
      throw new UserError('usage', `${filename}: no such file or directory`);
    }
    if (!info.isDirectory() && !info.isFile())
      throw new UserError('usage', `${filename}: ${kindOf(info)}, not a regular file or a directory of manifests`);
    return path;
  }
  let text: string;
  try {
    text = await readCapped(stdin, MAX_MANIFEST_BYTES, 'stdin');
  } catch (err) {
    throw new UserError('usage', (err as Error).message);
  } finally {
    stdin.destroy();
  }
  const dir = join(rootDir, 'apply');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `stdin-${createHash('sha256').update(text).digest('hex').slice(0, 16)}.yaml`);
  writeFileSync(file, text);
  return file;
}

/**
 * The kinds whose objects run pods (and a CronJob, which makes Jobs), as
 * `kubectl get all` lists them, which apply's summary counts as workloads
 * (not ConfigMaps, Secrets, claims...).
 */
export const WORKLOAD_KINDS = new Set(['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob']);

/**
 * Apply's line for the object KEY (`kind/namespace/name`) at the end: a
 * workload's as `kubectl rollout status` says it; another's (a ConfigMap)
 * as `kubectl apply` says what it did (`configmap/site configured`).
 */
export function appliedLine(key: string, state: RolloutState, appliedAs: AppliedAs | undefined): string {
  const [kind, , name] = key.split('/');
  if (WORKLOAD_KINDS.has(kind) || !appliedAs) return state.message;
  return `${kind.toLowerCase()}/${name} ${appliedAs}`;
}

/**
 * Apply's summary on stderr: one line per failed pod, a count of pods and of
 * workloads. The exit code: 1 when any failed, 2 for bad manifests; no pods
 * and nothing else in PATH is a usage error.
 */
export function summarize(
  outcomes: PodOutcome[],
  objects: ReadonlyMap<string, RolloutState>,
  manifests: { path: string; errors: number },
  tell: (line: string) => void,
): number {
  // The objects by `kind/namespace/name`; only those that run pods are counted as workloads.
  const rollouts = [...objects].filter(([key]) => WORKLOAD_KINDS.has(key.split('/')[0])).map(([, state]) => state);
  const failed = outcomes.filter((o) => !o.ok);
  for (const o of failed) tell(`${o.pod}: ${o.result}${o.message ? `: ${o.message}` : ''}`);
  const counts = new Map<string, number>();
  for (const o of outcomes) counts.set(o.ok ? o.result : 'failed', (counts.get(o.ok ? o.result : 'failed') ?? 0) + 1);
  if (outcomes.length > 0 || objects.size === 0)
    tell(`${plural(outcomes.length, 'pod')}: ${[...counts].map(([k, n]) => `${n} ${k}`).join(', ') || 'none'}`);
  const unfinished = rollouts.filter((r) => r.state !== 'ready').length;
  if (rollouts.length > 0)
    tell(`${plural(rollouts.length, 'workload')}: ${rollouts.length - unfinished} ready${unfinished > 0 ? `, ${unfinished} not` : ''}`);
  if (failed.length > 0 || [...objects.values()].some((r) => r.state !== 'ready')) return ExitCode.workloadFailed;
  if (outcomes.length === 0 && objects.size === 0 && manifests.errors === 0) throw new UserError('usage', `no pods in ${manifests.path}`);
  if (manifests.errors > 0) return ExitCode.usage;
  return ExitCode.ok;
}

export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
