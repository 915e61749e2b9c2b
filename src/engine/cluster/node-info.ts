// What the node reports about the machine in its Node status: capacity,
// system info, addresses and pressure, read from the host as the kubelet's
// cadvisor-backed setters do (a subset).
import { readFileSync, statfsSync } from 'node:fs';
import { availableParallelism, hostname, release, totalmem } from 'node:os';
import type { NodeAddress, NodeCondition, NodeSystemInfo } from '../api/cluster.js';
import type { Quantity } from '../api/v1.js';

/** The Kubernetes minor knode's kubelet behaviour follows; the node reports it as its kubelet version. */
export const KUBELET_COMPAT_VERSION = 'v1.34.0';

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

export function osImage(): string {
  const match = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readText('/etc/os-release'));
  return match?.[1] ?? 'Linux';
}

export function goArch(): string {
  return (
    ({ x64: 'amd64', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' } as Record<string, string>)[process.arch] ?? process.arch
  );
}

export function systemInfo(runtimeName: string, runtimeVersion: string, knodeVersion: string): NodeSystemInfo {
  return {
    machineID: readText('/etc/machine-id'),
    systemUUID: readText('/sys/class/dmi/id/product_uuid'),
    bootID: readText('/proc/sys/kernel/random/boot_id'),
    kernelVersion: release(),
    osImage: osImage(),
    containerRuntimeVersion: `${runtimeName}://${runtimeVersion}`,
    kubeletVersion: `${KUBELET_COMPAT_VERSION}-knode.${knodeVersion}`,
    kubeProxyVersion: '',
    operatingSystem: 'linux',
    architecture: goArch(),
  };
}

/** cpu, memory, pods and ephemeral-storage, as quantities (allocatable is the same: knode reserves nothing). */
export function capacity(maxPods: number, rootDir: string): Record<string, Quantity> {
  const out: Record<string, Quantity> = {
    cpu: String(availableParallelism()),
    memory: `${Math.floor(totalmem() / 1024)}Ki`,
    pods: String(maxPods),
  };
  try {
    const fs = statfsSync(rootDir);
    out['ephemeral-storage'] = `${Math.floor((fs.blocks * fs.bsize) / 1024)}Ki`;
  } catch {
    // no such dir yet: the next report has it
  }
  return out;
}

export function addresses(hostIP: string): NodeAddress[] {
  return [
    { type: 'InternalIP', address: hostIP },
    { type: 'Hostname', address: hostname().toLowerCase() },
  ];
}

type Condition = Omit<NodeCondition, 'lastHeartbeatTime' | 'lastTransitionTime'>;

/** MemoryPressure, DiskPressure and PIDPressure, True for the ones the eviction manager reports (the kubelet's setters' texts). */
export function pressureConditions(pressure: readonly string[]): Condition[] {
  const has = (c: string) => pressure.includes(c);
  return [
    has('MemoryPressure')
      ? {
          type: 'MemoryPressure',
          status: 'True',
          reason: 'KubeletHasInsufficientMemory',
          message: 'kubelet has insufficient memory available',
        }
      : {
          type: 'MemoryPressure',
          status: 'False',
          reason: 'KubeletHasSufficientMemory',
          message: 'kubelet has sufficient memory available',
        },
    has('DiskPressure')
      ? { type: 'DiskPressure', status: 'True', reason: 'KubeletHasDiskPressure', message: 'kubelet has disk pressure' }
      : { type: 'DiskPressure', status: 'False', reason: 'KubeletHasNoDiskPressure', message: 'kubelet has no disk pressure' },
    has('PIDPressure')
      ? { type: 'PIDPressure', status: 'True', reason: 'KubeletHasInsufficientPID', message: 'kubelet has insufficient PID available' }
      : { type: 'PIDPressure', status: 'False', reason: 'KubeletHasSufficientPID', message: 'kubelet has sufficient PID available' },
  ];
}

/** The Ready condition: True while the runtime answers and the PLEG relists. */
export function readyCondition(problems: string[]): Condition {
  return problems.length === 0
    ? { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }
    : { type: 'Ready', status: 'False', reason: 'KubeletNotReady', message: problems.join('; ') };
}
