// Probes through the real path: the embedded runtime runs the containers, the
// test runs the listeners they are probed against (HTTP, TCP, gRPC health),
// and the kubelet's clock is skipped rather than slept.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CriClient } from '../../src/cri/client.js';
import { protoRoot } from '../../src/cri/proto.js';
import { podRow } from '../../src/engine/api/printers.js';
import type { Pod } from '../../src/engine/api/v1.js';
import type { KubeletConfiguration } from '../../src/engine/config/kubelet-config.js';
import { ensureImage } from '../helpers/cri.js';
import { containerOf, sleepUntilTerm, startNode, type TestNode } from '../helpers/node.js';
import { eventually, startEmbeddedRuntime, type EmbeddedRuntimeProcess } from '../helpers/runtimes.js';
import { SkewClock } from '../helpers/skew-clock.js';

const image = 'busybox:1.36';
let runtime: EmbeddedRuntimeProcess;
let node: TestNode | undefined;
let clock: SkewClock;
const closers: (() => void)[] = [];

beforeAll(async () => {
  runtime = await startEmbeddedRuntime();
  const client = new CriClient(runtime.endpoint);
  await ensureImage(client);
  client.close();
});
afterEach(async () => {
  await node?.stop();
  node = undefined;
  clock.dispose();
  for (const close of closers.splice(0)) close();
});
afterAll(async () => runtime.stop());

async function start(config: Partial<KubeletConfiguration> = {}): Promise<TestNode> {
  clock = new SkewClock();
  node = await startNode(runtime.endpoint, { clock, config });
  return node;
}

const ready = (p: Pod) => p.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
const notReady = (p: Pod) => p.status?.phase === 'Running' && !ready(p);

/** Advances the kubelet's clock one probe period at a time until `check` holds. */
async function probeUntil<T>(what: string, check: () => T | undefined | false, periodMs = 1_000): Promise<T> {
  return eventually(
    () => {
      const value = check();
      if (!value) clock.skip(periodMs);
      return value;
    },
    what,
    20_000,
  );
}

describe('probes', () => {
  it('an HTTP readiness probe makes the pod Ready on 2xx and not Ready after failureThreshold failures', async () => {
    let status = 500;
    const server = createHttpServer((req, res) => {
      res.statusCode = status;
      res.end(req.headers['x-probe'] ?? '');
    });
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    closers.push(() => server.close());
    const port = (server.address() as AddressInfo).port;
    const n = await start();
    n.writePod('web', {
      containers: [
        {
          name: 'main',
          image,
          command: ['sleep', '300'],
          ports: [{ name: 'http', containerPort: port }],
          readinessProbe: {
            httpGet: { path: '/healthz', port: 'http', httpHeaders: [{ name: 'X-Probe', value: 'knode' }] },
            periodSeconds: 1,
            failureThreshold: 2,
          },
        },
      ],
    });
    const unready = await n.waitForPod('web', 'Running but not Ready', notReady);
    expect(containerOf(unready, 'main')!.ready).toBe(false);
    expect(unready.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      reason: 'ContainersNotReady',
      message: 'containers with unready status: [main]',
    });

    status = 200;
    await probeUntil('Ready', () => ready(n.pod('web')!));
    status = 503;
    await probeUntil('not Ready again', () => notReady(n.pod('web')!));
    expect(
      n.events.some(
        (e) => e.type === 'ProbeFailed' && /Readiness probe failed: HTTP probe failed with statuscode: 503/.test(e.message ?? ''),
      ),
    ).toBe(true);
    expect(containerOf(n.pod('web')!, 'main')!.restartCount).toBe(0);
  });

  it('a failing exec liveness probe restarts the container after failureThreshold failures', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'knode-live-'));
    const n = await start();
    n.writePod('live', {
      containers: [
        {
          name: 'main',
          image,
          command: ['sh', '-c', `trap "exit 143" TERM; touch ${dir}/alive; sleep 300 & wait`],
          livenessProbe: { exec: { command: ['test', '-f', `${dir}/alive`] }, periodSeconds: 1, failureThreshold: 3 },
        },
      ],
    });
    await n.waitForPod('live', 'Running', (p) => p.status?.phase === 'Running' && existsSync(join(dir, 'alive')));
    rmSync(join(dir, 'alive'));
    await probeUntil('a restart', () => (containerOf(n.pod('live')!, 'main')?.restartCount ?? 0) >= 1);
    const failures = n.events.filter((e) => e.type === 'ProbeFailed' && e.container === 'main');
    expect(failures.length).toBeGreaterThanOrEqual(3);
    expect(failures[0].message).toMatch(/^Liveness probe failed/);
    expect(n.events.some((e) => e.type === 'ContainerKilling' && /failed liveness probe, will be restarted/.test(e.message ?? ''))).toBe(
      true,
    );
    // The new instance touched the file again, so it stays alive.
    await n.waitForPod('live', 'running again', (p) => !!containerOf(p, 'main')?.state?.running);
  });

  it('restarts after liveness kills are backed off: at once twice, then CrashLoopBackOff 10s, then 20s', async () => {
    // Relisting every second, a probe's verdict reaches the sync within a second, as in the kubelet.
    const n = await start({ eventedPleg: false });
    n.writePod('live-fail', {
      containers: [
        {
          // Ends at once on SIGTERM, so each kill takes no grace period.
          name: 'main',
          image,
          command: sleepUntilTerm(3600),
          livenessProbe: { exec: { command: ['false'] }, periodSeconds: 1, failureThreshold: 1 },
        },
      ],
    });
    await n.waitForPod('live-fail', 'Running', (p) => p.status?.phase === 'Running');
    const isBackOff = (seconds: number) => (e: (typeof n.events)[number]) =>
      e.type === 'ContainerWaiting' && e.reason === 'CrashLoopBackOff' && !!e.message?.startsWith(`back-off ${seconds}s `);
    /** Restarts before the first back-off of `seconds`. */
    const restartsBeforeBackOff = async (seconds: number) => {
      // The runtime's finish times are real: time skipped while the node works (a container
      // stops, a sync waits for a relist) would count as back-off served. So the kubelet's
      // clock moves in small steps, and only while the node is idle.
      let seen = -1;
      await eventually(
        () => {
          if (n.events.some(isBackOff(seconds))) return true;
          const busy = n.events.filter((e) => e.type !== 'PLEGRelist' && e.type !== 'PLEGEvent' && e.type !== 'PodSynced').length;
          if (busy === seen) clock.skip(250);
          seen = busy;
          return false;
        },
        `a ${seconds}s back-off`,
        30_000,
      );
      const before = n.events.slice(0, n.events.findIndex(isBackOff(seconds)));
      return before.filter((e) => e.type === 'ContainerStarted' && e.container === 'main').length - 1;
    };
    expect(await restartsBeforeBackOff(10)).toBe(2);
    expect(await restartsBeforeBackOff(20)).toBe(3);
    expect(n.events.filter((e) => e.type === 'ContainerKilling' && /failed liveness probe/.test(e.message ?? '')).length).toBe(4);
  });

  it('a sidecar with a startup probe holds back the main container until the probe succeeds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'knode-sidecar-'));
    const n = await start();
    n.writePod('sidecar-startup', {
      initContainers: [
        {
          name: 'proxy',
          image,
          restartPolicy: 'Always',
          command: sleepUntilTerm(3600),
          startupProbe: { exec: { command: ['test', '-f', `${dir}/started`] }, periodSeconds: 1, failureThreshold: 100 },
        },
      ],
      containers: [{ name: 'main', image, command: ['sleep', '300'] }],
    });
    await n.waitForPod('sidecar-startup', 'with its sidecar running', (p) => !!containerOf(p, 'proxy')?.state?.running);
    await probeUntil(
      'startup probe failures',
      () => n.events.filter((e) => e.type === 'ProbeFailed' && e.container === 'proxy').length >= 3,
    );
    const waiting = n.pod('sidecar-startup')!;
    expect(podRow(waiting).status).toBe('Init:0/1');
    expect(waiting.status?.phase).toBe('Pending');
    expect(waiting.status?.conditions?.find((c) => c.type === 'Initialized')).toMatchObject({
      status: 'False',
      message: 'containers with incomplete status: [proxy]',
    });
    expect(containerOf(waiting, 'proxy')).toMatchObject({ started: false, restartCount: 0 });
    expect(n.events.some((e) => e.type === 'ContainerCreated' && e.container === 'main')).toBe(false);

    writeFileSync(join(dir, 'started'), '');
    const running = await probeUntil('the main container running', () => {
      const p = n.pod('sidecar-startup')!;
      return containerOf(p, 'main')?.state?.running ? p : undefined;
    });
    expect(running.status?.conditions?.find((c) => c.type === 'Initialized')?.status).toBe('True');
    expect(containerOf(running, 'proxy')).toMatchObject({ started: true, restartCount: 0 });
  });

  it('a sidecar whose startup probe fails is restarted, and the main container does not start', async () => {
    const n = await start({ eventedPleg: false });
    n.writePod('sidecar-startup-fail', {
      initContainers: [
        {
          name: 'proxy',
          image,
          restartPolicy: 'Always',
          command: sleepUntilTerm(3600),
          startupProbe: { exec: { command: ['false'] }, periodSeconds: 1, failureThreshold: 2 },
        },
      ],
      containers: [{ name: 'main', image, command: ['sleep', '300'] }],
    });
    await probeUntil('a restart of the sidecar', () => (containerOf(n.pod('sidecar-startup-fail')!, 'proxy')?.restartCount ?? 0) >= 1);
    expect(
      n.events.some(
        (e) =>
          e.type === 'ContainerKilling' && e.container === 'proxy' && /Init container proxy failed startup probe/.test(e.message ?? ''),
      ),
    ).toBe(true);
    expect(n.events.some((e) => e.type === 'ContainerCreated' && e.container === 'main')).toBe(false);
    expect(podRow(n.pod('sidecar-startup-fail')!).status).toMatch(/^Init:/);
  });

  it('a TCP readiness probe follows whether the port accepts connections', async () => {
    const server: Server = createTcpServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    const port = (server.address() as AddressInfo).port;
    const n = await start();
    n.writePod('tcp', {
      containers: [
        { name: 'main', image, command: ['sleep', '300'], readinessProbe: { tcpSocket: { port }, periodSeconds: 1, failureThreshold: 1 } },
      ],
    });
    await probeUntil('Ready', () => ready(n.pod('tcp') ?? { metadata: {}, spec: { containers: [] } }));
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await probeUntil('not Ready once the port is closed', () => notReady(n.pod('tcp')!));
  });

  it('a gRPC readiness probe asks the standard health service', async () => {
    let serving = 'NOT_SERVING';
    const def = protoLoader.loadSync('grpc/health/v1/health.proto', { enums: String, includeDirs: [protoRoot] });
    const pkg = grpc.loadPackageDefinition(def) as unknown as { grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } } };
    const server = new grpc.Server();
    const services: string[] = [];
    server.addService(pkg.grpc.health.v1.Health.service, {
      Check: (call: grpc.ServerUnaryCall<{ service: string }, unknown>, cb: grpc.sendUnaryData<unknown>) => {
        services.push(call.request.service);
        cb(null, { status: serving });
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('0.0.0.0:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
    );
    closers.push(() => server.forceShutdown());
    const n = await start();
    n.writePod('grpc', {
      containers: [
        {
          name: 'main',
          image,
          command: ['sleep', '300'],
          readinessProbe: { grpc: { port, service: 'knode.test' }, periodSeconds: 1, failureThreshold: 1 },
        },
      ],
    });
    await n.waitForPod('grpc', 'Running but not Ready', notReady);
    const failed = await probeUntil('a NOT_SERVING answer', () => n.events.find((e) => e.type === 'ProbeFailed'));
    expect(failed.message).toBe('Readiness probe failed: service unhealthy (responded with "NOT_SERVING")');
    expect(services).toContain('knode.test');
    serving = 'SERVING';
    await probeUntil('Ready', () => ready(n.pod('grpc')!));
  });

  it('a startup probe holds back liveness and readiness until it succeeds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'knode-startup-'));
    const n = await start();
    n.writePod('slow', {
      containers: [
        {
          name: 'main',
          image,
          command: ['sleep', '300'],
          startupProbe: { exec: { command: ['test', '-f', `${dir}/started`] }, periodSeconds: 1, failureThreshold: 100 },
          readinessProbe: { exec: { command: ['true'] }, periodSeconds: 1 },
          livenessProbe: { exec: { command: ['test', '-f', `${dir}/alive`] }, periodSeconds: 1, failureThreshold: 1 },
        },
      ],
    });
    await n.waitForPod('slow', 'Running', (p) => p.status?.phase === 'Running');
    for (let i = 0; i < 3; i++) {
      clock.skip(1_000);
      await new Promise((r) => setTimeout(r, 100));
    }
    const pod = n.pod('slow')!;
    expect(containerOf(pod, 'main')).toMatchObject({ started: false, ready: false, restartCount: 0 });
    expect(n.events.some((e) => e.type === 'ProbeFailed' && e.detail?.probe === 'liveness')).toBe(false);
    expect(n.events.some((e) => e.type === 'ProbeFailed' && e.detail?.probe === 'startup')).toBe(true);

    writeFileSync(join(dir, 'alive'), '');
    writeFileSync(join(dir, 'started'), '');
    await probeUntil('started and Ready', () => {
      const c = containerOf(n.pod('slow')!, 'main');
      return c?.started && c.ready;
    });
    expect(containerOf(n.pod('slow')!, 'main')!.restartCount).toBe(0);
  });
});
