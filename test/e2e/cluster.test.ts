// Three `knode run` nodes in a real cluster: kube-apiserver, etcd,
// kube-scheduler and kube-controller-manager on loopback (test/peers), driven
// with the real kubectl. The scheduler spreads a Deployment over the nodes;
// a node killed with -9 goes NotReady and the controller manager moves its
// pods; the node restarted rejoins without duplicating anything.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Node } from '../../src/engine/api/cluster.js';
import type { Pod } from '../../src/engine/api/v1.js';
import { freePort, startControlPlane, type ControlPlane } from '../helpers/controlplane.js';
import { cliEntry, eventually } from '../helpers/runtimes.js';
import { knode } from '../helpers/cli.js';

interface RunningNode {
  name: string;
  root: string;
  port: number;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Ages (and repeat counts' spans) change between two reads: replaced, as the column widths they move. */
function normalized(text: string): string[] {
  return text.split('\n').map((line) =>
    line
      .replace(/\b\d+(m\d+)?s\b|\b\d+m\b/g, 'AGE')
      .replace(/\s+/g, ' ')
      .trimEnd(),
  );
}

describe('knode nodes in a real cluster (scheduler, controller manager, kubectl)', () => {
  let cp: ControlPlane;
  const nodes: RunningNode[] = [];

  function startKnode(name: string, root: string, port: number): RunningNode {
    const kubeconfig = cp.nodeKubeconfig(name);
    const child = spawn(
      process.execPath,
      [
        cliEntry,
        'run',
        '--kubeconfig',
        kubeconfig,
        '--node-name',
        name,
        '--root-dir',
        root,
        '--node-ip',
        '127.0.0.1',
        '--port',
        String(port),
        '--client-ca-file',
        cp.ca,
        '--read-only-port',
        '0',
        '--output',
        'json',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { name, root, port, child, output: () => out, exited };
  }

  const podsOf = async () => (await cp.kubectlJson<{ items: Pod[] }>('get', 'pods', '-l', 'app=web')).items;
  const running = (pods: Pod[]) => pods.filter((p) => p.status?.phase === 'Running' && !p.metadata.deletionTimestamp);
  const nodeOf = (name: string) => cp.kubectlJson<Node>('get', 'node', name);
  const readyOf = async (name: string) => (await nodeOf(name)).status?.conditions?.find((c) => c.type === 'Ready')?.status;
  // Ready and untainted: the node lifecycle controller puts a not-ready:NoSchedule taint on a new node
  // and takes it off some time after the node reports Ready; until then the scheduler passes it by.
  const schedulable = async (name: string) => {
    const node = await nodeOf(name).catch(() => undefined);
    const ready = node?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
    return ready && (node?.spec?.taints ?? []).length === 0;
  };

  beforeAll(async () => {
    cp = startControlPlane({ controllers: true });
    for (const name of ['kn-1', 'kn-2', 'kn-3'])
      nodes.push(startKnode(name, mkdtempSync(join(tmpdir(), `knode-${name}-`)), await freePort()));
    await eventually(
      async () => {
        for (const n of nodes) if (!(await schedulable(n.name))) return undefined;
        return true;
      },
      'three Ready nodes without taints',
      60_000,
    );
  }, 180_000);

  afterAll(async () => {
    for (const n of nodes) {
      n.child.kill('SIGTERM');
      await n.exited;
    }
    for (const n of nodes) spawn(process.execPath, [cliEntry, 'runtime', 'stop', '--root-dir', n.root], { stdio: 'ignore' });
    cp?.stop();
  });

  it('runs a Deployment of six replicas spread by the real scheduler over the three nodes', async () => {
    // Ends at once on SIGTERM (as PID 1 of its container, a bare sleep would wait out its grace period).
    const created = await cp.kubectl(
      'create',
      'deployment',
      'web',
      '--image=busybox:1.36',
      '--replicas=6',
      '--',
      'sh',
      '-c',
      'trap "exit 143" TERM; sleep 3600 & wait',
    );
    expect(created.code, created.stderr).toBe(0);
    const pods = await eventually(
      async () => {
        const r = running(await podsOf());
        return r.length === 6 ? r : undefined;
      },
      'six Running pods',
      90_000,
    );
    const perNode = new Map<string, number>();
    for (const p of pods) perNode.set(p.spec.nodeName!, (perNode.get(p.spec.nodeName!) ?? 0) + 1);
    expect([...perNode.keys()].sort()).toEqual(['kn-1', 'kn-2', 'kn-3']);
    const wide = await cp.kubectl('get', 'pods', '-o', 'wide');
    expect(wide.stdout).toMatch(/web-\S+\s+1\/1\s+Running/);
    // Ready went False (ContainersNotReady) then True: the patch takes the old reason and message away, as the kubelet's does.
    const ready = await eventually(
      async () => {
        const all = (await podsOf()).map((p) => p.status?.conditions?.find((c) => c.type === 'Ready'));
        return all.length === 6 && all.every((c) => c?.status === 'True') ? all : undefined;
      },
      'six Ready pods',
      60_000,
    );
    for (const c of ready) expect(c).not.toHaveProperty('reason');
    for (const c of ready) expect(c).not.toHaveProperty('message');
  });

  it('describes a crash-looping pod as kubectl describe does, events included', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'crash', namespace: 'default', labels: { app: 'crash' } },
      spec: {
        nodeName: 'kn-1',
        containers: [
          {
            name: 'main',
            image: 'busybox:1.36',
            command: ['sh', '-c', 'echo dying; exit 3'],
            env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
            resources: { limits: { memory: '64Mi' } },
          },
        ],
      },
    };
    const file = join(mkdtempSync(join(tmpdir(), 'knode-manifest-')), 'm.json');
    writeFileSync(file, JSON.stringify(pod));
    expect((await cp.kubectl('apply', '-f', file)).code).toBe(0);
    const root = nodes.find((n) => n.name === 'kn-1')!.root;
    const read = async () => ({
      kubectl: (await cp.kubectl('describe', 'pod', 'crash')).stdout,
      knode: (await knode(['describe', 'pod', 'crash', '--root-dir', root])).stdout,
    });
    // The two reads must see the same restart; a restart between them is read again.
    const described = await eventually(
      async () => {
        const both = await read();
        if (!/Restart Count:\s+[1-9]/.test(both.kubectl) || !/BackOff/.test(both.kubectl)) return undefined;
        return normalized(both.kubectl).join('\n') === normalized(both.knode).join('\n') ? both : undefined;
      },
      'kubectl describe and knode describe to agree on a restarted pod',
      40_000,
    ).catch(read);
    expect(normalized(described.knode)).toEqual(normalized(described.kubectl));
    expect((await cp.kubectl('delete', 'pod', 'crash', '--grace-period=0')).code).toBe(0);
  });

  it('moves the pods of a node killed with -9 to the others, and the node rejoins without duplicates', async () => {
    const victim = nodes[2];
    const before = running(await podsOf())
      .filter((p) => p.spec.nodeName === victim.name)
      .map((p) => p.metadata.name);
    expect(before.length).toBeGreaterThan(0);
    victim.child.kill('SIGKILL');
    await victim.exited;
    await eventually(
      async () => ((await readyOf(victim.name)) === 'Unknown' ? true : undefined),
      'the killed node to be NotReady (Unknown)',
      60_000,
    );
    const moved = await eventually(
      async () => {
        const r = running(await podsOf());
        return r.length === 6 && r.every((p) => p.spec.nodeName !== victim.name) ? r : undefined;
      },
      'six Running pods on the two live nodes',
      120_000,
    );
    expect(moved.map((p) => p.metadata.name)).not.toEqual(expect.arrayContaining(before));

    // The same node again: same name, same root dir (its runtime still runs the old containers).
    nodes[2] = startKnode(victim.name, victim.root, victim.port);
    await eventually(async () => ((await readyOf(victim.name)) === 'True' ? true : undefined), 'the node to be Ready again', 60_000);
    // Its evicted pods were deleted while it was away: it stops their containers and they leave the apiserver.
    await eventually(
      async () => {
        const all = await podsOf();
        return all.length === 6 && running(all).length === 6 ? true : undefined;
      },
      'exactly six pods, all Running',
      60_000,
    );
    const names = (await podsOf()).map((p) => p.metadata.name);
    expect(new Set(names).size).toBe(6);
  });
});
