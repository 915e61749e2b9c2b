// A StatefulSet through `knode run` as a user runs it: bin/run.js with the
// embedded runtime it starts by itself, the set's pods coming up in order,
// each writing into its own claim, and the claims outliving a scale to 0.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CriClient } from '../../src/cri/client.js';
import { knode } from '../helpers/cli.js';
import { cliEntry, eventually } from '../helpers/runtimes.js';

const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await knode(['runtime', 'stop', '--root-dir', root]);
});

const manifest = (replicas: number) => `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  replicas: ${replicas}
  serviceName: web
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: main
          image: busybox:1.36
          command: ["sh", "-c", "echo written > $KNODE_MOUNT_DATA/file; sleep 600"]
          volumeMounts: [{ name: data, mountPath: /data }]
  volumeClaimTemplates:
    - metadata: { name: data }
      spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 1Gi } } }
`;

describe('a StatefulSet on knode run', () => {
  it('brings web-0 up before web-1, each writing into its claim, and keeps the claims after a scale to 0 (a pod with a missing claim waits)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'knode-e2e-sts-'));
    roots.push(root);
    const manifests = join(root, 'manifests');
    mkdirSync(manifests);
    const file = join(manifests, 'web.yaml');
    writeFileSync(file, manifest(2));
    writeFileSync(
      join(manifests, 'waiter.yaml'),
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: waiter\nspec:\n  containers:\n    - name: main\n      image: busybox:1.36\n      command: ["sleep", "600"]\n  volumes:\n    - name: data\n      persistentVolumeClaim: { claimName: nope }\n',
    );
    const child = spawn(process.execPath, [cliEntry, 'run', '--static-dir', manifests, '--root-dir', root, '--node-name', 'e2e'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      await eventually(
        () => /PodRunning +default\/web-1\b/.test(out),
        () => `web-1 to run; output:\n${out}`,
        60_000,
      );
      const running0 = out.search(/PodRunning +default\/web-0\b/);
      expect(running0).toBeGreaterThanOrEqual(0);
      expect(out.search(/default\/web-1\b/)).toBeGreaterThan(running0);
      // A pod naming a claim that does not exist waits, as the kubelet's volume manager has it wait.
      await eventually(
        () => /default\/waiter-e2e +\[FailedMount\] .*persistentvolumeclaims "nope" not found/.test(out),
        () => `waiter's FailedMount; output:\n${out}`,
      );
      expect(out).not.toMatch(/ContainerStarted +default\/waiter-e2e/);
      const claim = (n: number) => join(root, 'claims', 'default', `data-web-${n}`, 'file');
      for (const n of [0, 1])
        expect(
          await eventually(() => existsSync(claim(n)) && readFileSync(claim(n), 'utf8'), `web-${n} to write into its claim`, 30_000),
        ).toBe('written\n');

      writeFileSync(file, manifest(0));
      // The highest ordinal goes first, then the next; the claims and their files stay.
      await eventually(
        () => /PodDeleted +default\/web-0\b/.test(out),
        () => `web-0 to be deleted; output:\n${out}`,
        60_000,
      );
      expect(out.search(/PodDeleted +default\/web-1\b/)).toBeGreaterThanOrEqual(0);
      expect(out.search(/PodDeleted +default\/web-1\b/)).toBeLessThan(out.search(/PodDeleted +default\/web-0\b/));
      const client = new CriClient(`unix://${join(root, 'run', 'runtime.sock')}`);
      await eventually(
        async () => (await client.listContainers({ state: { state: 'CONTAINER_RUNNING' } })).length === 0,
        'the containers to stop',
        30_000,
      );
      client.close();
      for (const n of [0, 1]) expect(readFileSync(claim(n), 'utf8')).toBe('written\n');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
