import { describeArgs, describeFlags, DescribeWorkloadCommand, type DescribeInput } from '../../cli/describe-workload.js';
import type { ConfigMap } from '../../engine/api/workloads.js';
import { describeConfigMap } from '../../ui/describe-config.js';

export default class DescribeConfigMap extends DescribeWorkloadCommand {
  static override summary = 'Show a ConfigMap in detail, as kubectl describe configmap does.';
  static override description = `A ConfigMap applied under --root-dir: its labels, annotations, each key's value and each binary key's size, and the events a running node recorded for it. See docs/cli.md.`;
  static override aliases = ['describe:cm', 'describe:configmaps'];
  static override examples = ['<%= config.bin %> describe configmap site', '<%= config.bin %> describe cm site -n shop'];
  static override args = describeArgs;
  static override flags = describeFlags;

  protected readonly kind = 'ConfigMap';
  protected readonly resource = 'configmaps';

  protected render({ object, events, now }: DescribeInput): string {
    return describeConfigMap(object as ConfigMap, events, now);
  }
}
