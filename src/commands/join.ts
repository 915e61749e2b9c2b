import { Args, Flags } from '@oclif/core';
import { checkDiscovery, discoverForJoin, type JoinDiscovery } from '../cli/join-discovery.js';
import { parsePins } from '../engine/cluster/bootstrap/token.js';
import { parseGoDuration } from '../engine/config/duration.js';
import { RealClock } from '../util/clock.js';
import { UserError } from '../util/user-error.js';
import Run from './run.js';

export default class Join extends Run {
  static override summary = 'Join a cluster as kubeadm join does (a bootstrap token or a discovery file), then run as its node.';
  static override description = `Discovery as kubeadm join's. With an apiserver and --token: reads cluster-info from kube-public anonymously, checks the bootstrap signer's JWS for the token, and pins the cluster's CA by --discovery-token-ca-cert-hash. With --discovery-file (a kubeconfig's path or an https:// URL, fetched with the host's CA bundle): embeds its CA and credentials and reads cluster-info through it. Then writes <root-dir>/bootstrap-kubelet.conf, gets the node's client certificate through a CertificateSigningRequest (TLS bootstrap) into <root-dir>/kubelet.conf, and runs the node as knode run --kubeconfig does. Run again, it reuses the certificate while it is valid. See docs/cluster.md.`;

  static override examples = [
    '<%= config.bin %> join 10.0.0.10:6443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash sha256:1234…cdef',
    '<%= config.bin %> join 10.0.0.10:6443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash sha256:1234…cdef --node-name edge-1 --output plain',
    '<%= config.bin %> join --discovery-file https://example.com/cluster-info.yaml --tls-bootstrap-token abcdef.0123456789abcdef',
  ];

  static override args = {
    apiserver: Args.string({ description: "The apiserver's address (host:port) for token discovery, as kubeadm join takes it" }),
  };

  static override flags = {
    ...Run.flags,
    token: Flags.string({ description: 'The bootstrap token (abcdef.0123456789abcdef), for discovery and for the TLS bootstrap' }),
    'tls-bootstrap-token': Flags.string({
      description: 'The bootstrap token the TLS bootstrap authenticates with, when it is not --token',
    }),
    'discovery-file': Flags.string({
      description: 'A kubeconfig (a path or an https:// URL) naming the cluster, instead of token discovery',
    }),
    'discovery-token-ca-cert-hash': Flags.string({
      description: "The cluster CA's public key hash (sha256:<hex>, as kubeadm token create --print-join-command prints it); repeatable",
      multiple: true,
      default: [],
    }),
    'discovery-token-unsafe-skip-ca-verification': Flags.boolean({
      description: "Trust the cluster's CA without pinning its hash (anyone on the network path could impersonate the apiserver)",
      default: false,
    }),
    'discovery-timeout': Flags.string({ description: 'How long discovery retries before it gives up (Go duration)', default: '5m' }),
  };

  override async run(): Promise<void> {
    const { args, flags } = await this.parse(Join);
    const rootDir = this.rootDir(flags);
    let discovery: JoinDiscovery;
    try {
      discovery = {
        apiserver: args.apiserver,
        file: flags['discovery-file'],
        token: flags.token,
        tlsBootstrapToken: flags['tls-bootstrap-token'],
        caCertHashes: parsePins(flags['discovery-token-ca-cert-hash']),
        unsafeSkipCAVerification: flags['discovery-token-unsafe-skip-ca-verification'],
        timeoutMs: parseGoDuration(flags['discovery-timeout']),
      };
    } catch (err) {
      throw new UserError('usage', (err as Error).message);
    }
    checkDiscovery(discovery);
    await this.runNode(flags, (config) => discoverForJoin(discovery, config, rootDir, new RealClock()));
  }
}
