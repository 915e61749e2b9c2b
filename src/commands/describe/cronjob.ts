import { describeArgs, describeFlags, DescribeWorkloadCommand, type DescribeInput } from '../../cli/describe-workload.js';
import type { CronJob } from '../../engine/api/workloads.js';
import { describeCronJob } from '../../ui/describe-workload.js';

export default class DescribeCronJob extends DescribeWorkloadCommand {
  static override summary = 'Show a CronJob in detail, as kubectl describe cronjob does.';
  static override description = `The CronJob the local controllers run under --root-dir: its schedule, concurrency policy, history limits, job template, last schedule time and active Jobs, and the events a running node recorded for it. See docs/cli.md.`;
  static override aliases = ['describe:cj', 'describe:cronjobs'];
  static override examples = ['<%= config.bin %> describe cronjob backup', '<%= config.bin %> describe cj backup --show-events=false'];

  static override args = describeArgs;
  static override flags = describeFlags;

  protected readonly kind = 'CronJob';
  protected readonly resource = 'cronjobs.batch';

  protected render({ object, events, now }: DescribeInput): string {
    return describeCronJob(object as CronJob, events, now);
  }
}
