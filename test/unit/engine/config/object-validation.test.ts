import { describe, expect, it } from 'vitest';
import { decodeManifest, formatManifestError } from '../../../../src/engine/config/manifest.js';

const SOURCE = '/m/app.yaml';
const errorsOf = (text: string) => decodeManifest(SOURCE, text).errors.map(formatManifestError);

const template = (labels: string, restartPolicy = '') => `
  template:
    metadata:
      labels: ${labels}
    spec:
      ${restartPolicy}
      containers:
        - name: main
          image: busybox`;

describe('objects other than pods, validated as the apiserver validates them', () => {
  it('refuses a Deployment whose selector does not match its template', () => {
    expect(
      errorsOf(
        `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: { app: web }${template('{ app: api }')}\n`,
      ),
    ).toEqual([
      `${SOURCE}, document 0, Deployment "web": spec.template.metadata.labels: Invalid value: {"app":"api"}: \`selector\` does not match template \`labels\``,
    ]);
  });

  it('refuses a Job with completions -1, and one whose pods would restart Always', () => {
    expect(
      errorsOf(
        `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: once\nspec:\n  completions: -1${template('{}', 'restartPolicy: Never')}\n`,
      ),
    ).toEqual([`${SOURCE}, document 0, Job "once": spec.completions: Invalid value: -1: must be greater than or equal to 0`]);
    expect(errorsOf(`apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: once\nspec:${template('{}')}\n`)).toEqual([
      `${SOURCE}, document 0, Job "once": spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"`,
    ]);
  });

  it('refuses a Secret whose data is not base64, and takes stringData as it is', () => {
    expect(errorsOf('apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\ndata:\n  password: not base64!\n')).toEqual([
      `${SOURCE}, document 0, Secret "creds": data[password]: Secret in version "v1" cannot be handled as a Secret: illegal base64 data`,
    ]);
    expect(errorsOf('apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\nstringData:\n  password: not base64!\n')).toEqual([]);
  });

  it('refuses a ConfigMap over 1 MiB and a key that is not a config key', () => {
    const big = 'x'.repeat(1024 * 1024 + 1);
    expect(errorsOf(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  a: ${big}\n`)).toEqual([
      `${SOURCE}, document 0, ConfigMap "big": Too long: may not be more than 1048576 bytes`,
    ]);
    expect(errorsOf('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  "a b": x\n')[0]).toContain(
      'ConfigMap "cfg": data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters',
    );
  });

  it('validates a template as the pod it becomes', () => {
    const text = `apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: rs\nspec:\n  selector:\n    matchLabels: { app: a }\n  template:\n    metadata:\n      labels: { app: a }\n    spec:\n      containers:\n        - name: main\n`;
    expect(errorsOf(text)).toEqual([`${SOURCE}, document 0, ReplicaSet "rs": spec.template.spec.containers[0].image: Required value`]);
  });

  it('refuses a wrong apiVersion for the kind', () => {
    expect(
      errorsOf(
        `apiVersion: v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: { app: web }${template('{ app: web }')}\n`,
      ),
    ).toEqual([`${SOURCE}, document 0, Deployment "web": apiVersion: Unsupported value: "v1": supported values: "apps/v1"`]);
  });

  it('refuses a CronJob whose schedule, timeZone or concurrencyPolicy the apiserver refuses, and takes a good one', () => {
    const cron = (fields: string) =>
      `apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: tick\nspec:\n${fields}\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          restartPolicy: Never\n          containers:\n            - name: main\n              image: busybox\n`;
    expect(errorsOf(cron('  schedule: "*/5 * * * *"\n  timeZone: Europe/Paris\n  concurrencyPolicy: Forbid'))).toEqual([]);
    expect(errorsOf(cron('  schedule: "@hourly"'))).toEqual([]);
    expect(errorsOf(cron('  schedule: "* * * * * *"'))).toEqual([
      `${SOURCE}, document 0, CronJob "tick": spec.schedule: Invalid value: "* * * * * *": expected exactly 5 fields, found 6: [* * * * * *]`,
    ]);
    expect(errorsOf(cron('  schedule: "61 * * * *"'))[0]).toContain('CronJob "tick": spec.schedule: Invalid value: "61 * * * *": ');
    expect(errorsOf(cron('  concurrencyPolicy: Sometimes'))).toEqual([
      `${SOURCE}, document 0, CronJob "tick": spec.schedule: Required value`,
      `${SOURCE}, document 0, CronJob "tick": spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"`,
    ]);
    expect(errorsOf(cron('  schedule: "0 * * * *"\n  timeZone: Mars/Olympus'))).toEqual([
      `${SOURCE}, document 0, CronJob "tick": spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus`,
    ]);
    expect(errorsOf(cron('  schedule: "TZ=UTC 0 * * * *"'))).toEqual([
      `${SOURCE}, document 0, CronJob "tick": spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead`,
    ]);
  });
});
