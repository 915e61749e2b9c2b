import { describeArgs, describeFlags, DescribeWorkloadCommand, type DescribeInput } from '../../cli/describe-workload.js';
import type { StatefulSet } from '../../engine/api/workloads.js';
import { describeStatefulSet } from '../../ui/describe-workload.js';

export default class DescribeStatefulSet extends DescribeWorkloadCommand {
  static override summary = 'Show a StatefulSet in detail, as kubectl describe statefulset does.';
  static override description = `The StatefulSet the local controllers run under --root-dir: its replicas, update strategy, its pods by phase, pod template, volume claims, and the events a running node recorded for it. See docs/cli.md.`;
  static override aliases = ['describe:sts', 'describe:statefulsets'];
  static override examples = ['<%= config.bin %> describe statefulset db', '<%= config.bin %> describe sts db'];
  static override args = describeArgs;
  static override flags = describeFlags;

  protected readonly kind = 'StatefulSet';
  protected readonly resource = 'statefulsets.apps';

  protected render({ object, pods, events, now }: DescribeInput): string {
    return describeStatefulSet(object as StatefulSet, pods, events, now);
  }
}
