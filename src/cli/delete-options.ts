import { Flags } from '@oclif/core';
import type { PropagationPolicy } from '../controllers/store.js';
import { KubectlError } from '../util/user-error.js';

/** The warning kubectl prints for a force deletion (grace period 0). */
export const FORCE_WARNING =
  'Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.';

export interface DeleteFlags {
  'grace-period': number;
  now: boolean;
  force: boolean;
}

/** How the pods are to be stopped: each pod's own grace period (undefined) or the one given; and the word kubectl prints. */
export interface DeleteMode {
  gracePeriod: number | undefined;
  operation: 'deleted' | 'force deleted';
  warning?: string;
  /** How a workload's dependents go: Foreground when not given (see cascadePolicy). */
  cascade?: PropagationPolicy;
}

/** What Go's strconv.ParseBool takes. */
const GO_BOOLEANS: Record<string, boolean> = Object.fromEntries([
  ...['1', 't', 'T', 'TRUE', 'true', 'True'].map((v) => [v, true]),
  ...['0', 'f', 'F', 'FALSE', 'false', 'False'].map((v) => [v, false]),
]);

const POLICIES: Record<string, PropagationPolicy> = { background: 'Background', orphan: 'Orphan', foreground: 'Foreground' };

/**
 * kubectl's parseCascadingFlag: background, orphan or foreground; a boolean
 * is the old spelling of background (true) or orphan (false), with
 * kubectl's warning. knode's default is foreground, where kubectl's is
 * background: the workload stays, marked, until its pods have stopped.
 */
export function cascadePolicy(value: string): { policy: PropagationPolicy; warning?: string } {
  if (POLICIES[value]) return { policy: POLICIES[value] };
  const bool = GO_BOOLEANS[value];
  if (bool === undefined)
    throw new KubectlError(`error: invalid cascade value (${value}). Must be "background", "foreground", or "orphan"`);
  const spelled = bool ? 'background' : 'orphan';
  return {
    policy: POLICIES[spelled],
    warning: `warning: --cascade=${value} is deprecated (boolean value) and can be replaced with --cascade=${spelled}.`,
  };
}

/**
 * kubectl delete's grace-period rules (DeleteOptions.Complete and
 * Validate): a negative period is the pod's own; --now is 1 and cannot come
 * with --grace-period; 0 without --force becomes 1, so no data is lost by
 * accident; --force alone is 0, with kubectl's warning, and cannot come with
 * a positive period.
 */
export function deleteMode(flags: DeleteFlags): DeleteMode {
  let grace = flags['grace-period'];
  if (flags.now) {
    if (grace !== -1) throw new KubectlError('error: --now and --grace-period cannot be specified together');
    grace = 1;
  }
  if (grace === 0 && !flags.force) grace = 1;
  if (flags.force && grace < 0) grace = 0;
  if (flags.force && grace > 0) throw new KubectlError('error: --force and --grace-period greater than 0 cannot be specified together');
  if (grace === 0) return { gracePeriod: 0, operation: 'force deleted', warning: FORCE_WARNING };
  return { gracePeriod: grace < 0 ? undefined : grace, operation: 'deleted' };
}

/** kubectl delete's flags for how, and which, besides -f and the kubelet's. */
export const deleteFlags = {
  namespace: Flags.string({ char: 'n', description: 'The namespace of the objects named (default: default)' }),
  all: Flags.boolean({ description: 'Delete all resources, in the namespace of the specified resource types.', default: false }),
  selector: Flags.string({
    char: 'l',
    description:
      'Selector (label query) to filter on, as kubectl takes it (key=value, key!=value, key in (a,b), key, !key); with -f, of the manifests',
  }),
  'all-namespaces': Flags.boolean({
    char: 'A',
    description: 'With --all or -l: the objects of every namespace, whatever --namespace says.',
    default: false,
  }),
  'grace-period': Flags.integer({
    description:
      'Period of time in seconds given to each pod to terminate gracefully. Ignored if negative (its terminationGracePeriodSeconds). Set to 1 for immediate shutdown. Can only be set to 0 when --force is true (force deletion).',
    default: -1,
  }),
  now: Flags.boolean({ description: 'If true, pods are signaled for immediate shutdown (same as --grace-period=1).', default: false }),
  force: Flags.boolean({
    description: 'If true, kill the containers at once, without a grace period (--grace-period=0).',
    default: false,
  }),
  wait: Flags.boolean({
    description:
      'If true, wait for the pods to be gone before returning; --wait=false returns once the deletion is requested and stops them in the background (its later errors go to <root-dir>/logs/delete.log).',
    default: true,
    allowNo: true,
  }),
  cascade: Flags.string({
    description:
      'Must be "background", "orphan", or "foreground". Selects the deletion cascading strategy for the dependents of a workload (its ReplicaSets and pods). Defaults to foreground: the workload stays, marked, until its pods have stopped.',
    default: 'foreground',
  }),
  claims: Flags.boolean({ description: "Also delete the manifests' PersistentVolumeClaims and their data", default: false }),
};
