import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../util/atomic-file.js';
import type { Mount } from '../../cri/types.js';
import type { Container, Pod } from '../api/v1.js';
import { podDir } from '../volume/volume-manager.js';

export const ETC_HOSTS = '/etc/hosts';

/** What the hosts file depends on beside the pod: the node's cluster domain, and the node's own hosts file. */
export interface HostsFileOptions {
  /** The kubelet's clusterDomain (--cluster-domain); '' by default, as the kubelet's. */
  clusterDomain?: string;
  /** The node's hosts file, copied for a host-network pod. */
  nodeHosts?: string;
}

/** A hostname is at most 63 characters (64 bytes with the NUL); a cut one does not end in '-' or '.' (truncatePodHostnameIfNeeded). */
const HOSTNAME_MAX_LEN = 63;

function truncateHostname(hostname: string): string {
  if (hostname.length <= HOSTNAME_MAX_LEN) return hostname;
  return hostname.slice(0, HOSTNAME_MAX_LEN).replace(/[-.]+$/, '');
}

/**
 * The pod's hostname and domain, as the kubelet's GeneratePodHostNameAndDomain:
 * spec.hostname, else the pod's name, cut to 63 characters; with a
 * spec.subdomain the domain is `<subdomain>.<namespace>.svc.<clusterDomain>`.
 * As in the kubelet, an empty clusterDomain leaves the domain ending in
 * `svc.`; no subdomain, no domain. The sandbox's hostname and /etc/hosts both
 * come from here.
 */
export function podHostnameAndDomain(pod: Pod, clusterDomain = ''): { hostname: string; domain: string } {
  const hostname = truncateHostname(pod.spec.hostname || pod.metadata.name || '');
  const subdomain = pod.spec.subdomain ?? '';
  const domain = subdomain === '' ? '' : `${subdomain}.${pod.metadata.namespace ?? ''}.svc.${clusterDomain}`;
  return { hostname, domain };
}

/**
 * The kubelet-managed /etc/hosts of a pod (makeHostsMount): written once into
 * the pod's directory as `etc-hosts` and mounted into every container that
 * does not mount something at /etc/hosts itself. A pod network gets
 * localhost, the IPv6 names and the pod's IPs under its hostname; a host
 * network pod gets the node's own /etc/hosts. spec.hostAliases follow both.
 * With a domain (spec.subdomain), each pod IP's line names the FQDN first.
 * As in the kubelet (shouldMountHostsFile), a pod-network pod has no file
 * while it has no IP; a host-network pod has one whatever its IPs (on a
 * standalone node it has none).
 */
export function makeHostsMount(
  rootDir: string,
  pod: Pod,
  container: Container,
  podIPs: string[],
  options: HostsFileOptions = {},
): Mount | undefined {
  if (podIPs.length === 0 && !pod.spec.hostNetwork) return undefined;
  if (container.volumeMounts?.some((m) => m.mountPath === ETC_HOSTS)) return undefined;
  const dir = podDir(rootDir, pod.metadata.uid!);
  const file = join(dir, 'etc-hosts');
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    // Whole or not at all: a half-written file would stay the pod's /etc/hosts for good.
    writeFileAtomic(file, hostsFileContent(pod, podIPs, options), 0o644);
  }
  return { containerPath: ETC_HOSTS, hostPath: file, readonly: false };
}

/** The file's text, byte for byte as the kubelet's managedHostsFileContent and nodeHostsFileContent. */
export function hostsFileContent(pod: Pod, podIPs: string[], options: HostsFileOptions = {}): string {
  const { clusterDomain = '', nodeHosts = ETC_HOSTS } = options;
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
    const { hostname, domain } = podHostnameAndDomain(pod, clusterDomain);
    const names = domain === '' ? hostname : `${hostname}.${domain}\t${hostname}`;
    content = [
      '# Kubernetes-managed hosts file.',
      '127.0.0.1\tlocalhost',
      '::1\tlocalhost ip6-localhost ip6-loopback',
      'fe00::0\tip6-localnet',
      'fe00::0\tip6-mcastprefix',
      'fe00::1\tip6-allnodes',
      'fe00::2\tip6-allrouters',
      ...podIPs.map((ip) => `${ip}\t${names}`),
      '',
    ].join('\n');
  }
  const aliases = pod.spec.hostAliases ?? [];
  if (aliases.length > 0) {
    content += `\n# Entries added by HostAliases.\n${aliases.map((a) => `${a.ip}\t${(a.hostnames ?? []).join('\t')}`).join('\n')}\n`;
  }
  return content;
}
