// The kubelet's DNS configurer (pkg/kubelet/network/dns/dns.go): the
// resolver settings of a pod's sandbox, from its dnsPolicy and dnsConfig, the
// node's clusterDNS and clusterDomain, and the host's resolv.conf.
import { readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import type { Pod, PodDNSConfig } from '../api/v1.js';
import type { EventStream } from '../events.js';
import { podRef } from '../api/pod-util.js';

/** The CRI DNSConfig: what the runtime writes as the pod's resolv.conf. */
export interface DNSConfig {
  servers: string[];
  searches: string[];
  options: string[];
}

/** The apiserver's limits on a pod's resolver (pkg/apis/core/validation). */
export const DNS_LIMITS = { nameservers: 3, searchPaths: 32, searchListChars: 2048 } as const;
/** A search path longer than a DNS-1123 subdomain is dropped (some glibc versions abort on it). */
const MAX_SEARCH_PATH = 253;
/** The kubelet reads at most this much of resolvConf. */
const MAX_RESOLV_CONF = 10 << 20;
const DEFAULT_OPTIONS = ['ndots:5'];

export interface DnsConfigurerOptions {
  /** --cluster-dns: the cluster DNS servers' IPs (entries that are not IPs are left out, as the kubelet does). */
  clusterDNS: string[];
  /** --cluster-domain; '' adds no cluster search paths. */
  clusterDomain: string;
  /** --resolv-conf: the host's resolver file; '' gives Default pods the node's loopback instead. */
  resolvConf: string;
  /** The node's IPs: a loopback of each one's family is the nameserver when resolvConf is ''. */
  nodeIPs: string[];
  events: EventStream;
  /** Reads a file (tests give their own). */
  readFile?: (path: string) => string;
}

/** The entries of `clusterDNS` that are IPs, as Go's net.IP.String() writes them; the others, to be warned about. */
export function parseClusterDNS(entries: string[]): { ips: string[]; invalid: string[] } {
  const ips: string[] = [];
  const invalid: string[] = [];
  for (const entry of entries) {
    const family = isIP(entry);
    if (family === 4) ips.push(entry);
    else if (family === 6) {
      const v6 = new URL(`http://[${entry}]`).hostname.slice(1, -1);
      const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v6);
      ips.push(mapped ? hex16ToV4(mapped[1], mapped[2]) : v6);
    } else invalid.push(entry);
  }
  return { ips, invalid };
}

function hex16ToV4(hi: string, lo: string): string {
  const a = parseInt(hi, 16);
  const b = parseInt(lo, 16);
  return [a >> 8, a & 255, b >> 8, b & 255].join('.');
}

/** A resolv.conf's nameservers (accumulated), search paths and options (the last line of each wins), and its errors. */
export function parseResolvConf(text: string): DNSConfig & { errors: string[] } {
  const servers: string[] = [];
  let searches: string[] = [];
  let options: string[] = [];
  const errors: string[] = [];
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed.startsWith('#')) continue;
    const fields = trimmed.split(/\s+/).filter(Boolean);
    if (fields.length === 0) continue;
    if (fields[0] === 'nameserver') {
      if (fields.length >= 2) servers.push(fields[1]);
      else errors.push('nameserver list is empty ');
    }
    // The same domain with and without its trailing dot counts once.
    if (fields[0] === 'search') searches = fields.slice(1).flatMap((s) => (s === '.' ? [] : [s.replace(/\.$/, '')]));
    if (fields[0] === 'options') options = appendOptions(options, fields.slice(1));
  }
  return { servers, searches, options, errors };
}

/** Options by name: a later one replaces an earlier one of the same name (in its place). */
function appendOptions(options: string[], more: string[]): string[] {
  const byName = new Map<string, string>();
  for (const option of [...options, ...more]) byName.set(option.split(':')[0], option);
  return [...byName.values()];
}

/** The pod's dnsConfig.options over `existing`: the pod's win; `name` alone, or `name:value`. */
function mergeOptions(existing: string[], podOptions: NonNullable<PodDNSConfig['options']>): string[] {
  const byName = new Map<string, string>();
  for (const option of existing) {
    const colon = option.indexOf(':');
    if (colon === -1) byName.set(option, '');
    else byName.set(option.slice(0, colon), option.slice(colon + 1));
  }
  for (const option of podOptions) byName.set(option.name ?? '', option.value ?? '');
  return [...byName].map(([name, value]) => (value === '' ? name : `${name}:${value}`));
}

const unique = (list: string[]): string[] => [...new Set(list)];

/** How Go's os.Open words the errors a read of resolvConf may meet. */
function goOpenError(path: string, err: NodeJS.ErrnoException): Error {
  const why: Record<string, string> = {
    ENOENT: 'no such file or directory',
    EACCES: 'permission denied',
    ENOTDIR: 'not a directory',
    EISDIR: 'is a directory',
  };
  const text = why[err.code ?? ''];
  if (err.code === 'EISDIR') return new Error(`read ${path}: ${text}`);
  return new Error(text ? `open ${path}: ${text}` : err.message);
}

function readResolvConf(path: string): string {
  try {
    if (statSync(path).size > MAX_RESOLV_CONF) throw new Error('the read limit is reached');
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code) throw goOpenError(path, err as NodeJS.ErrnoException);
    throw err;
  }
}

/**
 * The DNS settings of each pod's sandbox, as the kubelet's Configurer forms
 * them: ClusterFirst (the default) points the pod at clusterDNS with the
 * cluster's search paths before the host's and ndots:5; Default gives it the
 * host's resolver (hostNetwork pods with ClusterFirst too);
 * ClusterFirstWithHostNet is ClusterFirst for hostNetwork pods; None starts
 * empty. The pod's dnsConfig is then merged in, and the result cut to the
 * resolver's limits (a DNSConfigForming warning says what was left out).
 */
export class DnsConfigurer {
  private readonly clusterDNS: string[];
  private readonly readFile: (path: string) => string;

  constructor(private readonly opts: DnsConfigurerOptions) {
    this.clusterDNS = parseClusterDNS(opts.clusterDNS).ips;
    this.readFile = opts.readFile ?? readResolvConf;
  }

  /** The host's resolver settings from resolvConf (empty when it is ''); throws, with the kubelet's words, when it cannot be read or parsed. */
  private hostDNS(): DNSConfig {
    const path = this.opts.resolvConf;
    if (path === '') return { servers: [], searches: [], options: [] };
    const { errors, ...config } = parseResolvConf(this.readFile(path));
    if (errors.length > 0) throw new Error(`Encountered error while parsing resolv conf file. Error: ${[...new Set(errors)].join(', ')}`);
    return config;
  }

  /**
   * Warns (on the Node) when the host's resolver file cannot be read or has
   * more search paths than pods may get beside the cluster's, as the
   * kubelet's CheckLimitsForResolvConf at the start of its sync loop.
   */
  checkLimitsForResolvConf(): void {
    const path = this.opts.resolvConf;
    if (path === '') return;
    const warn = (message: string) =>
      this.opts.events.emit({ type: 'CheckLimitsForResolvConf', pod: '', uid: '', reason: 'CheckLimitsForResolvConf', message });
    let searches: string[];
    try {
      const parsed = parseResolvConf(this.readFile(path));
      if (parsed.errors.length > 0) return warn([...new Set(parsed.errors)].join(', '));
      searches = parsed.searches;
    } catch (err) {
      return warn((err as Error).message);
    }
    const count = DNS_LIMITS.searchPaths - (this.opts.clusterDomain === '' ? 0 : 3);
    if (searches.length > count) return warn(`Resolv.conf file '${path}' contains search line consisting of more than ${count} domains!`);
    if (searches.some((s) => s.length > MAX_SEARCH_PATH))
      return warn(
        `Resolv.conf file ${JSON.stringify(path)} contains a search path which length is more than allowed ${MAX_SEARCH_PATH} chars!`,
      );
    if (searches.join(' ').length > DNS_LIMITS.searchListChars)
      warn(`Resolv.conf file '${path}' contains search line which length is more than allowed ${DNS_LIMITS.searchListChars} chars!`);
  }

  /** The pod's DNSConfig for its sandbox (GetPodDNS). */
  podDNS(pod: Pod): DNSConfig {
    let dns = this.hostDNS();
    const policy = pod.spec.dnsPolicy || 'ClusterFirst';
    const type =
      policy === 'None'
        ? 'none'
        : policy === 'Default' || (policy === 'ClusterFirst' && pod.spec.hostNetwork)
          ? 'host'
          : // ClusterFirstWithHostNet, ClusterFirst off the host's network, and (as the kubelet) a policy it does not know.
            'cluster';
    if (type === 'none') dns = { servers: [], searches: [], options: [] };
    if (type === 'cluster' && this.clusterDNS.length > 0) {
      dns.servers = [...this.clusterDNS];
      dns.searches = this.clusterSearches(dns.searches, pod);
      dns.options = [...DEFAULT_OPTIONS];
    } else if (type !== 'none') {
      if (type === 'cluster') this.missingClusterDNS(pod);
      if (this.opts.resolvConf === '') {
        // No resolver file: the node's own resolver, i.e. its loopback.
        dns.servers = this.opts.nodeIPs.map((ip) => (isIP(ip) === 6 ? '::1' : '127.0.0.1'));
        if (dns.servers.length === 0) dns.servers = ['127.0.0.1'];
        dns.searches = ['.'];
      }
    }
    const own = pod.spec.dnsConfig;
    if (own) {
      dns.servers = unique([...dns.servers, ...(own.nameservers ?? [])]);
      dns.searches = unique([...dns.searches, ...(own.searches ?? [])]);
      dns.options = mergeOptions(dns.options, own.options ?? []);
    }
    dns.servers = this.fitNameservers(dns.servers, pod);
    dns.searches = this.fitSearches(dns.searches, pod);
    return dns;
  }

  /** `<namespace>.svc.<domain> svc.<domain> <domain>`, then the host's, each once. */
  private clusterSearches(hostSearches: string[], pod: Pod): string[] {
    const domain = this.opts.clusterDomain;
    if (domain === '') return hostSearches;
    return unique([`${pod.metadata.namespace ?? ''}.svc.${domain}`, `svc.${domain}`, domain, ...hostSearches]);
  }

  private missingClusterDNS(pod: Pod): void {
    const nodeMessage = `kubelet does not have ClusterDNS IP configured and cannot create Pod using "ClusterFirst" policy. Falling back to "Default" policy.`;
    const { name = '', namespace = '', uid = '' } = pod.metadata;
    this.opts.events.emit({
      type: 'MissingClusterDNS',
      pod: podRef(pod),
      uid,
      reason: 'MissingClusterDNS',
      message: `pod: ${JSON.stringify(`${name}_${namespace}(${uid})`)}. ${nodeMessage}`,
      detail: { nodeMessage },
    });
  }

  private fitNameservers(servers: string[], pod: Pod): string[] {
    if (servers.length <= DNS_LIMITS.nameservers) return servers;
    const kept = servers.slice(0, DNS_LIMITS.nameservers);
    this.forming(
      pod,
      `Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: ${kept.join(' ')}`,
    );
    return kept;
  }

  private fitSearches(searches: string[], pod: Pod): string[] {
    let kept = searches.slice(0, DNS_LIMITS.searchPaths).filter((s) => s.length <= MAX_SEARCH_PATH);
    let exceeded = kept.length < searches.length;
    // Too long a line: the last paths go until it fits.
    while (kept.join(' ').length > DNS_LIMITS.searchListChars) {
      kept = kept.slice(0, -1);
      exceeded = true;
    }
    if (exceeded)
      this.forming(
        pod,
        `Search Line limits were exceeded, some search paths have been omitted, the applied search line is: ${kept.join(' ')}`,
      );
    return kept;
  }

  private forming(pod: Pod, message: string): void {
    this.opts.events.emit({ type: 'DNSConfigForming', pod: podRef(pod), uid: pod.metadata.uid ?? '', reason: 'DNSConfigForming', message });
  }
}
