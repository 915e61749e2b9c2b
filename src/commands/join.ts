import { Args, Flags } from '@oclif/core';
import { join } from 'node:path';
import { bootstrapKubeconfig, discoverCluster } from '../engine/cluster/bootstrap/discovery.js';
import { parsePins } from '../engine/cluster/bootstrap/token.js';
import { parseGoDuration } from '../engine/config/duration.js';
import { makeDirectory, writeFileAtomic } from '../util/atomic-file.js';
import { keepingAlive, RealClock } from '../util/clock.js';
import { UserError } from '../util/user-error.js';
import Run from './run.js';

export default class Join extends Run {
  static override summary = 'Join a cluster as kubeadm join does, with a bootstrap token, then run as its node.';
  static override description = `Token discovery as kubeadm join's: reads cluster-info from kube-public anonymously, checks the bootstrap signer's JWS for the token, and pins the cluster's CA by --discovery-token-ca-cert-hash. Then writes <root-dir>/bootstrap-kubelet.conf, gets the node's client certificate through a CertificateSigningRequest (TLS bootstrap) into <root-dir>/kubelet.conf, and runs the node as knode run --kubeconfig does. Run again, it reuses the certificate while it is valid. See docs/cluster.md.`;

  static override examples = [
    '<%= config.bin %> join 10.0.0.10:6443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash sha256:1234…cdef',
    '<%= config.bin %> join 10.0.0.10:6443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash sha256:1234…cdef --node-name edge-1 --output plain',
  ];

  static override args = {
    apiserver: Args.string({ description: "The apiserver's address (host:port), as kubeadm join takes it", required: true }),
  };

  static override flags = {
    ...Run.flags,
    token: Flags.string({
      description: 'The bootstrap token (abcdef.0123456789abcdef), for discovery and for the TLS bootstrap',
      required: true,
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
    let pins: string[];
    let timeoutMs: number;
    try {
      pins = parsePins(flags['discovery-token-ca-cert-hash']);
      timeoutMs = parseGoDuration(flags['discovery-timeout']);
    } catch (err) {
      throw new UserError('usage', (err as Error).message);
    }
    await this.runNode(flags, async (config) => {
      const clock = new RealClock();
      const say = (message: string) => process.stderr.write(`knode: ${message}\n`);
      let cluster;
      try {
        cluster = await keepingAlive(
          discoverCluster({
            apiserver: args.apiserver,
            token: flags.token,
            caCertHashes: pins,
            unsafeSkipCAVerification: flags['discovery-token-unsafe-skip-ca-verification'],
            timeoutMs,
            clock,
            onRetry: (message) => say(`discovery: ${message}; retrying`),
          }),
        );
      } catch (err) {
        const message = (err as Error).message;
        const hint = message.includes('could not find a JWS signature')
          ? 'the token id is invalid for this cluster or it has expired. Use "kubeadm token create" on the control-plane node to create a new valid token'
          : undefined;
        throw new UserError('usage', `join ${args.apiserver}: ${message}`, hint);
      }
      say(`discovery: cluster-info of ${cluster.server} is signed for the token${pins.length ? ' and its CA is pinned' : ''}`);
      makeDirectory(rootDir, 0o755);
      config.bootstrapKubeconfig ??= join(rootDir, 'bootstrap-kubelet.conf');
      config.kubeconfig ??= join(rootDir, 'kubelet.conf');
      writeFileAtomic(config.bootstrapKubeconfig, bootstrapKubeconfig(cluster, flags.token), 0o600);
      // The apiserver's client certificate (for logs, exec) is signed by the cluster's CA, as kubeadm configures clientCAFile.
      if (!config.clientCAFile) {
        makeDirectory(config.certDirectory, 0o755);
        config.clientCAFile = join(config.certDirectory, 'ca.crt');
        writeFileAtomic(config.clientCAFile, cluster.caPem, 0o644);
      }
    });
  }
}
