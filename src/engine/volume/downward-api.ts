import type { ObjectFieldSelector, Pod, ResourceFieldSelector } from '../api/v1.js';
import { podFieldValue, resourceFieldValue, type PodAddresses } from '../kuberuntime/env.js';

export interface DownwardItem {
  path: string;
  fieldRef?: ObjectFieldSelector;
  resourceFieldRef?: ResourceFieldSelector;
}

/**
 * The files of a downwardAPI volume: each item's field, with labels and
 * annotations written as the kubelet writes them (`key="value"` per line,
 * sorted by key).
 */
export function downwardApiFiles(pod: Pod, items: DownwardItem[], addresses: PodAddresses): Map<string, string> {
  const files = new Map<string, string>();
  for (const item of items) {
    if (item.path.startsWith('/') || item.path.split('/').includes('..'))
      throw new Error(`downwardAPI item path "${item.path}" must be relative and stay inside the volume`);
    const field = item.fieldRef?.fieldPath;
    if (field === 'metadata.labels' || field === 'metadata.annotations') {
      const map = (field === 'metadata.labels' ? pod.metadata.labels : pod.metadata.annotations) ?? {};
      files.set(
        item.path,
        Object.keys(map)
          .sort()
          .map((k) => `${k}=${JSON.stringify(map[k])}`)
          .join('\n'),
      );
    } else if (field) {
      files.set(item.path, podFieldValue(pod, field, addresses));
    } else if (item.resourceFieldRef) {
      const container = pod.spec.containers.find((c) => c.name === item.resourceFieldRef!.containerName) ?? pod.spec.containers[0];
      files.set(item.path, resourceFieldValue(container, item.resourceFieldRef, addresses, item.path));
    }
  }
  return files;
}
