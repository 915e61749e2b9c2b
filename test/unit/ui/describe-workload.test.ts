// kubectl describe's layout for workloads (src/ui/describe-workload.ts). The
// whole texts are checked against the real kubectl's on the objects the real
// controllers make in test/differential/workloads; these cover what those
// scenarios do not: selectors with expressions, an Indexed Job, a template's
// volumes and init containers.
import { describe, expect, it } from 'vitest';
import type { CronJob, Job, ReplicaSet } from '../../../src/engine/api/workloads.js';
import { describeCronJob, describeJob, describeReplicaSet, selectorString } from '../../../src/ui/describe-workload.js';

describe('a label selector', () => {
  it('prints as labels.Selector does: requirements by key, values sorted', () => {
    expect(
      selectorString({
        matchLabels: { tier: 'web', app: 'shop' },
        matchExpressions: [
          { key: 'zone', operator: 'In', values: ['b', 'a'] },
          { key: 'env', operator: 'NotIn', values: ['dev'] },
          { key: 'canary', operator: 'DoesNotExist' },
          { key: 'gpu', operator: 'Exists' },
        ],
      }),
    ).toBe('app=shop,!canary,env notin (dev),gpu,tier=web,zone in (a,b)');
    expect(selectorString({})).toBe('');
    expect(selectorString(undefined)).toBe('');
  });
});

describe('kubectl describe of a workload', () => {
  const template = {
    metadata: { labels: { app: 'db' } },
    spec: {
      initContainers: [{ name: 'init', image: 'busybox:1.36' }],
      containers: [{ name: 'db', image: 'busybox:1.36', volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
      volumes: [{ name: 'data', emptyDir: {} }],
    },
  };

  it('indents a template’s containers and volumes as DescribePodTemplate does', () => {
    const rs = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'db-1', namespace: 'default', uid: 'u1' },
      spec: { replicas: 1, selector: {}, template },
      status: { replicas: 0 },
    } as unknown as ReplicaSet;
    const text = describeReplicaSet(rs, [], undefined, 0);
    expect(text).toContain('Selector:     <none>\n');
    expect(text).toContain('Pods Status:  0 Running / 0 Waiting / 0 Succeeded / 0 Failed\n');
    expect(text).toContain(
      ['Pod Template:', '  Labels:  app=db', '  Init Containers:', '   init:', '    Image:        busybox:1.36'].join('\n'),
    );
    expect(text).toContain(['    Mounts:', '      /data from data (rw)', '  Volumes:', '   data:', '    Type:'].join('\n'));
  });

  it('shows an Indexed Job’s completed indexes, cut after 50 characters at a comma', () => {
    const indexes = Array.from({ length: 40 }, (_, i) => String(i * 3)).join(',');
    const job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'idx', namespace: 'default' },
      spec: { completions: 40, parallelism: 4, completionMode: 'Indexed', selector: { matchLabels: { a: 'b' } }, template },
      status: { active: 2, succeeded: 40, completedIndexes: indexes },
    } as unknown as Job;
    const text = describeJob(job, undefined, 0);
    expect(text).toContain('Completions:        40\n');
    expect(text).toContain('Pods Statuses:      2 Active / 40 Succeeded / 0 Failed\n');
    const shown = /Completed Indexes: +(.*)\n/.exec(text)![1];
    expect(shown.endsWith(',...')).toBe(true);
    expect(shown.length).toBeGreaterThan(50);
    expect(indexes.startsWith(shown.slice(0, -3))).toBe(true);
  });

  it('shows a CronJob’s unset fields as <unset>, its active Jobs by name, and its job template', () => {
    const cj = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'backup', namespace: 'default' },
      spec: {
        schedule: '*/5 * * * *',
        concurrencyPolicy: 'Forbid',
        startingDeadlineSeconds: 30,
        jobTemplate: { spec: { completions: 2, template } },
      },
      status: {
        active: [
          { kind: 'Job', name: 'backup-1' },
          { kind: 'Job', name: 'backup-2' },
        ],
      },
    } as unknown as CronJob;
    const text = describeCronJob(cj, undefined, 0);
    for (const line of [
      'Schedule:                      */5 * * * *',
      'Concurrency Policy:            Forbid',
      'Suspend:                       <unset>',
      'Time Zone:                     <unset>',
      'Successful Job History Limit:  <unset>',
      'Starting Deadline Seconds:     30s',
      'Selector:                      <unset>',
      'Parallelism:                   <unset>',
      'Completions:                   2',
      'Last Schedule Time:  <unset>',
      'Active Jobs:         backup-1, backup-2',
    ])
      expect(text).toContain(`${line}\n`);
    expect(text).not.toContain('Active Deadline Seconds');
    expect(text).toContain('Pod Template:\n  Labels:  app=db\n');
  });
});
