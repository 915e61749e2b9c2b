// How long a PLEG relist takes with N containers in the runtime: the first
// relist (every pod new, so each pod's status is read) and the steady one
// (nothing changed: two list calls and the diff).
import { randomUUID } from 'node:crypto';
import { CriClient } from '../src/cri/client.js';
import { KubeletLabels } from '../src/cri/types.js';
import { EventStream } from '../src/engine/events.js';
import { RealClock } from '../src/util/clock.js';
import { RuntimeManager } from '../src/engine/kuberuntime/runtime-manager.js';
import { NodeNameLabel } from '../src/engine/kuberuntime/labels.js';
import { GenericPLEG } from '../src/engine/pleg/generic.js';
import { PodCache } from '../src/engine/pleg/pod-cache.js';
import type { BenchRuntime } from './runtimes.js';

export interface RelistFigures {
  runtime: string;
  containers: number;
  firstMs: number;
  steady: number[];
}

const PER_POD = 10;

export async function benchRelist(rt: BenchRuntime, containers: number): Promise<RelistFigures> {
  const client = new CriClient(rt.endpoint);
  const nodeName = `bench-relist-${containers}-${Date.now()}`;
  if (!(await client.imageStatus({ image: 'busybox:1.36' }))) await client.pullImage({ image: 'busybox:1.36' });
  const sandboxes: string[] = [];
  for (let p = 0; p < Math.ceil(containers / PER_POD); p++) {
    const uid = randomUUID();
    const labels = {
      [KubeletLabels.podName]: `relist-${p}`,
      [KubeletLabels.podNamespace]: 'bench',
      [KubeletLabels.podUid]: uid,
      [NodeNameLabel]: nodeName,
    };
    const config = {
      metadata: { name: `relist-${p}`, namespace: 'bench', uid, attempt: 0 },
      labels,
      linux: { securityContext: { namespaceOptions: { network: 'NODE' as const, pid: 'CONTAINER' as const } } },
    };
    const sb = await client.runPodSandbox(config);
    sandboxes.push(sb);
    for (let c = 0; c < Math.min(PER_POD, containers - p * PER_POD); c++) {
      await client.createContainer(
        sb,
        {
          metadata: { name: `c${c}` },
          image: { image: 'busybox:1.36' },
          command: ['sleep', '3600'],
          labels: { ...labels, [KubeletLabels.containerName]: `c${c}` },
        },
        config,
      );
    }
  }
  const clock = new RealClock();
  const events = new EventStream(() => clock.now());
  const runtime = RuntimeManager.standalone(client, { nodeName, rootDir: '/tmp', podLogsDir: '/tmp' }, events);
  const durations: number[] = [];
  events.subscribe((e) => {
    if (e.type === 'PLEGRelist' && e.detail && 'durationMs' in e.detail) durations.push(e.detail.durationMs);
  });
  const pleg = new GenericPLEG({
    runtime,
    cache: new PodCache(),
    clock,
    events,
    onEvent: () => {},
    period: () => 1_000,
    relistThreshold: 180_000,
  });
  for (let i = 0; i < 31; i++) await pleg.relist();
  for (const sb of sandboxes) await client.removePodSandbox(sb);
  client.close();
  return { runtime: rt.name, containers, firstMs: durations[0], steady: durations.slice(1) };
}
