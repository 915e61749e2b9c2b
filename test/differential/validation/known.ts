// Where knode's verdict on a manifest may differ from the kube-apiserver's on
// purpose, each with its reason (README.md, "Validation against the
// kube-apiserver"). The test fails on a disagreement none of these explains,
// and on an entry that explains nothing in the default corpus.
import type { Verdict } from './oracle.js';

export interface KnownValidationDifference {
  id: string;
  reason: string;
  explains(apiserver: Verdict, knode: Verdict, manifest: Record<string, unknown>): boolean;
}

const blank = (v: unknown) => v === undefined || v === null || v === '';

export const KNOWN_VALIDATION: readonly KnownValidationDifference[] = [
  {
    id: 'V1',
    reason:
      'a manifest without apiVersion or kind: the apiserver takes them from the request URL, a file has none, and the kubelet decoder refuses it',
    explains: (apiserver, knode, manifest) =>
      (blank(manifest.apiVersion) || blank(manifest.kind)) &&
      !knode.accepted &&
      knode.fields.every((f) => f === 'apiVersion' || f === 'kind'),
  },
  {
    id: 'V2',
    reason:
      'refused by an admission plugin (Priority, ServiceAccount, RuntimeClass, PodOverhead): the kubelet runs no apiserver admission on the pods of its own sources',
    explains: (apiserver) => apiserver.reason === 'admission',
  },
];
