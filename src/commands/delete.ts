import { Flags } from '@oclif/core';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { BaseCommand } from '../cli/base-command.js';
import { kubeletConfigFromFlags, kubeletFlags } from '../cli/kubelet-flags.js';
import { NodeClient } from '../cli/node-client.js';
import { podRef } from '../engine/api/pod-util.js';
import type { Pod, PodList } from '../engine/api/v1.js';
import type { KubeObject } from '../engine/api/workloads.js';
import type { KubeletConfiguration } from '../engine/config/kubelet-config.js';
import { localWorkloads } from '../cli/workloads.js';
import { readManifests } from '../engine/config/read-manifests.js';
import { RuntimeManager } from '../engine/kuberuntime/runtime-manager.js';
import { ExitCode, UserError } from '../util/user-error.js';

export default class Delete extends BaseCommand {
  static override summary = 'Stop and remove the pods and workloads of manifests that `knode apply` started.';
  static override description = `Finds the pods by the UIDs apply gave them, stops them with their grace periods and preStop hooks, and removes them; a workload goes with its pods, claims only with --claims. A node whose --static-dir holds the manifests starts them again. See docs/cli.md.`;

  static override examples = ['<%= config.bin %> delete -f examples/hello.yaml', '<%= config.bin %> delete -f examples/ --grace-period 0'];

  static override flags = {
    filename: Flags.string({ char: 'f', description: 'Manifest file or directory', required: true }),
    'grace-period': Flags.integer({ description: 'Seconds each pod gets to stop [default: its terminationGracePeriodSeconds]' }),
    claims: Flags.boolean({ description: "Also delete the manifests' PersistentVolumeClaims and their data", default: false }),
    ...kubeletFlags('delete'),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Delete);
    const path = resolve(flags.filename);
    if (!existsSync(path)) throw new UserError('usage', `${flags.filename}: no such file or directory`);
    const rootDir = this.rootDir(flags);
    const config = kubeletConfigFromFlags(rootDir, flags, { staticPodPath: path });
    const { pods, objects, errors } = await readManifests(path, config.nodeName);
    for (const e of errors) this.logToStderr(`Error: ${e}`);
    const node = await NodeClient.find(rootDir);
    const managed = node
      ? new Set((await node.json<PodList>('/pods')).body.items.map((p) => p.metadata.uid))
      : new Set<string | undefined>();
    const client = await this.connectRuntime(flags);
    const runtime = RuntimeManager.standalone(client, config);
    let failed = 0;
    try {
      for (const pod of pods) {
        const uid = pod.metadata.uid!;
        const status = await runtime.getPodStatus(uid, pod.metadata.name!, pod.metadata.namespace!);
        if (status.sandboxes.length === 0 && status.containers.length === 0) {
          this.logToStderr(`pod "${podRef(pod)}" not found`);
          continue;
        }
        if (managed.has(uid))
          this.logToStderr(`Warning: the node running under ${rootDir} has ${podRef(pod)} in its sources and will start it again`);
        const result = await runtime.killPod(pod, status, flags['grace-period'] ?? pod.spec.terminationGracePeriodSeconds);
        const error = result.error();
        if (error) {
          failed++;
          this.logToStderr(`Error: ${podRef(pod)}: ${error.message}`);
          continue;
        }
        await runtime.removePod(status);
        this.log(`pod "${pod.metadata.name}" deleted`);
      }
    } finally {
      client.close();
    }
    if (objects.length > 0) {
      if (node)
        throw new UserError(
          'usage',
          `the node running under ${rootDir} runs the workloads of ${flags.filename}`,
          'remove them from its --static-dir, or stop it first',
        );
      failed += await this.deleteWorkloads(objects, config, rootDir, flags);
    }
    if (failed > 0) this.exit(ExitCode.workloadFailed);
    if (errors.length > 0) this.exit(ExitCode.usage);
  }

  /**
   * Deletes the manifests' workloads from the objects the local controllers
   * saved: their pods are stopped first, all at once (a foreground cascade),
   * then the objects go. Claims stay unless --claims is given.
   */
  private async deleteWorkloads(
    objects: KubeObject[],
    config: KubeletConfiguration,
    rootDir: string,
    flags: { claims: boolean; 'grace-period'?: number; 'runtime-endpoint'?: string },
  ): Promise<number> {
    const workloads = localWorkloads(config, rootDir);
    const client = await this.connectRuntime(flags);
    const runtime = RuntimeManager.standalone(client, config);
    let failed = 0;
    try {
      for (const o of objects) {
        const namespace = o.metadata.namespace || 'default';
        const ref = `${resourceOf(o.kind)} ${JSON.stringify(o.metadata.name)}`;
        if (o.kind === 'PersistentVolumeClaim' && !flags.claims) {
          this.logToStderr(`${ref} kept (give --claims to delete claims)`);
          continue;
        }
        if (!workloads.store.get(o.kind, namespace, o.metadata.name!)) {
          this.logToStderr(`Error from server (NotFound): ${ref} not found`);
          continue;
        }
        const key = `${o.kind}/${namespace}/${o.metadata.name}`;
        const pods = workloads.withDependents([key]).filter((d) => d.kind === 'Pod') as unknown as Pod[];
        const results = await Promise.all(
          pods.map(async (pod) => {
            const status = await runtime.getPodStatus(pod.metadata.uid!, pod.metadata.name!, namespace);
            const error = (await runtime.killPod(pod, status, flags['grace-period'] ?? pod.spec.terminationGracePeriodSeconds)).error();
            if (!error) await runtime.removePod(status);
            return error ? `${podRef(pod)}: ${error.message}` : undefined;
          }),
        );
        const errors = results.filter((e) => e !== undefined);
        for (const e of errors) this.logToStderr(`Error: ${e}`);
        failed += errors.length;
        workloads.api.deleteObject(o.kind, namespace, o.metadata.name!);
        for (const pod of pods)
          if (workloads.store.get('Pod', namespace, pod.metadata.name!))
            workloads.store.delete('Pod', namespace, pod.metadata.name!, { gracePeriodSeconds: 0 });
        this.log(`${ref} deleted`);
      }
    } finally {
      workloads.api.save();
      client.close();
    }
    return failed;
  }
}

/** The resource kubectl names in its messages: deployment.apps, job.batch, configmap. */
function resourceOf(kind: string): string {
  const group = { Deployment: 'apps', ReplicaSet: 'apps', StatefulSet: 'apps', DaemonSet: 'apps', Job: 'batch', CronJob: 'batch' }[kind];
  return `${kind.toLowerCase()}${group ? `.${group}` : ''}`;
}
