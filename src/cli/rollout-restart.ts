// `knode rollout restart` beside a running node: kubectl patches the
// workload's pod template with a `kubectl.kubernetes.io/restartedAt`
// annotation, and its controller rolls every pod anew. Here the manifest in
// the node's --static-dir owns the spec, so the annotation is written into
// that document (its comments and the rest of the file kept), and the node's
// file source and local controllers then roll the pods as a cluster would.
import { parseDocument, Scalar } from 'yaml';
import { manifestTexts } from '../engine/config/read-manifests.js';
import { resourceOf } from './stop-pods.js';
import { pluralResource } from './target-kinds.js';
import { locateObjects, planReplacement, writeAtomically, type Located } from './static-manifests.js';

export const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';
const RESTARTED = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);

/** What restarting each object asked for printed: kubectl's `deployment.apps/web restarted`, or its error. */
export interface RestartOutcome {
  out?: string;
  error?: string;
}

/** Go's time.RFC3339 of NOW in UTC, as kubectl stamps a restart (`2026-12-08T00:10:00Z`). */
export const rfc3339 = (now: number) => new Date(Math.floor(now / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** The object's document with the annotation set on its pod template: its text (comments kept) and its value. */
function restarted(target: Located, at: string): Located {
  const value = structuredClone(target.value) as { spec?: { template?: { metadata?: { annotations?: Record<string, string> } } } };
  value.spec ??= {};
  value.spec.template ??= {};
  value.spec.template.metadata ??= {};
  value.spec.template.metadata.annotations = { ...value.spec.template.metadata.annotations, [RESTARTED_AT]: at };
  let text: string | undefined;
  if (target.text !== undefined) {
    const doc = parseDocument(target.text, { version: '1.1' });
    // setIn would make a YAML 1.1 !!omap of a missing map: the missing maps are made plain first.
    const path = ['spec', 'template', 'metadata', 'annotations'];
    for (let depth = 1; depth <= path.length; depth++)
      if (!doc.hasIn(path.slice(0, depth))) doc.setIn(path.slice(0, depth), doc.createNode({}));
    // Quoted: YAML 1.1, as the node reads manifests, takes a bare RFC 3339 time for a timestamp, not a string.
    const stamp = new Scalar(at);
    stamp.type = Scalar.QUOTE_DOUBLE;
    doc.setIn([...path, RESTARTED_AT], stamp);
    text = doc.toString();
  }
  return { ...target, value: value as Record<string, unknown>, text };
}

/**
 * Restarts the objects REFS name in the manifests of STATICDIR, at NOW: each
 * Deployment, StatefulSet or DaemonSet gets the annotation in its document,
 * every file written once, atomically. kubectl's errors for a kind it cannot
 * restart, a paused Deployment and an object not there; knode's for one
 * the node runs (KNOWN) whose manifest is not in the static dir.
 */
export async function restartInStaticDir(
  staticDir: string,
  refs: { kind: string; namespace: string; name: string }[],
  now: number,
  known: (ref: { kind: string; namespace: string; name: string }) => boolean,
): Promise<RestartOutcome[]> {
  const texts = new Map<string, string>();
  const existing: Located[] = [];
  for await (const { file, text } of manifestTexts(staticDir, [])) {
    texts.set(file, text);
    existing.push(...locateObjects(file, text));
  }
  const outcomes: RestartOutcome[] = [];
  const given: Located[] = [];
  for (const ref of refs) {
    const resource = pluralResource(ref.kind);
    const target = existing.find((o) => o.ref.kind === ref.kind && o.ref.namespace === ref.namespace && o.ref.name === ref.name);
    if (!target && known(ref))
      outcomes.push({
        error: `error: ${resource} "${ref.name}": its manifest is not a document in the node's --static-dir (${staticDir}), where restart writes: edit it where it comes from`,
      });
    else if (!target) outcomes.push({ error: `Error from server (NotFound): ${resource} "${ref.name}" not found` });
    else if (!RESTARTED.has(ref.kind)) outcomes.push({ error: `error: ${resource} "${ref.name}" restarting is not supported` });
    else if ((target.value as { spec?: { paused?: boolean } }).spec?.paused)
      outcomes.push({ error: `error: ${resource} "${ref.name}" can't restart paused deployment (run rollout resume first)` });
    else {
      given.push(restarted(target, rfc3339(now)));
      outcomes.push({ out: `${resourceOf(ref.kind)}/${ref.name} restarted` });
    }
  }
  const plan = planReplacement(given, existing, texts, staticDir);
  if (plan.errors.length > 0) return plan.errors.map((error) => ({ error: `error: ${error}` }));
  for (const [file, text] of plan.files) writeAtomically(file, text);
  return outcomes;
}
