// `kubectl describe configmap` and `kubectl describe secret`, laid out as
// kubectl's describers lay them out (k8s.io/kubectl/pkg/describe), written
// anew: a ConfigMap's values in full, a Secret's only by their size.
import type { Event } from '../engine/api/cluster.js';
import type { ConfigMap, Secret } from '../engine/api/workloads.js';
import { compareStrings } from '../util/compare.js';
import { annotationsMultiline, finishDescription, labelsMultiline, PrefixWriter } from './describe-parts.js';

const sortedKeys = (data: Record<string, string> | undefined) => Object.keys(data ?? {}).sort(compareStrings);

/** The bytes of a base64 value, as the API's []byte holds them. */
const byteLength = (base64: string) => Buffer.from(base64, 'base64').length;

function header(w: PrefixWriter, o: ConfigMap | Secret): void {
  w.write(0, `Name:\t${o.metadata.name ?? ''}\n`);
  w.write(0, `Namespace:\t${o.metadata.namespace ?? 'default'}\n`);
  labelsMultiline(w, 'Labels', o.metadata.labels);
  annotationsMultiline(w, 'Annotations', o.metadata.annotations);
}

/** `kubectl describe configmap`: each key's value under it, then each binary key's size. */
export function describeConfigMap(cm: ConfigMap, events: Event[] | undefined, now: number): string {
  const w = new PrefixWriter();
  header(w, cm);
  w.write(0, '\nData\n====\n');
  for (const key of sortedKeys(cm.data)) w.write(0, `${key}:\n----\n${cm.data![key]}\n\n`);
  w.write(0, '\nBinaryData\n====\n');
  for (const key of sortedKeys(cm.binaryData)) w.write(0, `${key}: ${byteLength(cm.binaryData![key])} bytes\n`);
  w.write(0, '\n');
  return finishDescription(w, events, now);
}

/** `kubectl describe secret`: its type, and each key's size (a service account token's token itself); never events. */
export function describeSecret(secret: Secret): string {
  const w = new PrefixWriter();
  header(w, secret);
  w.write(0, `\nType:\t${secret.type ?? ''}\n`);
  w.write(0, '\nData\n====\n');
  for (const key of sortedKeys(secret.data)) {
    const value = secret.data![key];
    const token = key === 'token' && secret.type === 'kubernetes.io/service-account-token';
    w.write(0, `${key}:\t${token ? Buffer.from(value, 'base64').toString() : `${byteLength(value)} bytes`}\n`);
  }
  return finishDescription(w, undefined, 0);
}
