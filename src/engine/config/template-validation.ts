// The rules a workload's parts share, with the apiserver's field paths and
// texts: counts, selectors, percents, and the pod template validated as the
// pod it becomes (pkg/apis/apps/validation, ValidatePodTemplateSpec).
import { selectorMatches, type LabelSelector } from '../api/workloads.js';
import { Checker, isObject } from './field-checker.js';
import { validatePod } from './validation.js';

export function nonNegative(c: Checker, field: string, v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    c.fail(field, `expected an integer, got ${typeof v}`);
    return false;
  }
  if (v < 0 || v > 2_147_483_647) {
    c.fail(field, `Invalid value: ${v}: must be greater than or equal to 0`);
    return false;
  }
  return true;
}

export function selectorOf(c: Checker, raw: unknown, kind = 'deployment'): LabelSelector | undefined {
  if (!c.object('spec.selector', raw, true)) return undefined;
  const selector = raw as LabelSelector;
  if (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0) {
    c.fail('spec.selector', `Invalid value: "": empty selector is invalid for ${kind}`);
    return undefined;
  }
  c.labels('spec.selector.matchLabels', selector.matchLabels);
  return selector;
}

/** The template as the pod it becomes: the pod's own rules, the selector, and the restart policies the kind allows. */
export function template(
  c: Checker,
  raw: unknown,
  selector: LabelSelector | undefined,
  policies: string[],
  kind = 'ReplicaSet',
  at = 'spec',
): void {
  if (!c.object(`${at}.template`, raw, true)) return;
  const meta = isObject(raw.metadata) ? raw.metadata : {};
  if (selector && !selectorMatches(selector, meta.labels as Record<string, string> | undefined))
    c.fail(
      `${at}.template.metadata.labels`,
      `Invalid value: ${JSON.stringify(meta.labels ?? {})}: \`selector\` does not match template \`labels\``,
    );
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { ...meta, name: 'template' }, spec: raw.spec };
  for (const e of validatePod(pod, { nameSuffixLength: 0 })) c.fail(`${at}.template.${e.field}`, e.message);
  if (isObject(raw.spec)) {
    const policy = raw.spec.restartPolicy ?? 'Always';
    if (!policies.includes(String(policy)))
      c.fail(
        `${at}.template.spec.restartPolicy`,
        `Unsupported value: ${JSON.stringify(policy)}: supported values: ${policies.map((p) => JSON.stringify(p)).join(', ')}`,
      );
    if (policies.length === 1 && raw.spec.activeDeadlineSeconds !== undefined)
      c.fail(`${at}.template.spec.activeDeadlineSeconds`, `Forbidden: activeDeadlineSeconds in ${kind} is not Supported`);
  }
}

/** ValidatePositiveIntOrPercent and IsNotMoreThan100Percent; the value (a percent as its number), or undefined when invalid. */
export function intOrPercent(c: Checker, field: string, v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) {
    if (v >= 0) return v;
    c.fail(field, `Invalid value: ${v}: must be greater than or equal to 0`);
    return undefined;
  }
  const m = typeof v === 'string' ? /^(\d+)%$/.exec(v) : null;
  if (!m) {
    c.fail(
      field,
      `Invalid value: ${JSON.stringify(v)}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`,
    );
    return undefined;
  }
  const percent = Number(m[1]);
  if (percent > 100) {
    c.fail(field, `Invalid value: ${JSON.stringify(v)}: must not be greater than 100%`);
    return undefined;
  }
  return percent;
}
