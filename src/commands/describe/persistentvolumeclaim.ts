import { describeArgs, describeFlags, DescribeWorkloadCommand, type DescribeInput } from '../../cli/describe-workload.js';
import type { PersistentVolumeClaim } from '../../engine/api/workloads.js';
import { describeClaim } from '../../ui/describe-claim.js';

export default class DescribePersistentVolumeClaim extends DescribeWorkloadCommand {
  static override summary = 'Show a PersistentVolumeClaim in detail, as kubectl describe pvc does.';
  static override description = `A claim applied under --root-dir: its status, storage class, labels, annotations, capacity and access modes once bound to a named volume, the pods that use it, and the events a running node recorded for it. See docs/cli.md.`;
  static override aliases = ['describe:pvc', 'describe:persistentvolumeclaims'];
  static override examples = ['<%= config.bin %> describe pvc data', '<%= config.bin %> describe persistentvolumeclaim data -n shop'];
  static override args = describeArgs;
  static override flags = describeFlags;

  protected readonly kind = 'PersistentVolumeClaim';
  protected readonly resource = 'persistentvolumeclaims';

  protected render({ object, pods, events, now }: DescribeInput): string {
    return describeClaim(object as PersistentVolumeClaim, pods, events, now);
  }
}
