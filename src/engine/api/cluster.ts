// The objects a node writes besides pods: its Node (core/v1), its Lease
// (coordination.k8s.io/v1) and Events (core/v1), as their JSON is. A subset.
import type { ObjectMeta, Quantity } from './v1.js';

export interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface NodeAddress {
  type: 'Hostname' | 'InternalIP' | 'ExternalIP' | 'InternalDNS' | 'ExternalDNS';
  address: string;
}

export interface NodeSystemInfo {
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  containerRuntimeVersion: string;
  kubeletVersion: string;
  kubeProxyVersion: string;
  operatingSystem: string;
  architecture: string;
}

export interface NodeStatus {
  capacity?: Record<string, Quantity>;
  allocatable?: Record<string, Quantity>;
  conditions?: NodeCondition[];
  addresses?: NodeAddress[];
  daemonEndpoints?: { kubeletEndpoint: { Port: number } };
  nodeInfo?: NodeSystemInfo;
}

export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  timeAdded?: string;
}

export interface Node {
  apiVersion?: 'v1';
  kind?: 'Node';
  metadata: ObjectMeta;
  spec?: { podCIDR?: string; taints?: Taint[]; unschedulable?: boolean; providerID?: string };
  status?: NodeStatus;
}

export interface Lease {
  apiVersion?: 'coordination.k8s.io/v1';
  kind?: 'Lease';
  metadata: ObjectMeta;
  spec: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    /** MicroTime: RFC 3339 with microseconds. */
    renewTime?: string;
    acquireTime?: string;
  };
}

export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  fieldPath?: string;
  resourceVersion?: string;
}

export interface Event {
  apiVersion?: 'v1';
  kind?: 'Event';
  metadata: ObjectMeta;
  involvedObject: ObjectReference;
  reason: string;
  message: string;
  type: 'Normal' | 'Warning';
  source: { component: string; host?: string };
  firstTimestamp?: string;
  lastTimestamp?: string;
  count?: number;
  reportingComponent?: string;
  reportingInstance?: string;
}

/** RFC 3339 with microseconds, as the API writes a MicroTime (Lease renewTime). */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
