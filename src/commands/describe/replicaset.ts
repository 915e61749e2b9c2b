import { describeArgs, describeFlags, DescribeWorkloadCommand, type DescribeInput } from '../../cli/describe-workload.js';
import type { ReplicaSet } from '../../engine/api/workloads.js';
import { describeReplicaSet } from '../../ui/describe-workload.js';

export default class DescribeReplicaSet extends DescribeWorkloadCommand {
  static override summary = 'Show a ReplicaSet in detail, as kubectl describe replicaset does.';
  static override description = `The ReplicaSet the local controllers run under --root-dir: its replicas, its pods by phase, pod template, conditions, and the events a running node recorded for it. See docs/cli.md.`;
  static override aliases = ['describe:rs', 'describe:replicasets'];
  static override examples = [
    '<%= config.bin %> describe replicaset greeter-59bd68fc4b',
    '<%= config.bin %> describe rs greeter-59bd68fc4b',
  ];

  static override args = describeArgs;
  static override flags = describeFlags;

  protected readonly kind = 'ReplicaSet';
  protected readonly resource = 'replicasets.apps';

  protected render({ object, pods, events, now }: DescribeInput): string {
    return describeReplicaSet(object as ReplicaSet, pods, events, now);
  }
}
