// The apiserver's rules for a pod's volumes (validateVolumes and
// validateVolumeSource in validation.go), with its field paths: one source per
// volume (a volume with none is an emptyDir after the v1 defaults), each
// source's required fields, file modes, and paths inside the volume.
import { isAbsolute } from 'node:path/posix';
import { quantityProblem, compareQuantities } from '../api/quantity.js';
import { Checker, isObject, truncate, type Obj } from './field-checker.js';
import { int32, validateFieldRef } from './spec-field-validation.js';

/**
 * The sources in the order the apiserver tries them: the first present is
 * checked, each later one is refused at its own path (spelled as the apiserver
 * spells it: `downwarAPI`, `cephFS`).
 */
const SOURCES: readonly [string, string][] = [
  ['emptyDir', 'emptyDir'],
  ['hostPath', 'hostPath'],
  ['gitRepo', 'gitRepo'],
  ['gcePersistentDisk', 'gcePersistentDisk'],
  ['awsElasticBlockStore', 'awsElasticBlockStore'],
  ['secret', 'secret'],
  ['nfs', 'nfs'],
  ['iscsi', 'iscsi'],
  ['glusterfs', 'glusterfs'],
  ['flocker', 'flocker'],
  ['persistentVolumeClaim', 'persistentVolumeClaim'],
  ['rbd', 'rbd'],
  ['cinder', 'cinder'],
  ['cephfs', 'cephFS'],
  ['quobyte', 'quobyte'],
  ['downwardAPI', 'downwarAPI'],
  ['fc', 'fc'],
  ['flexVolume', 'flexVolume'],
  ['configMap', 'configMap'],
  ['azureFile', 'azureFile'],
  ['vsphereVolume', 'vsphereVolume'],
  ['photonPersistentDisk', 'photonPersistentDisk'],
  ['portworxVolume', 'portworxVolume'],
  ['azureDisk', 'azureDisk'],
  ['storageos', 'storageos'],
  ['projected', 'projected'],
  ['scaleIO', 'scaleIO'],
  ['csi', 'csi'],
  ['ephemeral', 'ephemeral'],
  ['image', 'image'],
];

/** The hostPath types (supportedHostPathTypes), sorted as the apiserver lists them; "" checks nothing. */
const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];
/** The fields a downwardAPI volume file may name (validVolumeDownwardAPIFieldPathExpressions). */
const VOLUME_FIELD_PATHS = ['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid'];
const FILE_MODE = 'must be a number between 0 and 0777 (octal), both inclusive';

const present = (v: unknown) => v !== undefined && v !== null;
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const empty = (v: unknown) => v === undefined || v === null || v === '';

/**
 * spec.volumes: a DNS label name once each, and its source. Returns the names
 * of the volumes without a problem, each with its source: as the
 * apiserver's, a mount of a volume that has one is not found.
 */
export function validateVolumes(c: Checker, volumes: unknown): Map<string, string> {
  const names = new Map<string, string>();
  if (!c.array('spec.volumes', volumes)) return names;
  volumes.forEach((raw, i) => {
    const v = isObject(raw) ? raw : {};
    const path = `spec.volumes[${i}]`;
    const before = c.errors.length;
    c.dnsLabel(`${path}.name`, v.name);
    if (typeof v.name === 'string' && names.has(v.name)) c.fail(`${path}.name`, `Duplicate value: "${v.name}"`);
    let sources = 0;
    let source = 'emptyDir';
    for (const [key, spelled] of SOURCES) {
      if (!present(v[key])) continue;
      if (sources === 0) source = key;
      if (sources++ > 0) c.fail(`${path}.${spelled}`, 'Forbidden: may not specify more than 1 volume type');
      else if (c.object(`${path}.${key}`, v[key])) validateSource(c, `${path}.${key}`, key, v[key]);
    }
    if (c.errors.length === before && typeof v.name === 'string') names.set(v.name, source);
  });
  return names;
}

/** A file mode: an int32 the decoder can fit (named by the Go struct that holds it), from 0 to 0777. */
function mode(c: Checker, at: string, value: unknown, struct = 'KeyToPath'): void {
  if (int32(c, at, value, struct) && (value < 0 || value > 0o777)) c.fail(at, `Invalid value: ${value}: ${FILE_MODE}`);
}

/** ValidateLocalNonReservedPath: relative, no `..` element, not starting with `..`. */
function localPath(c: Checker, at: string, v: unknown): void {
  if (typeof v !== 'string' || v === '') return;
  if (isAbsolute(v)) c.fail(at, `Invalid value: "${truncate(v)}": must be a relative path`);
  if (v.split('/').includes('..')) c.fail(at, `Invalid value: "${truncate(v)}": must not contain '..'`);
  else if (v.startsWith('..')) c.fail(at, `Invalid value: "${truncate(v)}": must not start with '..'`);
}

/** validateKeyToPath: a key, a local path, a file mode. */
function keyToPath(c: Checker, at: string, item: unknown): void {
  const kp = isObject(item) ? item : {};
  if (empty(kp.key)) c.fail(`${at}.key`, 'Required value');
  if (empty(kp.path)) c.fail(`${at}.path`, 'Required value');
  localPath(c, `${at}.path`, kp.path);
  mode(c, `${at}.mode`, kp.mode);
}

/** validateDownwardAPIVolumeFile: named by the source's path, not the item's (as the apiserver does). */
function downwardFile(c: Checker, at: string, item: unknown): void {
  const file = isObject(item) ? item : {};
  if (empty(file.path)) c.fail(`${at}.path`, 'Required value');
  localPath(c, `${at}.path`, file.path);
  if (isObject(file.fieldRef)) {
    validateFieldRef(c, `${at}.fieldRef`, file.fieldRef, VOLUME_FIELD_PATHS);
    if (present(file.resourceFieldRef))
      c.fail(at, 'Invalid value: "resource": fieldRef and resourceFieldRef can not be specified simultaneously');
  } else if (!present(file.resourceFieldRef)) c.fail(at, 'Required value: one of fieldRef and resourceFieldRef is required');
  mode(c, `${at}.mode`, file.mode, 'DownwardAPIVolumeFile');
}

function validateSource(c: Checker, at: string, kind: string, s: Obj): void {
  switch (kind) {
    case 'emptyDir':
      if (present(s.sizeLimit)) {
        const problem = quantityProblem(s.sizeLimit);
        if (problem && !problem.includes('greater than or equal to 0'))
          c.fail(`${at}.sizeLimit`, `Invalid value: ${JSON.stringify(s.sizeLimit)?.slice(0, 64)}: ${problem}`);
        else if (problem || (compareQuantities(s.sizeLimit as string | number, 0) ?? 0) < 0)
          c.fail(`${at}.sizeLimit`, 'Forbidden: SizeLimit field must be a valid resource quantity');
      }
      return;
    case 'hostPath':
      // validateHostPathVolumeSource: nothing else is checked of a hostPath without a path.
      if (empty(s.path)) return c.fail(`${at}.path`, 'Required value');
      if (c.string(`${at}.path`, s.path) && s.path.split('/').includes('..'))
        c.fail(`${at}.path`, `Invalid value: "${truncate(s.path)}": must not contain '..'`);
      c.oneOf(`${at}.type`, s.type, HOST_PATH_TYPES);
      return;
    case 'secret':
    case 'configMap':
      if (empty(kind === 'secret' ? s.secretName : s.name)) c.fail(`${at}.${kind === 'secret' ? 'secretName' : 'name'}`, 'Required value');
      mode(c, `${at}.defaultMode`, s.defaultMode, kind === 'secret' ? 'SecretVolumeSource' : 'ConfigMapVolumeSource');
      list(s.items).forEach((item, i) => keyToPath(c, `${at}.items[${i}]`, item));
      return;
    case 'persistentVolumeClaim':
      if (empty(s.claimName)) c.fail(`${at}.claimName`, 'Required value');
      return;
    case 'nfs':
      if (empty(s.server)) c.fail(`${at}.server`, 'Required value');
      if (empty(s.path)) c.fail(`${at}.path`, 'Required value');
      if (typeof s.path !== 'string' || !isAbsolute(s.path))
        c.fail(`${at}.path`, `Invalid value: ${JSON.stringify(s.path ?? '')}: must be an absolute path`);
      return;
    case 'downwardAPI':
      mode(c, `${at}.defaultMode`, s.defaultMode, 'DownwardAPIVolumeSource');
      list(s.items).forEach((item) => downwardFile(c, at, item));
      return;
    case 'projected':
      mode(c, `${at}.defaultMode`, s.defaultMode, 'ProjectedVolumeSource');
      list(s.sources).forEach((raw, i) => projection(c, at, `${at}.sources[${i}]`, raw));
      return;
    case 'image':
      c.string(`${at}.reference`, s.reference, true);
      c.oneOf(`${at}.pullPolicy`, s.pullPolicy, ['Always', 'IfNotPresent', 'Never']);
      return;
  }
}

/** One source of a projected volume (validateProjectionSources); a token's path is named by the volume's `projected.path`. */
function projection(c: Checker, projected: string, at: string, raw: unknown): void {
  if (!isObject(raw)) return;
  for (const kind of ['secret', 'configMap']) {
    const s = raw[kind];
    if (!isObject(s)) continue;
    if (empty(s.name)) c.fail(`${at}.${kind}.name`, 'Required value');
    list(s.items).forEach((item, j) => keyToPath(c, `${at}.${kind}.items[${j}]`, item));
  }
  if (isObject(raw.downwardAPI)) list(raw.downwardAPI.items).forEach((item) => downwardFile(c, `${at}.downwardAPI`, item));
  const token = raw.serviceAccountToken;
  if (isObject(token)) {
    const exp = token.expirationSeconds;
    if (typeof exp === 'number' && exp < 600)
      c.fail(`${at}.serviceAccountToken.expirationSeconds`, `Invalid value: ${exp}: may not specify a duration less than 10 minutes`);
    if (typeof exp === 'number' && exp > 2 ** 32)
      c.fail(`${at}.serviceAccountToken.expirationSeconds`, `Invalid value: ${exp}: may not specify a duration larger than 2^32 seconds`);
    if (empty(token.path)) c.fail(`${projected}.path`, 'Required value');
    else localPath(c, `${projected}.path`, token.path);
  }
}

/** ValidateVolumeDevices: a block device of a PersistentVolumeClaim or ephemeral volume, at a path without `..`, once each, apart from the mounts. */
export function validateVolumeDevices(
  c: Checker,
  path: string,
  devices: unknown,
  volumes: ReadonlyMap<string, string>,
  mounts: ReadonlyMap<string, string>,
): void {
  if (!c.array(path, devices)) return;
  const mountPaths = new Set(mounts.values());
  const [names, paths] = [new Set<string>(), new Set<string>()];
  devices.forEach((raw, i) => {
    const d = isObject(raw) ? raw : {};
    const at = `${path}[${i}]`;
    const [name, devicePath] = [typeof d.name === 'string' ? d.name : '', typeof d.devicePath === 'string' ? d.devicePath : ''];
    if (name === '') c.fail(`${at}.name`, 'Required value');
    if (names.has(name)) c.fail(`${at}.name`, `Invalid value: ${JSON.stringify(name)}: must be unique`);
    const source = volumes.get(name);
    if (source !== undefined && source !== 'persistentVolumeClaim' && source !== 'ephemeral')
      c.fail(
        `${at}.name`,
        `Invalid value: ${JSON.stringify(name)}: can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode`,
      );
    if (source === undefined) c.fail(`${at}.name`, `Not found: ${JSON.stringify(name)}`);
    if (devicePath === '') c.fail(`${at}.devicePath`, 'Required value');
    if (paths.has(devicePath)) c.fail(`${at}.devicePath`, `Invalid value: ${JSON.stringify(devicePath)}: must be unique`);
    if (devicePath.split('/').includes('..'))
      c.fail(`${at}.devicePath`, `Invalid value: ${JSON.stringify(devicePath)}: can not contain backsteps ('..')`);
    if (mounts.has(name)) c.fail(`${at}.name`, `Invalid value: ${JSON.stringify(name)}: must not already exist in volumeMounts`);
    if (mountPaths.has(devicePath))
      c.fail(`${at}.devicePath`, `Invalid value: ${JSON.stringify(devicePath)}: must not already exist as a path in volumeMounts`);
    names.add(name);
    paths.add(devicePath);
  });
}

/** validateResizePolicy: cpu or memory, once each, NotRequired or RestartContainer; named by the list, as the apiserver does. */
export function validateResizePolicy(c: Checker, path: string, policies: unknown): void {
  if (!c.array(path, policies)) return;
  const seen = new Set<string>();
  policies.forEach((raw, i) => {
    const p = isObject(raw) ? raw : {};
    const [resource, policy] = [
      typeof p.resourceName === 'string' ? p.resourceName : '',
      typeof p.restartPolicy === 'string' ? p.restartPolicy : '',
    ];
    if (seen.has(resource)) c.fail(`${path}[${i}]`, `Duplicate value: ${JSON.stringify(resource)}`);
    seen.add(resource);
    if (resource !== 'cpu' && resource !== 'memory')
      c.fail(path, `Unsupported value: ${JSON.stringify(resource)}: supported values: "cpu", "memory"`);
    if (policy !== 'NotRequired' && policy !== 'RestartContainer')
      c.fail(path, `Unsupported value: ${JSON.stringify(policy)}: supported values: "NotRequired", "RestartContainer"`);
  });
}

/** A container's mounts and devices by name: each name to its path (GetVolumeMountMap, GetVolumeDeviceMap). */
export function pathsByName(items: unknown, key: 'mountPath' | 'devicePath'): Map<string, string> {
  const out = new Map<string, string>();
  for (const item of list(items))
    if (isObject(item) && typeof item.name === 'string') out.set(item.name, typeof item[key] === 'string' ? item[key] : '');
  return out;
}
