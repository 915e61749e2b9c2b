import { describeArgs, describeFlags, DescribeWorkloadCommand, type DescribeInput } from '../../cli/describe-workload.js';
import type { DaemonSet } from '../../engine/api/workloads.js';
import { describeDaemonSet } from '../../ui/describe-workload.js';

export default class DescribeDaemonSet extends DescribeWorkloadCommand {
  static override summary = 'Show a DaemonSet in detail, as kubectl describe daemonset does.';
  static override description = `The DaemonSet the local controllers run under --root-dir: its node selector, how many nodes it is scheduled on, its pods by phase, pod template, and the events a running node recorded for it. See docs/cli.md.`;
  static override aliases = ['describe:ds', 'describe:daemonsets'];
  static override examples = ['<%= config.bin %> describe daemonset agent', '<%= config.bin %> describe ds agent'];
  static override args = describeArgs;
  static override flags = describeFlags;

  protected readonly kind = 'DaemonSet';
  protected readonly resource = 'daemonsets.apps';

  protected render({ object, pods, events, now }: DescribeInput): string {
    return describeDaemonSet(object as DaemonSet, pods, events, now);
  }
}
