import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../util/atomic-file.js';
import type { Mount } from '../../cri/types.js';
import type { Container, Pod } from '../api/v1.js';
import { podDir } from '../volume/volume-manager.js';

export const ETC_HOSTS = '/etc/hosts';

/**
 * The kubelet-managed /etc/hosts of a pod (makeHostsMount): written once into
 * the pod's directory as `etc-hosts` and mounted into every container that
 * does not mount something at /etc/hosts itself. A pod network gets
 * localhost, the IPv6 names and the pod's IPs under its hostname; a host
 * network pod gets the node's own /etc/hosts. spec.hostAliases follow both.
 * As in the kubelet, there is no file while the pod has no IP (a host-network
 * sandbox on a standalone node has none).
 */
export function makeHostsMount(
  rootDir: string,
  pod: Pod,
  container: Container,
  podIPs: string[],
  nodeHosts = '/etc/hosts',
): Mount | undefined {
  if (podIPs.length === 0) return undefined;
  if (container.volumeMounts?.some((m) => m.mountPath === ETC_HOSTS)) return undefined;
  const dir = podDir(rootDir, pod.metadata.uid!);
  const file = join(dir, 'etc-hosts');
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    // Whole or not at all: a half-written file would stay the pod's /etc/hosts for good.
    writeFileAtomic(file, hostsFileContent(pod, podIPs, nodeHosts), 0o644);
  }
  return { containerPath: ETC_HOSTS, hostPath: file, readonly: false };
}

export function hostsFileContent(pod: Pod, podIPs: string[], nodeHosts = '/etc/hosts'): string {
  let content: string;
  if (pod.spec.hostNetwork) {
    let host = '';
    try {
      host = readFileSync(nodeHosts, 'utf8');
    } catch {
      // no node hosts file: only the aliases
    }
    content = `# Kubernetes-managed hosts file (host network).\n${host}`;
  } else {
    const hostname = (pod.spec.hostname ?? pod.metadata.name ?? '').slice(0, 63).replace(/[-.]+$/, '');
    content = [
      '# Kubernetes-managed hosts file.',
      '127.0.0.1\tlocalhost',
      '::1\tlocalhost ip6-localhost ip6-loopback',
      'fe00::0\tip6-localnet',
      'fe00::0\tip6-mcastprefix',
      'fe00::1\tip6-allnodes',
      'fe00::2\tip6-allrouters',
      ...podIPs.map((ip) => `${ip}\t${hostname}`),
      '',
    ].join('\n');
  }
  const aliases = pod.spec.hostAliases ?? [];
  if (aliases.length > 0) {
    content += `\n# Entries added by HostAliases.\n${aliases.map((a) => `${a.ip}\t${(a.hostnames ?? []).join('\t')}`).join('\n')}\n`;
  }
  return content;
}
