import { Flags } from '@oclif/core';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { BaseCommand } from '../cli/base-command.js';
import { stopEmbeddedRuntime } from '../cli/embedded-runtime.js';
import { NodeClient } from '../cli/node-client.js';
import { CriClient } from '../cri/client.js';
import { rootPaths } from '../util/paths.js';
import { UserError } from '../util/user-error.js';

/** What the user wrote, which a reset keeps (as kubeadm reset keeps the CNI configuration). */
const KEPT = ['registries.yaml', 'cni'];

export default class Reset extends BaseCommand {
  static override summary = 'Remove every container, sandbox, image and file knode keeps under the root dir, as kubeadm reset does.';
  static override description = `Stops the embedded runtime and every container it runs, unmounts what is still mounted under --root-dir, and removes the node's state there: the runtime's containers, sandboxes and images, pod logs and volumes, saved workloads, certificates and kubeconfigs. The mirrors (registries.yaml) and the CNI configuration stay. A running knode run must be stopped first. Asks before it starts, unless --force.`;
  static override examples = ['<%= config.bin %> reset', '<%= config.bin %> reset --force --root-dir /tmp/knode'];

  static override flags = {
    force: Flags.boolean({ char: 'f', description: 'Reset without asking', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Reset);
    const paths = rootPaths(this.rootDir(flags));
    if (await NodeClient.find(paths.root))
      throw new UserError(
        'usage',
        `a knode node is running on ${paths.root} (its API answers on ${paths.nodeSocket})`,
        'stop it first (Ctrl-C, or SIGTERM to knode run), then reset',
      );
    if (!existsSync(paths.root)) {
      this.log(`[reset] nothing to reset: ${paths.root} does not exist`);
      return;
    }
    if (!flags.force) await this.confirm(paths.root);
    // A sandbox's holder outlives the runtime (a restarted runtime finds its pods again), so the pods go first.
    const pods = await removePods(paths.runtimeSocket, (message) => this.log(`[reset] ${message}`));
    if (pods > 0) this.log(`[reset] removed ${pods} pod sandbox(es) and their containers`);
    const stopped = await stopEmbeddedRuntime(paths.root, 30_000);
    if ('stopped' in stopped) this.log(`[reset] stopped the embedded runtime (pid ${stopped.stopped}) and its containers`);
    const unmounted = unmountUnder(paths.root);
    if (unmounted.length > 0) this.log(`[reset] unmounted ${unmounted.length} mount(s) left under ${paths.root}`);
    const removed: string[] = [];
    for (const entry of readdirSync(paths.root)) {
      if (KEPT.includes(entry)) continue;
      rmSync(join(paths.root, entry), { recursive: true, force: true });
      removed.push(entry);
    }
    this.log(`[reset] removed ${removed.length ? removed.sort().join(', ') : 'nothing'} from ${paths.root}`);
    const kept = KEPT.filter((k) => existsSync(join(paths.root, k)));
    if (kept.length) this.log(`[reset] kept ${kept.join(' and ')}: the configuration you wrote`);
  }

  /** kubeadm reset's question; no terminal to ask on is a usage error. */
  private async confirm(root: string): Promise<void> {
    if (!process.stdin.isTTY)
      throw new UserError(
        'usage',
        `knode reset removes everything knode keeps under ${root}`,
        'give --force to reset without a terminal to ask on',
      );
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    const answer = await rl.question(
      `[reset] WARNING: everything knode keeps under ${root} will be removed: containers, sandboxes, images, pod logs and volumes, workloads, certificates.\n[reset] Are you sure you want to proceed? [y/N]: `,
    );
    rl.close();
    if (!/^y(es)?$/i.test(answer.trim())) throw new UserError('usage', 'aborted reset operation');
  }
}

/**
 * Removes every pod sandbox the embedded runtime under the root dir runs, as
 * `crictl rmp -af` (kubeadm reset's removal of the pods); returns how many.
 * No runtime answering: nothing to remove here.
 */
async function removePods(socket: string, log: (message: string) => void): Promise<number> {
  if (!existsSync(socket)) return 0;
  const client = new CriClient(`unix://${socket}`, { requestTimeoutMs: 30_000 });
  try {
    const pods = await client.listPodSandbox().catch(() => []);
    let removed = 0;
    for (const pod of pods) {
      try {
        await client.stopPodSandbox(pod.id);
        await client.removePodSandbox(pod.id);
        removed++;
      } catch (err) {
        log(`could not remove pod sandbox ${pod.metadata?.namespace}/${pod.metadata?.name} (${pod.id}): ${(err as Error).message}`);
      }
    }
    return removed;
  } finally {
    client.close();
  }
}

/** Unmounts (lazily, deepest first) whatever is still mounted under `root`; returns the mount points. */
function unmountUnder(root: string): string[] {
  const points = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4])
    .filter((p): p is string => p !== undefined)
    .map((p) => p.replace(/\\(\d{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))))
    .filter((p) => p.startsWith(`${root}/`))
    .sort((a, b) => b.length - a.length);
  for (const point of points) spawnSync('umount', ['-l', point], { stdio: 'ignore', timeout: 10_000 });
  return points;
}
