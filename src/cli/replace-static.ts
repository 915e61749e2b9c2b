import { setTimeout as sleep } from 'node:timers/promises';
import { stringify } from 'yaml';
import type { Pod, PodList } from '../engine/api/v1.js';
import { decodeManifest, formatManifestError } from '../engine/config/manifest.js';
import { decodeStaticPods, manifestTexts } from '../engine/config/read-manifests.js';
import { FATAL_WAITING_REASONS, type PodOutcome } from '../engine/run-once.js';
import { ExitCode } from '../util/user-error.js';
import { summarize } from './apply-report.js';
import type { NodeClient } from './node-client.js';
import { locateObjects, planReplacement, writeAtomically, type Located, type Replacement } from './static-manifests.js';
import { resourceOf } from './stop-pods.js';

/** How often the node's pods are looked at while the replaced ones start. */
const POLL_MS = 250;

export interface ReplaceOutput {
  /** kubectl's `pod/web replaced` lines, or the list that -o prints instead. */
  out: (line: string) => void;
  /** Errors, warnings and the summary. */
  err: (line: string) => void;
  /** -o: the replaced objects as a v1 list in this format, the pods as the node runs them, in place of the `replaced` lines. */
  format?: 'json' | 'yaml';
}

/**
 * `knode apply --replace` beside a running node: each object of the
 * manifests replaces the one of the same kind, namespace and name in the
 * node's --static-dir, as kubectl replace does, by rewriting its document in
 * the file that holds it, atomically; the node's file source then runs the
 * new pod in place of the old. Then it waits, up to the timeout, for the
 * node to run the new pods, and reports them as apply does. Nothing is
 * written when one object cannot be replaced (exit 1) or a manifest is bad
 * (exit 2).
 */
export async function replaceInStaticDir(
  node: NodeClient,
  staticDir: string,
  path: string,
  timeoutMs: number,
  output: ReplaceOutput,
): Promise<number> {
  const { out, err } = output;
  const nodeName = (await node.json<{ nodeName?: string }>('/node')).body.nodeName ?? '';
  const given = await readGiven(path, nodeName);
  if (given.errors.length > 0) {
    for (const error of given.errors) err(`Error: ${error}`);
    return ExitCode.usage;
  }
  const texts = new Map<string, string>();
  const existing: Located[] = [];
  // The node names the files it cannot read itself: not this command's errors.
  for await (const { file, text } of manifestTexts(staticDir, [])) {
    texts.set(file, text);
    existing.push(...locateObjects(file, text));
  }
  const plan = planReplacement(given.objects, existing, texts, staticDir);
  if (plan.errors.length > 0) {
    for (const error of plan.errors) err(`Error: ${error}`);
    return ExitCode.workloadFailed;
  }
  for (const [file, text] of plan.files) writeAtomically(file, text);
  for (const r of plan.replacements) {
    if (!output.format) out(`${resourceOf(r.given.ref.kind)}/${r.given.ref.name} replaced`);
    if (r.unchanged)
      err(
        `Warning: ${r.given.ref.kind.toLowerCase()} "${r.given.ref.name}" is unchanged in ${r.target.file}: the node keeps it as it runs`,
      );
  }
  const pods = expectedPods(plan.replacements, plan.files, texts, nodeName);
  const { outcomes, seen } = pods.length > 0 ? await waitForPods(node, pods, timeoutMs) : { outcomes: [], seen: new Map<string, Pod>() };
  if (output.format) {
    // As apply -o lists them: the pods as the node reports them (else as written), then the other objects as given.
    const others = plan.replacements.filter((r) => r.given.ref.kind !== 'Pod').map((r) => r.given.value);
    const items = [...pods.map((p) => seen.get(p.metadata.uid!) ?? p), ...others];
    const list = { apiVersion: 'v1', kind: others.length === 0 ? 'PodList' : 'List', metadata: { resourceVersion: '' }, items };
    out(output.format === 'json' ? JSON.stringify(list, null, 2) : stringify(list).trimEnd());
  }
  return pods.length === 0 ? ExitCode.ok : summarize(outcomes, new Map(), { path, errors: 0 }, err);
}

/** The given manifests' objects, located, and their problems as decodeManifest tells them (nothing is replaced by a bad manifest). */
async function readGiven(path: string, nodeName: string): Promise<{ objects: Located[]; errors: string[] }> {
  const objects: Located[] = [];
  const errors: string[] = [];
  for await (const { file, text } of manifestTexts(path, errors)) {
    errors.push(...decodeManifest(file, text, nodeName.length + 1).errors.map(formatManifestError));
    objects.push(...locateObjects(file, text));
  }
  if (objects.length === 0 && errors.length === 0) errors.push(`no objects in ${path}`);
  return { objects, errors };
}

/** The pods the node is to run once it has read the rewritten files: their UIDs come from the new text, as its file source makes them. */
function expectedPods(replacements: Replacement[], files: Map<string, string>, texts: Map<string, string>, nodeName: string): Pod[] {
  const pods: Pod[] = [];
  for (const r of replacements) {
    if (r.given.ref.kind !== 'Pod') continue;
    const file = r.target.file;
    const decoded = decodeStaticPods(file, files.get(file) ?? texts.get(file)!, nodeName, Date.now()).pods;
    const pod = decoded.find(
      (p) => p.metadata.name === `${r.given.ref.name}-${nodeName}` && p.metadata.namespace === r.given.ref.namespace,
    );
    if (pod) pods.push(pod);
  }
  return pods;
}

/**
 * Waits until the node runs each pod (Running; Succeeded for a pod that runs
 * to completion), or it failed, or the time is up; with the pods as the node
 * last reported them.
 */
async function waitForPods(node: NodeClient, pods: Pod[], timeoutMs: number): Promise<{ outcomes: PodOutcome[]; seen: Map<string, Pod> }> {
  const started = Date.now();
  const outcomes = new Map<string, PodOutcome>();
  const last = new Map<string, string>();
  const reported = new Map<string, Pod>();
  for (;;) {
    const items = (await node.json<PodList>('/pods')).body.items;
    for (const pod of pods) {
      const uid = pod.metadata.uid!;
      const seen = items.find((p) => p.metadata.uid === uid);
      if (seen) reported.set(uid, seen);
      if (!seen || outcomes.has(uid)) continue;
      const outcome = judge(seen, Date.now() - started);
      if (outcome) outcomes.set(uid, outcome);
      else last.set(uid, seen.status?.phase ?? 'Pending');
    }
    if (outcomes.size === pods.length || Date.now() - started >= timeoutMs) break;
    await sleep(POLL_MS);
  }
  const done = pods.map(
    (pod) =>
      outcomes.get(pod.metadata.uid!) ?? {
        pod: `${pod.metadata.namespace}/${pod.metadata.name}`,
        uid: pod.metadata.uid!,
        ok: false,
        result: last.get(pod.metadata.uid!) ?? 'Pending',
        reason: 'Timeout',
        message: `timed out after ${Math.round(timeoutMs / 1000)}s; the pod was ${last.get(pod.metadata.uid!) ?? 'not yet seen by the node'}`,
        durationMs: timeoutMs,
      },
  );
  return { outcomes: done, seen: reported };
}

/** The node's pod as apply judges it: done when Running (restartPolicy Always) or Succeeded, failed when Failed or stuck on a fatal reason. */
function judge(pod: Pod, durationMs: number): PodOutcome | undefined {
  const base = { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, uid: pod.metadata.uid!, durationMs };
  const phase = pod.status?.phase;
  if (phase === 'Succeeded') return { ...base, ok: true, result: 'Succeeded' };
  if (phase === 'Failed') return { ...base, ok: false, result: 'Failed', reason: pod.status?.reason, message: pod.status?.message };
  if (phase === 'Running' && (pod.spec.restartPolicy ?? 'Always') === 'Always') return { ...base, ok: true, result: 'Running' };
  for (const status of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])]) {
    const waiting = status.state?.waiting;
    if (waiting?.reason && FATAL_WAITING_REASONS.has(waiting.reason))
      return {
        ...base,
        ok: false,
        result: waiting.reason,
        reason: waiting.reason,
        message: `container ${status.name}: ${waiting.message ?? ''}`,
      };
  }
  return undefined;
}
