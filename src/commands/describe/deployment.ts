import {
  describeArgs,
  describeFlags,
  deploymentReplicaSets,
  DescribeWorkloadCommand,
  type DescribeInput,
} from '../../cli/describe-workload.js';
import type { Deployment } from '../../engine/api/workloads.js';
import { describeDeployment } from '../../ui/describe-workload.js';

export default class DescribeDeployment extends DescribeWorkloadCommand {
  static override summary = 'Show a Deployment in detail, as kubectl describe deployment does.';
  static override description = `The Deployment the local controllers run under --root-dir: its replicas, strategy, pod template, conditions, its ReplicaSets, and the events a running node recorded for it. See docs/cli.md.`;
  static override aliases = ['describe:deploy', 'describe:deployments'];
  static override examples = [
    '<%= config.bin %> describe deployment greeter',
    '<%= config.bin %> describe deploy shop/web --show-events=false',
  ];

  static override args = describeArgs;
  static override flags = describeFlags;

  protected readonly kind = 'Deployment';
  protected readonly resource = 'deployments.apps';

  protected render({ object, objects, events, now }: DescribeInput): string {
    const d = object as Deployment;
    return describeDeployment(d, deploymentReplicaSets(d, objects), events, now);
  }
}
