import { KubectlError } from './pod-target.js';

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
