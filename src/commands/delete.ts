import { Flags } from '@oclif/core';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { BaseCommand } from '../cli/base-command.js';
import { booleanFlagValues } from '../cli/boolean-flags.js';
import { deleteMode, type DeleteMode } from '../cli/delete-options.js';
import { deletedLine, resourceOf, stopPod } from '../cli/stop-pods.js';
import { kubeletConfigFromFlags, kubeletFlags } from '../cli/kubelet-flags.js';
import { NodeClient } from '../cli/node-client.js';
import { podRef } from '../engine/api/pod-util.js';
import type { Pod, PodList } from '../engine/api/v1.js';
import type { KubeObject } from '../engine/api/workloads.js';
import type { KubeletConfiguration } from '../engine/config/kubelet-config.js';
import { localWorkloads } from '../cli/workloads.js';
import { readManifests } from '../engine/config/read-manifests.js';
import { RuntimeManager } from '../engine/kuberuntime/runtime-manager.js';
import type { RuntimePodStatus } from '../engine/container/types.js';
import { ExitCode, UserError } from '../util/user-error.js';

export default class Delete extends BaseCommand {
  static override summary = 'Stop and remove the pods and workloads of manifests that `knode apply` started.';
  static override description = `Finds the pods by the UIDs apply gave them, stops them all at once with their grace periods and preStop hooks, as the kubelet stops pods, and removes them; a workload goes with its pods, claims only with --claims. --grace-period, --now, --force and --wait are kubectl's. A node whose --static-dir holds the manifests starts them again. See docs/cli.md.`;

  static override examples = [
    '<%= config.bin %> delete -f examples/hello.yaml',
    '<%= config.bin %> delete -f examples/ --now',
    '<%= config.bin %> delete -f examples/ --wait=false',
  ];

  static override flags = {
    filename: Flags.string({ char: 'f', description: 'Manifest file or directory', required: true }),
    'grace-period': Flags.integer({
      description:
        'Period of time in seconds given to each pod to terminate gracefully. Ignored if negative (its terminationGracePeriodSeconds). Set to 1 for immediate shutdown. Can only be set to 0 when --force is true (force deletion).',
      default: -1,
    }),
    now: Flags.boolean({ description: 'If true, pods are signaled for immediate shutdown (same as --grace-period=1).', default: false }),
    force: Flags.boolean({
      description: 'If true, kill the containers at once, without a grace period (--grace-period=0).',
      default: false,
    }),
    wait: Flags.boolean({
      description: 'If true, wait for the pods to be gone before returning; --wait=false stops them in the background.',
      default: true,
      allowNo: true,
    }),
    claims: Flags.boolean({ description: "Also delete the manifests' PersistentVolumeClaims and their data", default: false }),
    ...kubeletFlags('delete'),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Delete, booleanFlagValues(this.argv, ['wait', 'now', 'force', 'claims']));
    let mode: DeleteMode;
    try {
      mode = deleteMode(flags);
    } catch (err) {
      this.logToStderr((err as Error).message);
      return this.exit(1);
    }
    const path = resolve(flags.filename);
    if (!existsSync(path)) throw new UserError('usage', `${flags.filename}: no such file or directory`);
    if (mode.warning) this.logToStderr(mode.warning);
    const rootDir = this.rootDir(flags);
    const config = kubeletConfigFromFlags(rootDir, flags, { staticPodPath: path });
    const { pods, objects, errors } = await readManifests(path, config.nodeName);
    for (const e of errors) this.logToStderr(`Error: ${e}`);
    const node = await NodeClient.find(rootDir);
    if (objects.length > 0 && node)
      throw new UserError(
        'usage',
        `the node running under ${rootDir} runs the workloads of ${flags.filename}`,
        'remove them from its --static-dir, or stop it first',
      );
    const managed = node
      ? new Set((await node.json<PodList>('/pods')).body.items.map((p) => p.metadata.uid))
      : new Set<string | undefined>();
    const client = await this.connectRuntime(flags);
    const runtime = RuntimeManager.standalone(client, config);
    let failed = 0;
    try {
      const found: { pod: Pod; status: RuntimePodStatus }[] = [];
      for (const pod of pods) {
        // The node would start it again at once: stopping it would only cost its grace period and a restart.
        if (managed.has(pod.metadata.uid)) {
          failed++;
          this.logToStderr(
            `Error: ${podRef(pod)} runs from the sources of the node running under ${rootDir}, which would start it again: remove its manifest from the node's --static-dir to delete it`,
          );
          continue;
        }
        const status = await runtime.getPodStatus(pod.metadata.uid!, pod.metadata.name!, pod.metadata.namespace!);
        if (status.sandboxes.length === 0 && status.containers.length === 0) this.logToStderr(`pod "${pod.metadata.name}" not found`);
        else found.push({ pod, status });
      }
      if (!flags.wait) {
        for (const { pod } of found) this.log(deletedLine('pod', pod, mode.operation));
        if (objects.length > 0) this.deletedWorkloadLines(objects, config, rootDir, mode, flags.claims);
        if (found.length > 0 || objects.length > 0) this.inBackground();
        return this.exit(failed > 0 ? ExitCode.workloadFailed : errors.length > 0 ? ExitCode.usage : ExitCode.ok);
      }
      // All at once, as the kubelet's pod workers stop pods: ten pods take one grace period, not ten.
      const stopping = found.map(({ pod, status }) => stopPod(runtime, pod, status, mode.gracePeriod));
      for (const [i, done] of stopping.entries()) {
        const error = await done;
        if (error) {
          failed++;
          this.logToStderr(`Error: ${error}`);
        } else this.log(deletedLine('pod', found[i].pod, mode.operation));
      }
    } finally {
      client.close();
    }
    if (objects.length > 0) failed += await this.deleteWorkloads(objects, config, rootDir, flags, mode);
    if (failed > 0) this.exit(ExitCode.workloadFailed);
    if (errors.length > 0) this.exit(ExitCode.usage);
  }

  /**
   * --wait=false: the pods are stopped by a `knode delete` of the same
   * manifests left running in the background (as the kubelet goes on stopping
   * pods after kubectl returned), its output dropped.
   */
  private inBackground(): void {
    const argv = this.argv.filter((a) => !/^--(no-wait|wait=false)$/.test(a));
    const child = spawn(process.execPath, [process.argv[1], 'delete', ...argv], { detached: true, stdio: 'ignore' });
    child.unref();
  }

  /** --wait=false: the lines for the workloads the background delete will remove (those that exist). */
  private deletedWorkloadLines(
    objects: KubeObject[],
    config: KubeletConfiguration,
    rootDir: string,
    mode: DeleteMode,
    claims: boolean,
  ): void {
    const workloads = localWorkloads(config, rootDir);
    for (const o of objects) {
      if (o.kind === 'PersistentVolumeClaim' && !claims) continue;
      if (workloads.store.get(o.kind, o.metadata.namespace || 'default', o.metadata.name!))
        this.log(deletedLine(resourceOf(o.kind), o, mode.operation));
    }
  }

  /**
   * Deletes the manifests' workloads from the objects the local controllers
   * saved: their pods are stopped first, all at once (a foreground cascade),
   * then the objects go. Claims stay unless --claims is given. The workloads
   * are deleted side by side; their lines come in the manifests' order.
   */
  private async deleteWorkloads(
    objects: KubeObject[],
    config: KubeletConfiguration,
    rootDir: string,
    flags: { claims: boolean; 'runtime-endpoint'?: string },
    mode: DeleteMode,
  ): Promise<number> {
    const workloads = localWorkloads(config, rootDir);
    const client = await this.connectRuntime(flags);
    const runtime = RuntimeManager.standalone(client, config);
    let failed = 0;
    try {
      const deleting = objects.map(async (o) => {
        const namespace = o.metadata.namespace || 'default';
        const ref = `${resourceOf(o.kind)} ${JSON.stringify(o.metadata.name)}`;
        if (o.kind === 'PersistentVolumeClaim' && !flags.claims) return { stderr: [`${ref} kept (give --claims to delete claims)`] };
        if (!workloads.store.get(o.kind, namespace, o.metadata.name!))
          return { stderr: [`Error from server (NotFound): ${ref} not found`] };
        const key = `${o.kind}/${namespace}/${o.metadata.name}`;
        const pods = workloads.withDependents([key]).filter((d) => d.kind === 'Pod') as unknown as Pod[];
        const results = await Promise.all(
          pods.map(async (pod) => {
            const status = await runtime.getPodStatus(pod.metadata.uid!, pod.metadata.name!, namespace);
            return stopPod(runtime, pod, status, mode.gracePeriod);
          }),
        );
        const errors = results.filter((e) => e !== undefined).map((e) => `Error: ${e}`);
        workloads.api.deleteObject(o.kind, namespace, o.metadata.name!);
        for (const pod of pods)
          if (workloads.store.get('Pod', namespace, pod.metadata.name!))
            workloads.store.delete('Pod', namespace, pod.metadata.name!, { gracePeriodSeconds: 0 });
        return { stderr: errors, failed: errors.length, stdout: deletedLine(resourceOf(o.kind), o, mode.operation) };
      });
      for (const done of deleting) {
        const { stderr, stdout, failed: count = 0 } = await done;
        for (const line of stderr) this.logToStderr(line);
        if (stdout) this.log(stdout);
        failed += count;
      }
    } finally {
      workloads.api.save();
      client.close();
    }
    return failed;
  }
}
