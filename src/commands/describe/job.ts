import { describeArgs, describeFlags, DescribeWorkloadCommand, type DescribeInput } from '../../cli/describe-workload.js';
import type { Job } from '../../engine/api/workloads.js';
import { describeJob } from '../../ui/describe-workload.js';

export default class DescribeJob extends DescribeWorkloadCommand {
  static override summary = 'Show a Job in detail, as kubectl describe job does.';
  static override description = `The Job the local controllers run under --root-dir: its completions, parallelism, back-off limit, times, its pods by status, pod template, and the events a running node recorded for it. See docs/cli.md.`;
  static override aliases = ['describe:jobs'];
  static override examples = ['<%= config.bin %> describe job count'];

  static override args = describeArgs;
  static override flags = describeFlags;

  protected readonly kind = 'Job';
  protected readonly resource = 'jobs.batch';

  protected render({ object, events, now }: DescribeInput): string {
    return describeJob(object as Job, events, now);
  }
}
