// maxParallelSandboxStarts through the real path: a node on the embedded
// runtime whose CNI network hangs for one pod (a plugin that waits for a
// file before it hands over to Debian's bridge plugin), and the kubelet's
// clock skipped rather than slept. One sandbox at a time: the pod behind the
// hanging one waits for its turn, and gets it once the hanging one has held
// it for the hold time, not when the network plugin gives up.
import { spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CriClient } from '../../src/cri/client.js';
import { SANDBOX_START_HOLD } from '../../src/engine/kuberuntime/runtime-manager.js';
import { ensureImage } from '../helpers/cri.js';
import { mirrorConfig, startRegistry, type LocalRegistry } from '../helpers/registry.js';
import { sleepUntilTerm, startNode, type TestNode } from '../helpers/node.js';
import { eventually, startEmbeddedRuntime, type EmbeddedRuntimeProcess } from '../helpers/runtimes.js';
import { SkewClock } from '../helpers/skew-clock.js';

let root: string;
let registry: LocalRegistry | undefined;
let runtime: EmbeddedRuntimeProcess;
let node: TestNode | undefined;
const clock = new SkewClock();

/** The plugin: logs each ADD's pod, waits for the release file when the pod is `stuck-*`, then runs the bridge plugin on the same config. */
const holdPlugin = (dir: string) => `#!/bin/sh
input=$(cat)
pod=$(echo "$CNI_ARGS" | tr ';' '\\n' | sed -n 's/^K8S_POD_NAME=//p')
if [ "$CNI_COMMAND" = ADD ]; then
  echo "$pod" >> ${dir}/adds
  case "$pod" in stuck-*) while [ ! -e ${dir}/release ]; do sleep 0.05; done ;; esac
fi
for d in $(echo "$CNI_PATH" | tr ':' ' '); do
  if [ -x "$d/bridge" ]; then printf '%s' "$input" | "$d/bridge"; exit $?; fi
done
echo '{"code": 999, "msg": "no bridge plugin in CNI_PATH"}'
exit 1
`;

const adds = () => (existsSync(join(root, 'adds')) ? readFileSync(join(root, 'adds'), 'utf8').split('\n').filter(Boolean) : []);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'knode-sandbox-starts-'));
  const bin = join(root, 'cni-bin');
  const conf = join(root, 'cni-conf');
  mkdirSync(bin);
  mkdirSync(conf);
  mkdirSync(join(root, 'runtime'));
  // A pod network needs sandboxes, and sandboxes real images: busybox from the local registry.
  registry = startRegistry();
  writeFileSync(join(root, 'runtime', 'registries.yaml'), mirrorConfig(registry.host));
  writeFileSync(join(bin, 'hold'), holdPlugin(root));
  chmodSync(join(bin, 'hold'), 0o755);
  writeFileSync(
    join(conf, '10-hold.conflist'),
    JSON.stringify({
      cniVersion: '1.0.0',
      name: 'knode-hold',
      plugins: [
        {
          type: 'hold',
          bridge: 'knode-hold0',
          isGateway: true,
          ipMasq: false,
          ipam: { type: 'host-local', ranges: [[{ subnet: '10.88.7.0/24' }]], dataDir: join(root, 'ipam') },
        },
      ],
    }),
  );
  runtime = await startEmbeddedRuntime(join(root, 'runtime'), [
    '--cni-conf-dir',
    conf,
    '--cni-bin-dir',
    `${bin},/usr/lib/cni,/opt/cni/bin`,
  ]);
  const client = new CriClient(runtime.endpoint);
  await ensureImage(client);
  client.close();
}, 180_000);

afterAll(async () => {
  // Whatever still waits in the plugin goes on, so the runtime can stop.
  if (root) appendFileSync(join(root, 'release'), '');
  await node?.stop();
  // A pod's network namespace outlives the runtime (as containerd's): each sandbox is stopped, so none is left.
  if (runtime) {
    const client = new CriClient(runtime.endpoint);
    for (const sandbox of await client.listPodSandbox()) await client.stopPodSandbox(sandbox.id).catch(() => {});
    client.close();
  }
  await runtime?.stop();
  registry?.stop();
  clock.dispose();
  spawnSync('ip', ['link', 'delete', 'knode-hold0'], { stdio: 'ignore' });
  if (root) rmSync(root, { recursive: true, force: true });
});

const running = (phase?: string) => phase === 'Running';

/** knode_sandbox_starts_waiting from the node's metrics. */
async function waiting(): Promise<number | undefined> {
  const metric = await node?.kubelet.metrics.registry.getSingleMetric('knode_sandbox_starts_waiting')?.get();
  return metric?.values[0]?.value;
}

describe('maxParallelSandboxStarts', () => {
  it('holds a pod behind a sandbox under way, and lets it go once the one ahead has hung for the hold time', async () => {
    node = await startNode(runtime.endpoint, { clock, config: { maxParallelSandboxStarts: 1 } });
    const spec = { containers: [{ name: 'main', image: 'busybox:1.36', command: sleepUntilTerm() }] };
    node.writePod('stuck', spec);
    await eventually(() => adds().some((p) => p.startsWith('stuck-')), 'the stuck pod to reach its network plugin');
    node.writePod('next', spec);
    // The next pod's sync waits for its turn, as the node's /metrics tells, and has asked for no sandbox.
    await eventually(async () => (await waiting()) === 1, 'the next pod to wait for its turn');
    expect(adds().filter((p) => p.startsWith('next-'))).toEqual([]);
    expect(node.pod('next')?.status?.phase).toBe('Pending');
    // The stuck sandbox has held the only place for the hold time: the next one goes.
    clock.skip(SANDBOX_START_HOLD);
    const next = await node.waitForPod('next', 'Running', (p) => running(p.status?.phase));
    expect(next.status?.podIP).toMatch(/^10\.88\.7\./);
    expect(node.pod('stuck')?.status?.phase).toBe('Pending');
    // The plugin answers at last: the stuck pod starts too.
    writeFileSync(join(root, 'release'), '');
    const stuck = await node.waitForPod('stuck', 'Running', (p) => running(p.status?.phase));
    expect(stuck.status?.podIP).toMatch(/^10\.88\.7\./);
    expect(await waiting()).toBe(0);
  }, 180_000);
});
