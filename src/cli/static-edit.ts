// kubectl's verbs that patch a workload (rollout restart, scale) beside a
// running node: the manifest in the node's --static-dir owns the spec, so
// the patch is written into the workload's document there (the document's
// comments and the rest of the file kept), and the node's file source and
// local controllers then act on it as a cluster's controllers act on a patch.
import { parseDocument, Scalar } from 'yaml';
import { manifestTexts } from '../engine/config/read-manifests.js';
import { compareStrings } from '../util/compare.js';
import { UserError } from '../util/user-error.js';
import { nodeStaticDir } from './beside-node.js';
import { NodeClient } from './node-client.js';
import { savedObjects } from './offline-pods.js';
import { resourceOf } from './stop-pods.js';
import { describedObjects, pluralResource } from './target-kinds.js';
import { locateObjects, planReplacement, refKey, writeAtomically, type Located, type ObjectRef } from './static-manifests.js';

/** What patching each object printed: kubectl's `deployment.apps/web restarted`, or its error. */
export interface EditOutcome {
  out?: string;
  error?: string;
}

/** One field to set in a document: its path from the top, its value; `quoted` for a string YAML 1.1 would read otherwise. */
export interface FieldEdit {
  path: string[];
  value: string | number;
  quoted?: boolean;
}

/** The document with FIELD set: its value, and its text with the document's comments kept. */
function edited(target: Located, field: FieldEdit): Located {
  const value = structuredClone(target.value);
  let at: Record<string, unknown> = value;
  for (const key of field.path.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>;
  at[field.path.at(-1)!] = field.value;
  if (target.text === undefined) return { ...target, value };
  const doc = parseDocument(target.text, { version: '1.1' });
  // setIn would make a YAML 1.1 !!omap of a missing map: the missing maps are made plain first.
  for (let depth = 1; depth < field.path.length; depth++)
    if (!doc.hasIn(field.path.slice(0, depth))) doc.setIn(field.path.slice(0, depth), doc.createNode({}));
  const scalar = new Scalar(field.value);
  if (field.quoted) scalar.type = Scalar.QUOTE_DOUBLE;
  doc.setIn(field.path, scalar);
  return { ...target, value, text: doc.toString() };
}

/**
 * Patches the objects REFS name in the manifests of STATICDIR: EDIT gives
 * each found object's field to set, or kubectl's error for it; every file is
 * written once, atomically, and each patched object is told as kubectl's
 * `VERB` line. kubectl's NotFound for an object not there; knode's error for
 * one the node runs (KNOWN) whose manifest is not in the static dir.
 */
export async function editInStaticDir(
  staticDir: string,
  refs: ObjectRef[],
  verb: string,
  known: (ref: ObjectRef) => boolean,
  edit: (target: Located, resource: string) => FieldEdit | { error: string },
): Promise<EditOutcome[]> {
  const texts = new Map<string, string>();
  const existing: Located[] = [];
  for await (const { file, text } of manifestTexts(staticDir, [])) {
    texts.set(file, text);
    existing.push(...locateObjects(file, text));
  }
  const outcomes: EditOutcome[] = [];
  const given: Located[] = [];
  for (const ref of refs) {
    const resource = pluralResource(ref.kind);
    const target = existing.find((o) => refKey(o.ref) === refKey(ref));
    if (!target && known(ref))
      outcomes.push({
        error: `error: ${resource} "${ref.name}": its manifest is not a document in the node's --static-dir (${staticDir}), where ${verb.replace(/ed$/, '')} writes: edit it where it comes from`,
      });
    else if (!target) outcomes.push({ error: `Error from server (NotFound): ${resource} "${ref.name}" not found` });
    else {
      const field = edit(target, resource);
      if ('error' in field) outcomes.push(field);
      else {
        given.push(edited(target, field));
        outcomes.push({ out: `${resourceOf(ref.kind)}/${ref.name} ${verb}` });
      }
    }
  }
  const plan = planReplacement(given, existing, texts, staticDir);
  if (plan.errors.length > 0) return plan.errors.map((error) => ({ error: `error: ${error}` }));
  for (const [file, text] of plan.files) writeAtomically(file, text);
  return outcomes;
}

/**
 * The running node's --static-dir under ROOTDIR, where VERB writes; knode's
 * error when no node runs there or it has none, naming where the spec lives.
 */
export async function runningStaticDir(rootDir: string, verb: string): Promise<string> {
  const node = await NodeClient.find(rootDir);
  const staticDir = node && (await nodeStaticDir(node));
  if (staticDir) return staticDir;
  throw new UserError(
    'usage',
    node ? `the node running under ${rootDir} has no --static-dir for ${verb} to write in` : `no node runs under ${rootDir}`,
    `${verb} writes the workload's manifest in a running node's --static-dir; for one knode apply ran, edit its manifest and apply it again`,
  );
}

/**
 * The objects WORDS name (TYPE NAME..., TYPE/NAME..., or TYPE alone for
 * every one of the kind) in NAMESPACE, as the node's saved objects hold
 * them; and whether the node runs an object (KNOWN).
 */
export function namedObjects(
  rootDir: string,
  words: string[],
  namespace: string,
): { refs: ObjectRef[]; known: (ref: ObjectRef) => boolean } {
  const saved = savedObjects(rootDir).filter((o) => (o.metadata.namespace ?? 'default') === namespace);
  const every = (kind: string) =>
    saved
      .filter((o) => o.kind === kind)
      .map((o) => o.metadata.name!)
      .sort(compareStrings);
  const refs = describedObjects(words).flatMap(({ kind, name }) =>
    (name ? [name] : every(kind)).map((n) => ({ kind, namespace, name: n })),
  );
  return { refs, known: (ref) => saved.some((o) => o.kind === ref.kind && o.metadata.name === ref.name) };
}
