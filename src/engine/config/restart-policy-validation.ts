// A container's own restartPolicy and restartPolicyRules (ContainerRestartRules,
// on by default since v1.35, and the RestartAllContainers action of
// RestartAllContainersOnContainerExits, since v1.36), as the apiserver checks them:
// validateContainerRestartPolicy and validateInitContainerRestartPolicy.
import type { Checker } from './field-checker.js';

const POLICIES = ['Always', 'Never', 'OnFailure'];
const OPERATORS = ['In', 'NotIn'];
const ACTIONS = ['Restart', 'RestartAllContainers'];
const MAX_RULES = 20;
const MAX_EXIT_CODES = 255;

/**
 * A regular container's policy and rules, or an init container's: any of the
 * three policies (Always makes an init container a sidecar), and rules only
 * beside an explicit policy.
 */
export function validateContainerRestartPolicy(c: Checker, path: string, ctr: Record<string, unknown>): void {
  const { restartPolicy: policy, restartPolicyRules: rules } = ctr;
  const hasRules = Array.isArray(rules) && rules.length > 0;
  if (policy === undefined || policy === null) {
    if (hasRules) c.fail(`${path}.restartPolicy`, 'Required value: must specify restartPolicy when restart rules are used');
  } else c.oneOf(`${path}.restartPolicy`, policy, POLICIES);
  if (!c.array(`${path}.restartPolicyRules`, rules)) return;
  if (rules.length > MAX_RULES) c.fail(`${path}.restartPolicyRules`, `Too many: ${rules.length}: must have at most ${MAX_RULES} items`);
  rules.forEach((rule, i) => {
    const at = `${path}.restartPolicyRules[${i}]`;
    if (!c.object(at, rule, true)) return;
    const action = rule.action ?? '';
    c.oneOf(`${at}.action`, action, ACTIONS);
    if (rule.exitCodes === undefined || rule.exitCodes === null) {
      c.fail(`${at}.exitCodes`, 'Required value: must be specified');
      return;
    }
    if (!c.object(`${at}.exitCodes`, rule.exitCodes)) return;
    const { operator, values } = rule.exitCodes;
    c.oneOf(`${at}.exitCodes.operator`, operator ?? '', OPERATORS);
    if (!c.array(`${at}.exitCodes.values`, values)) return;
    if (values.length > MAX_EXIT_CODES)
      c.fail(`${at}.exitCodes.values`, `Too many: ${values.length}: must have at most ${MAX_EXIT_CODES} items`);
    values.forEach((v, j) => c.integer(`${at}.exitCodes.values[${j}]`, v, -2147483648, 2147483647));
  });
}
