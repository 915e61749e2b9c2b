// The DNS configurer's result reaches the runtime as the sandbox config's
// dnsConfig, and a host resolver file that cannot be read fails the sandbox
// as the kubelet's does (FailedCreatePodSandBox).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Pod } from '../../../../src/engine/api/v1.js';
import { emptyPodStatus } from '../../../../src/engine/container/types.js';
import { EventStream, type LifecycleEvent } from '../../../../src/engine/events.js';
import { DnsConfigurer } from '../../../../src/engine/kuberuntime/dns.js';
import { RuntimeManager } from '../../../../src/engine/kuberuntime/runtime-manager.js';
import { Backoff } from '../../../../src/util/backoff.js';
import { FakeClock } from '../../../../src/util/clock.js';
import { FakeRuntimeService } from '../../../helpers/fake-runtime-service.js';

const pod: Pod = {
  metadata: { uid: 'u1', name: 'web', namespace: 'team' },
  spec: { containers: [{ name: 'main', image: 'busybox:1.36', imagePullPolicy: 'IfNotPresent' }] },
};

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function setup(resolvConf: string, readFile?: (path: string) => string) {
  dir = mkdtempSync(join(tmpdir(), 'knode-dns-'));
  const runtime = new FakeRuntimeService();
  runtime.addImage('busybox:1.36');
  const clock = new FakeClock(0);
  const events = new EventStream(() => clock.now());
  const seen: LifecycleEvent[] = [];
  events.subscribe((e) => seen.push(e));
  const dns = new DnsConfigurer({
    clusterDNS: ['10.96.0.10'],
    clusterDomain: 'cluster.local',
    resolvConf,
    nodeIPs: ['192.168.1.10'],
    events,
    readFile,
  });
  const manager = new RuntimeManager({
    runtime,
    images: runtime,
    clock,
    events,
    nodeName: 'n1',
    rootDir: dir,
    podLogsDir: join(dir, 'pods'),
    crashLoopBackOff: new Backoff(clock, 10_000, 300_000),
    imageBackOff: new Backoff(clock, 10_000, 300_000),
    hostIP: '192.168.1.10',
    dns,
  });
  return { runtime, manager, seen };
}

describe('the sandbox’s DNS config', () => {
  it('is the configurer’s, sent with RunPodSandbox', async () => {
    const { runtime, manager } = setup('/etc/resolv.conf', () => 'nameserver 192.168.1.1\nsearch corp.example\n');
    await manager.syncPod(pod, emptyPodStatus('u1', 'web', 'team'), {}, new Map());
    expect(runtime.calls('runPodSandbox').map(([config]) => config.dnsConfig)).toEqual([
      {
        servers: ['10.96.0.10'],
        searches: ['team.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'corp.example'],
        options: ['ndots:5'],
      },
    ]);
  });

  it('fails the sandbox when the host’s resolver file cannot be read', async () => {
    const { runtime, manager, seen } = setup('/no/such/resolv.conf');
    const result = await manager.syncPod(pod, emptyPodStatus('u1', 'web', 'team'), {}, new Map());
    expect(runtime.calls('runPodSandbox')).toEqual([]);
    expect(result.error()?.message).toBe('Failed to create pod sandbox: open /no/such/resolv.conf: no such file or directory');
    expect(seen.filter((e) => e.type === 'SandboxFailed').map((e) => [e.reason, e.message])).toEqual([
      ['FailedCreatePodSandBox', 'Failed to create pod sandbox: open /no/such/resolv.conf: no such file or directory'],
    ]);
  });
});
