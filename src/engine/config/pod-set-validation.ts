// StatefulSets, DaemonSets and their claims, with the apiserver's field paths
// and texts (pkg/apis/apps/validation, core's ValidatePersistentVolumeClaimSpec).
import { parseQuantity, quantityProblem } from '../api/quantity.js';
import { isObject, type Checker, type Obj } from './field-checker.js';
import { intOrPercent, nonNegative, selectorOf, template } from './template-validation.js';

const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];

export function claimSpec(c: Checker, path: string, spec: Obj): void {
  const modes = spec.accessModes;
  if (!Array.isArray(modes) || modes.length === 0) c.fail(`${path}.accessModes`, 'Required value: at least 1 access mode is required');
  else {
    for (const mode of modes) c.oneOf(`${path}.accessModes`, mode, ACCESS_MODES);
    if (modes.includes('ReadWriteOncePod') && modes.length > 1)
      c.fail(`${path}.accessModes`, 'Forbidden: may not use ReadWriteOncePod with other access modes');
  }
  const requests = isObject(spec.resources) && isObject(spec.resources.requests) ? spec.resources.requests : {};
  const storage = requests.storage;
  if (storage === undefined) c.fail(`${path}.resources[storage]`, 'Required value');
  else if (typeof storage !== 'string' && typeof storage !== 'number')
    c.fail(`${path}.resources[storage]`, `expected a quantity, got ${typeof storage}`);
  else {
    const problem = quantityProblem(storage);
    if (problem) c.fail(`${path}.resources[storage]`, problem);
    else if (parseQuantity(storage) <= 0) c.fail(`${path}.resources[storage]`, `Invalid value: "${storage}": must be greater than zero`);
  }
  if (spec.volumeMode !== undefined) c.oneOf(`${path}.volumeMode`, spec.volumeMode, ['Block', 'Filesystem']);
}

export function statefulSet(c: Checker, spec: Obj): void {
  const policy = spec.podManagementPolicy;
  if (policy !== undefined && policy !== 'OrderedReady' && policy !== 'Parallel')
    c.fail('spec.podManagementPolicy', `Invalid value: ${JSON.stringify(policy)}: must be 'OrderedReady' or 'Parallel'`);
  if (spec.updateStrategy !== undefined && c.object('spec.updateStrategy', spec.updateStrategy)) {
    const strategy = spec.updateStrategy;
    const type = strategy.type ?? 'RollingUpdate';
    if (type === 'OnDelete' && strategy.rollingUpdate !== undefined)
      c.fail(
        'spec.updateStrategy.rollingUpdate',
        `Invalid value: ${JSON.stringify(strategy.rollingUpdate)}: only allowed for updateStrategy 'RollingUpdate'`,
      );
    else if (type === 'RollingUpdate' && isObject(strategy.rollingUpdate))
      nonNegative(c, 'spec.updateStrategy.rollingUpdate.partition', strategy.rollingUpdate.partition);
    else if (type !== 'OnDelete' && type !== 'RollingUpdate')
      c.fail('spec.updateStrategy', `Invalid value: ${JSON.stringify(strategy)}: must be 'RollingUpdate' or 'OnDelete'`);
  }
  if (
    spec.persistentVolumeClaimRetentionPolicy !== undefined &&
    c.object('spec.persistentVolumeClaimRetentionPolicy', spec.persistentVolumeClaimRetentionPolicy)
  )
    for (const when of ['whenDeleted', 'whenScaled']) {
      const value = spec.persistentVolumeClaimRetentionPolicy[when];
      if (value !== undefined) c.oneOf(`spec.persistentVolumeClaimRetentionPolicy.${when}`, value, ['Retain', 'Delete']);
    }
  const claimVolumes: Obj[] = [];
  if (spec.volumeClaimTemplates !== undefined && c.array('spec.volumeClaimTemplates', spec.volumeClaimTemplates))
    spec.volumeClaimTemplates.forEach((t, i) => {
      if (!c.object(`spec.volumeClaimTemplates[${i}]`, t, true)) return;
      const name = isObject(t.metadata) ? t.metadata.name : undefined;
      if (typeof name === 'string') claimVolumes.push({ name, persistentVolumeClaim: { claimName: name } });
      if (c.object(`spec.volumeClaimTemplates[${i}].spec`, t.spec, true)) claimSpec(c, `spec.volumeClaimTemplates[${i}].spec`, t.spec);
    });
  nonNegative(c, 'spec.replicas', spec.replicas);
  nonNegative(c, 'spec.minReadySeconds', spec.minReadySeconds);
  if (isObject(spec.ordinals)) nonNegative(c, 'spec.ordinals.start', spec.ordinals.start);
  if (typeof spec.serviceName === 'string' && spec.serviceName !== '') c.dnsLabel('spec.serviceName', spec.serviceName);
  const selector = selectorOf(c, spec.selector, 'statefulset');
  // The controller sets hostname and subdomain, and a volume per claim template: the template is checked with them.
  let raw = spec.template;
  if (isObject(raw) && isObject(raw.spec)) {
    const names = new Set(claimVolumes.map((v) => v.name));
    const own = Array.isArray(raw.spec.volumes) ? raw.spec.volumes.filter((v) => !isObject(v) || !names.has(v.name as string)) : [];
    const podSpec: Obj = { ...raw.spec, volumes: [...claimVolumes, ...own] };
    delete podSpec.hostname;
    delete podSpec.subdomain;
    if (claimVolumes.length === 0 && own.length === 0) delete podSpec.volumes;
    raw = { ...raw, spec: podSpec };
  }
  template(c, raw, selector, ['Always'], 'StatefulSet');
}

export function daemonSet(c: Checker, spec: Obj): void {
  const selector = selectorOf(c, spec.selector, 'daemonset');
  template(c, spec.template, selector, ['Always'], 'DaemonSet');
  nonNegative(c, 'spec.minReadySeconds', spec.minReadySeconds);
  nonNegative(c, 'spec.revisionHistoryLimit', spec.revisionHistoryLimit);
  if (spec.updateStrategy === undefined || !c.object('spec.updateStrategy', spec.updateStrategy)) return;
  const strategy = spec.updateStrategy;
  const type = strategy.type ?? 'RollingUpdate';
  if (type === 'OnDelete') return;
  if (type !== 'RollingUpdate') {
    c.fail('spec.updateStrategy', `Unsupported value: ${JSON.stringify(strategy)}: supported values: "RollingUpdate", "OnDelete"`);
    return;
  }
  const rolling = isObject(strategy.rollingUpdate) ? strategy.rollingUpdate : {};
  const unavailable = intOrPercent(c, 'spec.updateStrategy.rollingUpdate.maxUnavailable', rolling.maxUnavailable ?? 1);
  const surge = intOrPercent(c, 'spec.updateStrategy.rollingUpdate.maxSurge', rolling.maxSurge ?? 0);
  if (unavailable !== 0 && surge !== 0)
    c.fail(
      'spec.updateStrategy.rollingUpdate.maxSurge',
      `Invalid value: ${JSON.stringify(rolling.maxSurge)}: may not be set when maxUnavailable is non-zero`,
    );
  else if (unavailable === 0 && surge === 0)
    c.fail('spec.updateStrategy.rollingUpdate.maxUnavailable', 'Required value: cannot be 0 when maxSurge is 0');
}
