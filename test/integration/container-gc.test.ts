// The container garbage collector through real gRPC, on every runtime: dead
// containers beyond the newest of each name go with their log files, a pod
// that is gone loses its dead sandbox and its log directory, another node's
// pods on the same runtime are left alone.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CriClient } from '../../src/cri/client.js';
import { KubeletLabels, type PodSandboxConfig } from '../../src/cri/types.js';
import { EventStream } from '../../src/engine/events.js';
import { ContainerGC, DEFAULT_GC_POLICY } from '../../src/engine/kuberuntime/container-gc.js';
import { NodeNameLabel } from '../../src/engine/kuberuntime/labels.js';
import { RuntimeManager } from '../../src/engine/kuberuntime/runtime-manager.js';
import { Backoff } from '../../src/util/backoff.js';
import { RealClock } from '../../src/util/clock.js';
import { containerConfig, ensureImage, logPathOf, sandboxConfig, waitExited } from '../helpers/cri.js';
import { nodesOn, sleepUntilTerm } from '../helpers/node.js';
import { eventually, runtimesUnderTest } from '../helpers/runtimes.js';
import { SkewClock } from '../helpers/skew-clock.js';

describe.each(runtimesUnderTest())('container garbage collection on the $name runtime', (runtime) => {
  let client: CriClient;
  let cleanup: () => Promise<void>;
  const sandboxes: string[] = [];
  const node = `gc-node-${process.pid}`;
  /** The pods' log directories, `<namespace>_<name>_<uid>` as the kubelet's /var/log/pods. */
  const podLogsDir = mkdtempSync(join(tmpdir(), 'knode-gc-pods-'));

  beforeAll(async () => {
    const started = await runtime.start();
    cleanup = started.cleanup;
    client = new CriClient(started.endpoint);
    await ensureImage(client);
  });

  afterAll(async () => {
    for (const id of sandboxes) await client.removePodSandbox(id).catch(() => {});
    client.close();
    rmSync(podLogsDir, { recursive: true, force: true });
    await cleanup();
  });

  /** A pod of NODE whose container NAME ran to its end ATTEMPTS times; the sandbox is stopped when STOP says so. */
  async function podWithDeadContainers(name: string, nodeName: string, attempts: number, stop: boolean) {
    const base = sandboxConfig(name);
    const uid = base.metadata!.uid!;
    base.logDirectory = join(podLogsDir, `knode-test_${name}_${uid}`);
    const labels = {
      [NodeNameLabel]: nodeName,
      [KubeletLabels.podUid]: uid,
      [KubeletLabels.podName]: name,
      [KubeletLabels.podNamespace]: 'knode-test',
    };
    const config: PodSandboxConfig = { ...base, labels: { ...base.labels, ...labels } };
    const sandboxId = await client.runPodSandbox(config);
    sandboxes.push(sandboxId);
    const ids: string[] = [];
    for (let attempt = 0; attempt < attempts; attempt++) {
      const c = containerConfig('app', ['sh', '-c', `echo attempt ${attempt}`], {
        metadata: { name: 'app', attempt },
        logPath: `app/${attempt}.log`,
        labels: { ...labels, [KubeletLabels.containerName]: 'app' },
      });
      const id = await client.createContainer(sandboxId, c, config);
      await client.startContainer(id);
      await waitExited(client, id);
      ids.push(id);
    }
    if (stop) await client.stopPodSandbox(sandboxId);
    return {
      uid,
      sandboxId,
      ids,
      logDir: config.logDirectory!,
      logPath: (attempt: number) => logPathOf(config, { logPath: `app/${attempt}.log` }),
    };
  }

  it('keeps the newest dead instance of a live pod, and removes all of a pod that is gone, logs included', async () => {
    const live = await podWithDeadContainers('gc-live', node, 3, false);
    const gone = await podWithDeadContainers('gc-gone', node, 1, true);
    const other = await podWithDeadContainers('gc-other-node', `${node}-other`, 2, true);
    const clock = new RealClock();
    const manager = new RuntimeManager({
      runtime: client,
      images: client,
      clock,
      events: new EventStream(() => clock.now()),
      nodeName: node,
      rootDir: '/nonexistent',
      podLogsDir,
      crashLoopBackOff: new Backoff(clock, 10_000, 300_000),
      imageBackOff: new Backoff(clock, 10_000, 300_000),
      hostIP: '127.0.0.1',
    });
    const gc = new ContainerGC({
      runtime: client,
      removeContainer: (id) => manager.removeContainer(id),
      podState: { shouldPodContentBeRemoved: (uid) => uid === gone.uid, shouldPodRuntimeBeRemoved: (uid) => uid === gone.uid },
      clock,
      nodeName: node,
      podLogsDir,
    });
    const result = await gc.garbageCollect(DEFAULT_GC_POLICY, true);
    expect(result.failures).toEqual([]);

    const containers = new Set((await client.listContainers()).map((c) => c.id));
    expect(live.ids.map((id) => containers.has(id))).toEqual([false, false, true]);
    expect(existsSync(live.logPath(0)) || existsSync(live.logPath(1))).toBe(false);
    expect(readdirSync(dirname(live.logPath(2)))).toEqual(['2.log']);
    expect(containers.has(gone.ids[0])).toBe(false);
    const sandboxIds = new Set((await client.listPodSandbox()).map((s) => s.id));
    expect([sandboxIds.has(live.sandboxId), sandboxIds.has(gone.sandboxId)]).toEqual([true, false]);
    expect(existsSync(gone.logDir)).toBe(false);
    // Another node's dead containers and stopped sandbox stay, whatever this node's policy says.
    expect(other.ids.every((id) => containers.has(id))).toBe(true);
    expect(sandboxIds.has(other.sandboxId)).toBe(true);
    expect(result).toMatchObject({ containers: 3, sandboxes: 1, logDirectories: 1 });
  }, 60_000);
});

describe.each(runtimesUnderTest().filter((r) => r.kind === 'embedded'))('the kubelet collecting on the $name runtime', (runtime) => {
  const nodes = nodesOn(runtime);

  it("removes a deleted pod's log directory at its next collection, and keeps a running pod's", async () => {
    const clock = new SkewClock();
    try {
      const node = await nodes.start({ clock });
      const podLogsDir = node.kubelet.config.podLogsDir;
      node.writePod('stays', { containers: [{ name: 'app', image: 'busybox:1.36', command: sleepUntilTerm() }] });
      node.writePod('goes', { containers: [{ name: 'app', image: 'busybox:1.36', command: sleepUntilTerm() }] });
      for (const name of ['stays', 'goes']) await node.waitForPod(name, 'Running', (p) => p.status?.phase === 'Running');
      const dirOf = (name: string) => readdirSync(podLogsDir).find((d) => d.startsWith(`default_${name}-${node.nodeName}_`));
      expect([dirOf('stays'), dirOf('goes')].every(Boolean)).toBe(true);

      node.removePod('goes');
      await eventually(() => !node.pod('goes'), 'the pod removed');
      await eventually(() => node.events.some((e) => e.type === 'PodRemoved' && e.pod.includes('goes')) || undefined, 'its worker done');
      // The collection every minute, on the node's clock; it says what it removed once done.
      const collected = () => node.events.find((e) => e.type === 'ContainerGarbageCollected' && e.detail.logDirectories >= 1) !== undefined;
      await eventually(
        () => {
          if (!collected()) clock.skip(60_000);
          return collected();
        },
        () =>
          `a collection (events: ${node.events
            .filter((e) => e.type.startsWith('Container'))
            .map((e) => e.message)
            .join('; ')})`,
      );
      expect(dirOf('goes')).toBeUndefined();
      expect(dirOf('stays')).toBeDefined();
    } finally {
      clock.dispose();
    }
  }, 60_000);

  it('keeps one dead instance of a failing init container between its runs, before any collection', async () => {
    const clock = new SkewClock();
    try {
      const node = await nodes.start({ clock });
      node.writePod('init-loop', {
        initContainers: [{ name: 'prep', image: 'busybox:1.36', command: ['sh', '-c', 'exit 1'] }],
        containers: [{ name: 'app', image: 'busybox:1.36', command: sleepUntilTerm() }],
      });
      const prep = () => node.pod('init-loop')?.status?.initContainerStatuses?.[0];
      // Its second restart comes after a 10 s back-off, skipped once on the node's clock: 20 s of it, so the
      // collection every minute does not come.
      let skippedAt = -1;
      await eventually(
        () => {
          const restarts = prep()?.restartCount ?? 0;
          // In its back-off it shows terminated, then CrashLoopBackOff (the sync that met the back-off).
          if (restarts >= 1 && !prep()?.state?.running && skippedAt !== restarts) {
            skippedAt = restarts;
            clock.skip(20_000);
          }
          return restarts >= 2;
        },
        () => `two restarts of the init container (${JSON.stringify(prep())})`,
      );
      let seen = '';
      // Three runs so far; the sync after each exit leaves only the newest.
      await eventually(
        async () => {
          const instances = await node.client.listContainers({ labelSelector: { [KubeletLabels.containerName]: 'prep' } });
          seen = instances.map((c) => `${c.metadata?.attempt} ${c.state}`).join(', ');
          return instances.length === 1 && instances[0].state === 'CONTAINER_EXITED';
        },
        () => `one dead instance of the init container (${seen})`,
      );
      // Not the collector's doing: it removed no container meanwhile.
      const collections = node.events.filter((e) => e.type === 'ContainerGarbageCollected');
      expect(collections.map((e) => e.message ?? '').filter((m) => !m.startsWith('removed 0 dead containers'))).toEqual([]);
    } finally {
      clock.dispose();
    }
  }, 60_000);
});
