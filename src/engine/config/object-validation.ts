// Validation of the objects besides pods that a manifest may hold, with the
// apiserver's field paths and texts (pkg/apis/{core,apps,batch}/validation).
// A pod template is validated as the pod it becomes, so the pods the local
// controllers make pass the same checks as a static pod.
import { parseCronSchedule, timeZoneProblem } from '../api/cron-schedule.js';
import { Checker, isObject, MAX_NAME, type FieldError, type Obj } from './field-checker.js';
import { claimSpec, daemonSet, statefulSet } from './pod-set-validation.js';
import { nonNegative, selectorOf, template } from './template-validation.js';

/** The kinds a standalone node runs besides pods, each with its group version. */
export const WORKLOAD_KINDS: Readonly<Record<string, string>> = {
  ConfigMap: 'v1',
  Secret: 'v1',
  Namespace: 'v1',
  ServiceAccount: 'v1',
  Deployment: 'apps/v1',
  ReplicaSet: 'apps/v1',
  Job: 'batch/v1',
  CronJob: 'batch/v1',
  // StatefulSet, DaemonSet and their claims
  StatefulSet: 'apps/v1',
  DaemonSet: 'apps/v1',
  PersistentVolumeClaim: 'v1',
};

/** core.MaxSecretSize: a ConfigMap's or Secret's data together. */
export const MAX_CONFIG_BYTES = 1024 * 1024;
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Validates an object of one of WORKLOAD_KINDS; an empty list means it can be stored. */
export function validateObject(raw: Obj): FieldError[] {
  const c = new Checker();
  const kind = String(raw.kind);
  c.oneOf('apiVersion', raw.apiVersion, [WORKLOAD_KINDS[kind]]);
  if (c.object('metadata', raw.metadata, true)) {
    const meta = raw.metadata;
    if (meta.name === undefined || meta.name === '') c.fail('metadata.name', 'Required value: name or generateName is required');
    else if (kind === 'Namespace' || kind === 'ServiceAccount') c.dnsLabel('metadata.name', meta.name);
    else c.dnsSubdomain('metadata.name', meta.name, MAX_NAME);
    if (meta.namespace !== undefined && kind !== 'Namespace') c.dnsLabel('metadata.namespace', meta.namespace);
    c.labels('metadata.labels', meta.labels);
    c.stringMap('metadata.annotations', meta.annotations);
  }
  switch (kind) {
    case 'ConfigMap':
      configData(c, raw);
      break;
    case 'Secret':
      secretData(c, raw);
      break;
    case 'Deployment':
    case 'ReplicaSet':
      if (c.object('spec', raw.spec, true)) replicated(c, raw.spec, kind);
      break;
    case 'Job':
      if (c.object('spec', raw.spec, true)) job(c, raw.spec);
      break;
    case 'CronJob':
      if (c.object('spec', raw.spec, true)) cronJob(c, raw.spec);
      break;
    // StatefulSet, DaemonSet and their claims
    case 'StatefulSet':
      if (c.object('spec', raw.spec, true)) statefulSet(c, raw.spec);
      break;
    case 'DaemonSet':
      if (c.object('spec', raw.spec, true)) daemonSet(c, raw.spec);
      break;
    case 'PersistentVolumeClaim':
      if (c.object('spec', raw.spec, true)) claimSpec(c, 'spec', raw.spec);
      break;
  }
  return c.errors;
}

/** IsConfigMapKey, for a ConfigMap's and a Secret's keys alike. */
function configKey(c: Checker, bag: string, key: string): void {
  if (CONFIG_KEY.test(key) && key.length <= MAX_NAME) return;
  c.fail(
    `${bag}[${key}]`,
    `Invalid value: ${JSON.stringify(key)}: a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
  );
}

function configData(c: Checker, raw: Obj): void {
  let total = 0;
  for (const bag of ['data', 'binaryData'] as const) {
    const values = raw[bag];
    if (!c.object(bag, values)) continue;
    for (const [key, value] of Object.entries(values)) {
      configKey(c, bag, key);
      if (bag === 'data' && isObject(raw.binaryData) && key in raw.binaryData)
        c.fail(`data[${key}]`, `Invalid value: ${JSON.stringify(key)}: duplicate of key present in binaryData`);
      if (typeof value !== 'string') c.fail(`${bag}[${key}]`, `expected a string, got ${typeof value}`);
      else if (bag === 'binaryData' && !BASE64.test(value))
        c.fail(`${bag}[${key}]`, 'illegal base64 data: ConfigMap binaryData must be base64');
      else total += bag === 'binaryData' ? Buffer.from(value, 'base64').length : Buffer.byteLength(value);
    }
  }
  if (total > MAX_CONFIG_BYTES) c.fail('', `Too long: may not be more than ${MAX_CONFIG_BYTES} bytes`);
}

function secretData(c: Checker, raw: Obj): void {
  let total = 0;
  for (const bag of ['data', 'stringData'] as const) {
    const values = raw[bag];
    if (!c.object(bag, values)) continue;
    for (const [key, value] of Object.entries(values)) {
      configKey(c, bag, key);
      if (typeof value !== 'string') c.fail(`${bag}[${key}]`, `expected a string, got ${typeof value}`);
      else if (bag === 'data' && !BASE64.test(value.replace(/\s/g, '')))
        // What the apiserver's decoder answers for a value that is not base64.
        c.fail(`${bag}[${key}]`, `Secret in version "v1" cannot be handled as a Secret: illegal base64 data`);
      else total += bag === 'data' ? Buffer.from(value, 'base64').length : Buffer.byteLength(value);
    }
  }
  if (raw.type !== undefined) c.string('type', raw.type);
  if (total > MAX_CONFIG_BYTES) c.fail('data', `Too long: may not be more than ${MAX_CONFIG_BYTES} bytes`);
}

function replicated(c: Checker, spec: Obj, kind: string): void {
  nonNegative(c, 'spec.replicas', spec.replicas);
  nonNegative(c, 'spec.minReadySeconds', spec.minReadySeconds);
  const selector = selectorOf(c, spec.selector);
  if (kind === 'Deployment') {
    nonNegative(c, 'spec.revisionHistoryLimit', spec.revisionHistoryLimit);
    if (spec.progressDeadlineSeconds !== undefined && nonNegative(c, 'spec.progressDeadlineSeconds', spec.progressDeadlineSeconds)) {
      const minReady = typeof spec.minReadySeconds === 'number' ? spec.minReadySeconds : 0;
      if ((spec.progressDeadlineSeconds as number) <= minReady)
        c.fail(
          'spec.progressDeadlineSeconds',
          `Invalid value: ${String(spec.progressDeadlineSeconds)}: must be greater than minReadySeconds`,
        );
    }
    if (spec.strategy !== undefined && c.object('spec.strategy', spec.strategy)) {
      c.oneOf('spec.strategy.type', spec.strategy.type, ['Recreate', 'RollingUpdate']);
      if (spec.strategy.type === 'Recreate' && spec.strategy.rollingUpdate !== undefined)
        c.fail('spec.strategy.rollingUpdate', "Forbidden: may not be specified when strategy `type` is 'Recreate'");
    }
  }
  template(c, spec.template, selector, ['Always']);
}

function job(c: Checker, spec: Obj, at = 'spec'): void {
  for (const field of ['parallelism', 'completions', 'backoffLimit', 'ttlSecondsAfterFinished'])
    nonNegative(c, `${at}.${field}`, spec[field]);
  if (spec.activeDeadlineSeconds !== undefined) c.integer(`${at}.activeDeadlineSeconds`, spec.activeDeadlineSeconds, 1);
  if (spec.completionMode !== undefined) c.oneOf(`${at}.completionMode`, spec.completionMode, ['NonIndexed', 'Indexed']);
  if (spec.completionMode === 'Indexed' && (spec.completions === undefined || spec.completions === null))
    c.fail(`${at}.completions`, 'Required value: when completion mode is Indexed');
  if (spec.podFailurePolicy !== undefined) podFailurePolicy(c, spec.podFailurePolicy, spec, at);
  // The apiserver makes the selector from the template's controller-uid label unless manualSelector is set.
  const selector = spec.manualSelector === true ? selectorOf(c, spec.selector) : undefined;
  if (at !== 'spec' && spec.selector !== undefined)
    c.fail(`${at}.selector`, `Invalid value: ${JSON.stringify(spec.selector)}: \`selector\` will be auto-generated`);
  template(c, spec.template, selector, ['OnFailure', 'Never'], 'Job', at);
}

function podFailurePolicy(c: Checker, raw: unknown, spec: Obj, base: string): void {
  const at = `${base}.podFailurePolicy`;
  if (!c.object(at, raw) || !Array.isArray(raw.rules)) return;
  const policy = isObject(spec.template) && isObject(spec.template.spec) ? spec.template.spec.restartPolicy : undefined;
  if (policy === 'OnFailure')
    c.fail(
      `${base}.template.spec.restartPolicy`,
      `Invalid value: ${JSON.stringify(policy ?? '')}: only "Never" is supported when podFailurePolicy is specified`,
    );
  raw.rules.forEach((rule: unknown, i: number) => {
    const path = `${at}.rules[${i}]`;
    if (!c.object(path, rule, true)) return;
    c.oneOf(`${path}.action`, rule.action, ['Count', 'FailIndex', 'FailJob', 'Ignore']);
    const exit = rule.onExitCodes;
    const conds = rule.onPodConditions;
    if ((exit === undefined) === (conds === undefined))
      c.fail(path, 'Invalid value: specifying one of OnExitCodes and OnPodConditions is required');
    if (exit !== undefined && c.object(`${path}.onExitCodes`, exit)) {
      c.oneOf(`${path}.onExitCodes.operator`, exit.operator, ['In', 'NotIn']);
      const values = Array.isArray(exit.values) ? (exit.values as unknown[]) : [];
      if (values.length === 0) c.fail(`${path}.onExitCodes.values`, 'Invalid value: []: at least one value is required');
      values.forEach((v, j) => {
        if (exit.operator === 'In' && v === 0)
          c.fail(`${path}.onExitCodes.values[${j}]`, 'Invalid value: 0: must not be 0 for the In operator');
      });
    }
  });
}

function cronJob(c: Checker, spec: Obj): void {
  const timeZone = spec.timeZone;
  if (typeof spec.schedule !== 'string' || spec.schedule === '') c.fail('spec.schedule', 'Required value');
  else {
    try {
      parseCronSchedule(spec.schedule, typeof timeZone === 'string' && !timeZoneProblem(timeZone) ? timeZone : undefined);
    } catch (err) {
      c.fail('spec.schedule', `Invalid value: ${JSON.stringify(spec.schedule)}: ${(err as Error).message}`);
    }
    if (spec.schedule.includes('TZ'))
      c.fail(
        'spec.schedule',
        `Invalid value: ${JSON.stringify(spec.schedule)}: cannot use TZ or CRON_TZ in schedule, use timeZone field instead`,
      );
  }
  nonNegative(c, 'spec.startingDeadlineSeconds', spec.startingDeadlineSeconds);
  if (timeZone !== undefined && timeZone !== null) {
    if (typeof timeZone !== 'string' || timeZone === '')
      c.fail('spec.timeZone', `Invalid value: "": timeZone must be nil or non-empty string`);
    else if (timeZone.toLowerCase() === 'local')
      c.fail(
        'spec.timeZone',
        `Invalid value: ${JSON.stringify(timeZone)}: timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones`,
      );
    else {
      const problem = timeZone
        .split('/')
        .some((part) => part === '.' || part === '..' || part.startsWith('-') || !/^[A-Za-z.\-_0-9+]{1,14}$/.test(part))
        ? `unknown time zone ${timeZone}`
        : timeZoneProblem(timeZone);
      if (problem) c.fail('spec.timeZone', `Invalid value: ${JSON.stringify(timeZone)}: ${problem}`);
    }
  }
  if (spec.concurrencyPolicy !== undefined) c.oneOf('spec.concurrencyPolicy', spec.concurrencyPolicy, ['Allow', 'Forbid', 'Replace']);
  nonNegative(c, 'spec.successfulJobsHistoryLimit', spec.successfulJobsHistoryLimit);
  nonNegative(c, 'spec.failedJobsHistoryLimit', spec.failedJobsHistoryLimit);
  if (c.object('spec.jobTemplate', spec.jobTemplate, true) && c.object('spec.jobTemplate.spec', spec.jobTemplate.spec, true))
    job(c, spec.jobTemplate.spec, 'spec.jobTemplate.spec');
}
