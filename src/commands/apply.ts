import { isStaticPod } from '../engine/api/pod-util.js';
import { Flags } from '@oclif/core';
import { createHash } from 'node:crypto';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { BaseCommand } from '../cli/base-command.js';
import { kubeletConfigFromFlags, kubeletFlags, parseDuration } from '../cli/kubelet-flags.js';
import { podRef } from '../engine/api/pod-util.js';
import { kindOf, readCapped } from '../engine/config/bounded-read.js';
import { MAX_MANIFEST_BYTES } from '../engine/config/manifest.js';
import { Kubelet } from '../engine/kubelet.js';
import { runOnce, type PodOutcome } from '../engine/run-once.js';
import { renderApplyTasks } from '../ui/apply-tasks.js';
import { localWorkloads, startWorkloads } from '../cli/workloads.js';
import type { LocalWorkloads } from '../controllers/index.js';
import { waitForRollouts, type RolloutState } from '../controllers/index.js';
import { ExitCode, UserError } from '../util/user-error.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { booleanFlagValues } from '../cli/boolean-flags.js';
import { refuseBesideNode } from '../cli/beside-node.js';
import { removeSameNamed, sameNamed } from '../cli/replace-pods.js';
import { readManifests } from '../engine/config/read-manifests.js';
import { deletedLine, resourceOf, stopPod } from '../cli/stop-pods.js';
import type { CriClient } from '../cri/client.js';
import type { Pod } from '../engine/api/v1.js';
import type { KubeletConfiguration } from '../engine/config/kubelet-config.js';
import { RuntimeManager } from '../engine/kuberuntime/runtime-manager.js';

/** How often apply --wait looks whether the pods have ended. */
const WAIT_POLL_MS = 1_000;

export default class Apply extends BaseCommand {
  static override summary = 'Apply manifests once (runOnce): run every pod until Running or Succeeded, then report.';
  static override description = `Runs every pod of a file, a directory or - (stdin) as the kubelet's runOnce mode does, until Running (Succeeded for OnFailure and Never pods), a failure or --timeout; exits 0 only if every pod made it. The pods keep running afterwards. Refused (exit 2) on the root dir of a running knode run node, which would stop them as orphans. See docs/cli.md.`;

  static override examples = [
    '<%= config.bin %> apply -f examples/hello.yaml',
    '<%= config.bin %> apply -f examples/ --timeout 1m',
    'cat pod.yaml | <%= config.bin %> apply -f - -o json | jq .items[].status.phase',
    '<%= config.bin %> apply -f pods/ --runtime-endpoint unix:///run/containerd/containerd.sock',
  ];

  static override flags = {
    filename: Flags.string({ char: 'f', description: 'Manifest file, directory, or - for stdin', required: true }),
    timeout: Flags.string({ description: 'How long to wait for the pods (Go duration)', default: '4m' }),
    output: Flags.string({ char: 'o', description: 'Print the pods with their status as a v1 PodList', options: ['json', 'yaml'] }),
    wait: Flags.boolean({
      description: 'Then stay until every pod has ended, or SIGINT/SIGTERM, and remove the pods and workloads: nothing is left behind',
      default: false,
      allowNo: true,
    }),
    replace: Flags.boolean({
      description:
        'Stop and remove the pods of the same names that an earlier apply left running, then create them again from the manifests (kubectl replace --force)',
      default: false,
    }),
    ...kubeletFlags('apply'),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Apply, booleanFlagValues(this.argv, ['wait', 'replace']));
    const rootDir = this.rootDir(flags);
    await refuseBesideNode(rootDir, flags.filename);
    const path = await this.manifestPath(flags.filename, rootDir);
    const timeout = parseDuration(flags.timeout, 'timeout');
    const warn = (message: string) => this.logToStderr(`Warning: ${message}`);
    const config = kubeletConfigFromFlags(rootDir, flags, { staticPodPath: path, runOnce: true }, warn);
    const client = await this.connectRuntime({ ...flags, 'runtime-endpoint': config.containerRuntimeEndpoint || undefined });
    config.containerRuntimeEndpoint = client.endpoint;
    if (!(await this.earlierPods(client, config, path, flags.replace))) {
      client.close();
      this.exit(ExitCode.workloadFailed);
    }
    const workloads = localWorkloads(config, rootDir);
    const kubelet = new Kubelet(config, { runtime: client, local: workloads.api });
    startWorkloads(workloads, kubelet.events, {
      pressure: () => kubelet.pressure(),
      staticPods: () => kubelet.podsWithStatus().filter(isStaticPod),
    });
    const interrupted = this.interruptSignal();
    let rollouts = new Map<string, RolloutState>();
    let resolveOutcomes!: (o: PodOutcome[]) => void;
    const outcomes = new Promise<PodOutcome[]>((r) => (resolveOutcomes = r));
    let rendering: Promise<void> | undefined;
    try {
      const result = await runOnce(
        kubelet,
        timeout,
        interrupted,
        (pods) => {
          rendering = renderApplyTasks(
            pods.map(podRef),
            { subscribe: (l) => kubelet.events.subscribe(l), outcomes },
            !!process.stderr.isTTY,
          );
        },
        async (stop) => {
          rollouts = await waitForRollouts(workloads.store, workloads.api.keysFrom(`file:${path}`), stop);
        },
      );
      resolveOutcomes(result.outcomes);
      await rendering;
      for (const error of result.manifestErrors) this.logToStderr(`Error: ${error}`);
      for (const [, state] of rollouts) this.logToStderr(state.message);
      if (flags.output) {
        const items = [...result.pods, ...workloads.withDependents([...rollouts.keys()])];
        const list = {
          apiVersion: 'v1',
          kind: items.length === result.pods.length ? 'PodList' : 'List',
          metadata: { resourceVersion: '' },
          items,
        };
        this.log(flags.output === 'json' ? JSON.stringify(list, null, 2) : stringify(list).trimEnd());
      }
      let code = this.summarize(result.outcomes, [...rollouts.values()], path, result.manifestErrors.length);
      if (flags.wait) {
        workloads.stop();
        const made = workloads.api.keysFrom(`file:${path}`);
        const ended = await this.waitThenRemove(client, config, workloads, result.pods, made, interrupted);
        if (code === ExitCode.ok) code = ended;
      }
      if (code !== ExitCode.ok) this.exit(code);
    } finally {
      workloads.stop();
      client.close();
    }
  }

  /**
   * --wait, as `podman kube play --wait`: stays until every pod of the
   * manifests has ended (all its containers exited) or a signal comes, then
   * stops the pods side by side within their grace periods, removes them, and
   * deletes the workloads. Exit 1 when a container had failed.
   */
  private async waitThenRemove(
    client: CriClient,
    config: KubeletConfiguration,
    workloads: LocalWorkloads,
    staticPods: Pod[],
    workloadKeys: string[],
    interrupted: AbortSignal,
  ): Promise<number> {
    const runtime = RuntimeManager.standalone(client, config);
    const pods = () => [...staticPods, ...(workloads.withDependents(workloadKeys).filter((o) => o.kind === 'Pod') as unknown as Pod[])];
    const statusOf = (pod: Pod) => runtime.getPodStatus(pod.metadata.uid!, pod.metadata.name!, pod.metadata.namespace || 'default');
    let failed = false;
    while (!interrupted.aborted) {
      const statuses = await Promise.all(pods().map(statusOf));
      const live = statuses.some((s) => s.containers.some((c) => c.state === 'running' || c.state === 'created'));
      if (!live) {
        failed = statuses.some((s) => s.containers.some((c) => c.state === 'exited' && c.exitCode !== 0));
        break;
      }
      await sleep(WAIT_POLL_MS, undefined, { signal: interrupted }).catch(() => {});
    }
    const removing = pods().map(async (pod) => ({ pod, error: await stopPod(runtime, pod, await statusOf(pod), undefined) }));
    for (const done of removing) {
      const { pod, error } = await done;
      this.logToStderr(error ? `Error: ${error}` : deletedLine('pod', pod));
      if (error) failed = true;
    }
    for (const pod of pods())
      if (workloads.store.get('Pod', pod.metadata.namespace!, pod.metadata.name!))
        workloads.store.delete('Pod', pod.metadata.namespace!, pod.metadata.name!, { gracePeriodSeconds: 0 });
    // What the manifests made goes with them, claims too (as podman removes the volumes kube play made).
    for (const key of workloadKeys) {
      const [kind, namespace, name] = key.split('/');
      workloads.api.deleteObject(kind, namespace, name);
      this.logToStderr(deletedLine(resourceOf(kind), { metadata: { name, namespace } }));
    }
    workloads.api.save();
    return failed ? ExitCode.workloadFailed : ExitCode.ok;
  }

  /**
   * The pods of the same names an earlier apply left running. With --replace
   * they are stopped and removed first; false if one could not be. Without it,
   * one whose UID differs (its manifest changed) is told: it runs on beside the
   * new one, as its UID is not the new manifest's.
   */
  private async earlierPods(client: CriClient, config: KubeletConfiguration, path: string, replace: boolean): Promise<boolean> {
    const runtime = RuntimeManager.standalone(client, config);
    const { pods } = await readManifests(path, config.nodeName);
    if (replace) {
      const { lines, errors } = await removeSameNamed(runtime, pods);
      for (const line of lines) this.logToStderr(line);
      for (const error of errors) this.logToStderr(`Error: ${error}`);
      return errors.length === 0;
    }
    const running = await runtime.getPods();
    for (const pod of pods)
      if (sameNamed(running, pod).some((r) => r.uid !== pod.metadata.uid))
        this.logToStderr(
          `Warning: pod "${pod.metadata.name}" from an earlier apply of another spec is still running and stays beside the new one; give --replace to recreate it`,
        );
    return true;
  }

  /** One line per failed pod, a count of pods and of workloads; the exit code: 1 when any failed, 2 for bad manifests. */
  private summarize(outcomes: PodOutcome[], rollouts: RolloutState[], path: string, manifestErrors: number): number {
    const failed = outcomes.filter((o) => !o.ok);
    for (const o of failed) this.logToStderr(`${o.pod}: ${o.result}${o.message ? `: ${o.message}` : ''}`);
    const counts = new Map<string, number>();
    for (const o of outcomes) counts.set(o.ok ? o.result : 'failed', (counts.get(o.ok ? o.result : 'failed') ?? 0) + 1);
    if (outcomes.length > 0 || rollouts.length === 0)
      this.logToStderr(`${plural(outcomes.length, 'pod')}: ${[...counts].map(([k, n]) => `${n} ${k}`).join(', ') || 'none'}`);
    const unfinished = rollouts.filter((r) => r.state !== 'ready').length;
    if (rollouts.length > 0)
      this.logToStderr(
        `${plural(rollouts.length, 'workload')}: ${rollouts.length - unfinished} ready${unfinished > 0 ? `, ${unfinished} not` : ''}`,
      );
    if (failed.length > 0 || unfinished > 0) return ExitCode.workloadFailed;
    if (outcomes.length === 0 && rollouts.length === 0 && manifestErrors === 0) throw new UserError('usage', `no pods in ${path}`);
    if (manifestErrors > 0) return ExitCode.usage;
    return ExitCode.ok;
  }

  /**
   * The path to read; stdin is saved under the root dir first, so its pods get a stable UID.
   * A path that is neither a directory nor a regular file (a device, a FIFO) is a usage error:
   * in a directory it would be skipped, but named alone it can only be a mistake. Stdin is read
   * up to the manifest limit and refused past it.
   */
  private async manifestPath(filename: string, rootDir: string): Promise<string> {
    if (filename !== '-') {
      const path = resolve(filename);
      let info;
      try {
        info = statSync(path);
      } catch {
        throw new UserError('usage', `${filename}: no such file or directory`);
      }
      if (!info.isDirectory() && !info.isFile())
        throw new UserError('usage', `${filename}: ${kindOf(info)}, not a regular file or a directory of manifests`);
      return path;
    }
    let text: string;
    try {
      text = await readCapped(process.stdin, MAX_MANIFEST_BYTES, 'stdin');
    } catch (err) {
      throw new UserError('usage', (err as Error).message);
    } finally {
      process.stdin.destroy();
    }
    const dir = join(rootDir, 'apply');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `stdin-${createHash('sha256').update(text).digest('hex').slice(0, 16)}.yaml`);
    writeFileSync(file, text);
    return file;
  }
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
