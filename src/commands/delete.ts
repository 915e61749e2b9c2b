import { Flags } from '@oclif/core';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { BaseCommand } from '../cli/base-command.js';
import { kubeletConfigFromFlags, kubeletFlags } from '../cli/kubelet-flags.js';
import { NodeClient } from '../cli/node-client.js';
import { podRef } from '../engine/api/pod-util.js';
import type { PodList } from '../engine/api/v1.js';
import { readManifests } from '../engine/config/read-manifests.js';
import { RuntimeManager } from '../engine/kuberuntime/runtime-manager.js';
import { ExitCode, UserError } from '../util/user-error.js';

export default class Delete extends BaseCommand {
  static override summary = 'Stop and remove the pods of manifests that `knode apply` started.';
  static override description = `Finds the pods by the UIDs apply gave them, stops them with their grace periods and preStop hooks, and removes them. A node whose --static-dir holds the manifests starts them again. See docs/cli.md.`;

  static override examples = ['<%= config.bin %> delete -f examples/hello.yaml', '<%= config.bin %> delete -f examples/ --grace-period 0'];

  static override flags = {
    filename: Flags.string({ char: 'f', description: 'Manifest file or directory', required: true }),
    'grace-period': Flags.integer({ description: 'Seconds each pod gets to stop [default: its terminationGracePeriodSeconds]' }),
    ...kubeletFlags('delete'),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Delete);
    const path = resolve(flags.filename);
    if (!existsSync(path)) throw new UserError('usage', `${flags.filename}: no such file or directory`);
    const rootDir = this.rootDir(flags);
    const config = kubeletConfigFromFlags(rootDir, flags, { staticPodPath: path });
    const { pods, errors } = await readManifests(path, config.nodeName);
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
    if (failed > 0) this.exit(ExitCode.workloadFailed);
    if (errors.length > 0) this.exit(ExitCode.usage);
  }
}
