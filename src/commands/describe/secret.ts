import { describeArgs, describeFlags, DescribeWorkloadCommand, type DescribeInput } from '../../cli/describe-workload.js';
import type { Secret } from '../../engine/api/workloads.js';
import { describeSecret } from '../../ui/describe-config.js';

export default class DescribeSecret extends DescribeWorkloadCommand {
  static override summary = 'Show a Secret in detail, as kubectl describe secret does: its keys by size, never their values.';
  static override description = `A Secret applied under --root-dir: its labels, annotations, type and each key's size in bytes. As kubectl's, it shows no events. See docs/cli.md.`;
  static override aliases = ['describe:secrets'];
  static override examples = ['<%= config.bin %> describe secret creds'];
  static override args = describeArgs;
  static override flags = describeFlags;

  protected readonly kind = 'Secret';
  protected readonly resource = 'secrets';

  protected render({ object }: DescribeInput): string {
    return describeSecret(object as Secret);
  }
}
