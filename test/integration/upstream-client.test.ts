// The embedded runtime answers a client built from upstream's full api.proto
// (k8s.io/cri-api), not only knode's own subset: fields we do not declare are
// skipped, and the answers decode with upstream's definitions.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upstreamProtoPath } from '../helpers/upstream-cri.js';
import { eventually, startEmbeddedRuntime, type EmbeddedRuntimeProcess } from '../helpers/runtimes.js';

type Callable = Record<string, (req: object, cb: (err: grpc.ServiceError | null, res: any) => void) => void>; // eslint-disable-line @typescript-eslint/no-explicit-any

let runtime: EmbeddedRuntimeProcess;
let rt: grpc.Client & Callable;
let img: grpc.Client & Callable;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the upstream client's replies are untyped JSON
function call(client: Callable, method: string, req: object): Promise<any> {
  return new Promise((resolve, reject) => client[method].call(client, req, (err, res) => (err ? reject(err) : resolve(res))));
}

beforeAll(async () => {
  runtime = await startEmbeddedRuntime();
  const path = upstreamProtoPath();
  const def = protoLoader.loadSync(path, { keepCase: true, longs: String, enums: String, defaults: true, includeDirs: [dirname(path)] });
  const pkg = grpc.loadPackageDefinition(def) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
  rt = new pkg.runtime.v1.RuntimeService(runtime.endpoint, grpc.credentials.createInsecure());
  img = new pkg.runtime.v1.ImageService(runtime.endpoint, grpc.credentials.createInsecure());
});

afterAll(async () => {
  rt.close();
  img.close();
  await runtime.stop();
});

describe('a client built from upstream cri-api', () => {
  it('runs a pod described with fields knode does not declare', async () => {
    expect((await call(rt, 'Version', { version: 'v1' })).runtime_api_version).toBe('v1');
    await call(img, 'PullImage', { image: { image: 'busybox:1.36', user_specified_image: 'busybox:1.36' } });
    const config = {
      metadata: { name: 'upstream', uid: randomUUID(), namespace: 'default', attempt: 0 },
      log_directory: mkdtempSync(join(tmpdir(), 'knode-up-')),
      labels: { app: 'upstream' },
      linux: {
        cgroup_parent: '/kubepods',
        security_context: {
          namespace_options: { network: 'NODE', userns_options: { mode: 'NODE' } },
          seccomp: { profile_type: 'RuntimeDefault' },
        },
        resources: { cpu_shares: 2, memory_limit_in_bytes: '67108864' },
      },
    };
    const { pod_sandbox_id } = await call(rt, 'RunPodSandbox', { config, runtime_handler: '' });
    const { container_id } = await call(rt, 'CreateContainer', {
      pod_sandbox_id,
      sandbox_config: config,
      config: {
        metadata: { name: 'main', attempt: 0 },
        image: { image: 'busybox:1.36' },
        command: ['sh', '-c', 'echo "$VALUE"'],
        envs: [{ key: 'VALUE', value: Buffer.from('from upstream') }],
        log_path: 'main/0.log',
        CDI_devices: [{ name: 'vendor.com/device=none' }],
        linux: {
          resources: { cpu_quota: '50000', unified: { 'memory.high': 'max' } },
          security_context: { masked_paths: ['/proc/kcore'], no_new_privs: true },
        },
        stop_signal: 'SIGNAL_SIGINT',
      },
    });
    await call(rt, 'StartContainer', { container_id });
    const status = await eventually(async () => {
      const res = await call(rt, 'ContainerStatus', { container_id, verbose: false });
      return res.status.state === 'CONTAINER_EXITED' ? res.status : undefined;
    }, 'the container to exit');
    expect(status.exit_code).toBe(0);
    expect(status.reason).toBe('Completed');
    expect(status.stop_signal).toBe('SIGNAL_SIGINT');
    const sandboxes = await call(rt, 'ListPodSandbox', { filter: { label_selector: { app: 'upstream' } } });
    expect(sandboxes.items.map((s: { id: string }) => s.id)).toEqual([pod_sandbox_id]);
    await call(rt, 'RemovePodSandbox', { pod_sandbox_id });
  });
});
