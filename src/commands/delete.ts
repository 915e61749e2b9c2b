import { Args, Flags } from '@oclif/core';
import { format } from 'node:util';
import { DetachedDelete, startBackgroundDelete } from '../cli/background-delete.js';
import { BaseCommand } from '../cli/base-command.js';
import { booleanFlagValues } from '../cli/boolean-flags.js';
import { cascadePolicy, deleteFlags, deleteMode, type DeleteMode } from '../cli/delete-options.js';
import { bulkOf, objectsSelected, runtimePodsSelected } from '../cli/delete-selected.js';
import { deletedKinds } from '../cli/target-kinds.js';
import { manifestsPath, namedObjects, ownedByNode, runtimePodsNamed } from '../cli/delete-named.js';
import { parseSelectorFlag, selected } from '../cli/selector-flag.js';
import { deleteWorkloads, workloadsToDelete, type DeleteOutput } from '../cli/delete-workloads.js';
import { kubeletConfigFromFlags, kubeletFlags } from '../cli/kubelet-flags.js';
import { NodeClient } from '../cli/node-client.js';
import { deletedLine, podsToStop, stopPod } from '../cli/stop-pods.js';
import { readManifests } from '../engine/config/read-manifests.js';
import { RuntimeManager } from '../engine/kuberuntime/runtime-manager.js';
import { rootPaths } from '../util/paths.js';
import { ExitCode } from '../util/user-error.js';

export default class Delete extends BaseCommand {
  static override summary = 'Stop and remove the pods and workloads of manifests that `knode apply` started, or those named.';
  static override description = `Finds the pods by the UIDs apply gave them, stops them all at once with their grace periods and preStop hooks, as the kubelet stops pods, and removes them; a workload goes with its pods, claims only with --claims. --grace-period, --now, --force and --wait are kubectl's. A node whose --static-dir holds the manifests starts them again. Instead of -f, name the objects as kubectl does: TYPE NAME..., or TYPE/NAME... (pod, deploy, rs, sts, ds, job, cronjob, configmap, secret, pvc). See docs/cli.md.`;

  // The objects may be named instead of -f: TYPE NAME... or TYPE/NAME..., as kubectl takes them.
  static override strict = false;
  static override args = {
    object: Args.string({ description: 'TYPE/NAME, or TYPE followed by one NAME or more (instead of -f)' }),
  };

  static override examples = [
    '<%= config.bin %> delete -f examples/hello.yaml',
    '<%= config.bin %> delete deploy/greeter job/count',
    '<%= config.bin %> delete pod hello-myhost --now',
    '<%= config.bin %> delete deploy,job -l app=greeter',
    '<%= config.bin %> delete pods --all -A',
    '<%= config.bin %> delete -f examples/ --now',
    '<%= config.bin %> delete -f examples/ --wait=false',
  ];

  static override flags = {
    filename: Flags.string({ char: 'f', description: 'Manifest file or directory (or name the objects: TYPE NAME..., TYPE/NAME...)' }),
    ...deleteFlags,
    ...kubeletFlags('delete'),
  };

  /** Set when this process is the background half of a `--wait=false`: its stderr goes to the command that started it. */
  private detached: DetachedDelete | undefined;

  override logToStderr(message = '', ...args: unknown[]): void {
    if (this.detached) this.detached.stderr(format(message, ...args));
    else super.logToStderr(message, ...args);
  }

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Delete, booleanFlagValues(this.argv, ['wait', 'now', 'force', 'claims']));
    const words = argv as string[];
    const namespace = flags.namespace ?? 'default';
    const bulk = bulkOf(flags, flags.filename === undefined ? words : undefined, namespace);
    const path = manifestsPath(flags.filename, words);
    const rootDir = this.rootDir(flags);
    this.detached = DetachedDelete.ofThisProcess(rootPaths(rootDir).deleteLog);
    // kubectl's errors for a wrong cascade or an impossible flag pair are KubectlErrors: exit 1.
    const cascade = cascadePolicy(flags.cascade);
    const mode: DeleteMode = { ...deleteMode(flags), cascade: cascade.policy };
    const selection = bulk && objectsSelected(deletedKinds(words[0]), bulk, rootDir);
    const named = path ? undefined : (selection ?? namedObjects(words, namespace, rootDir));
    if (cascade.warning && !this.detached) this.logToStderr(cascade.warning);
    if (mode.warning && !this.detached) this.logToStderr(mode.warning);
    const config = kubeletConfigFromFlags(rootDir, flags, path ? { staticPodPath: path } : {});
    const read = path ? await readManifests(path, config.nodeName) : { pods: [], objects: named!.objects, errors: [] };
    // With -f, -l keeps the manifests' objects it matches, as kubectl's builder filters what it read.
    const selector = path && flags.selector !== undefined ? parseSelectorFlag(flags.selector) : undefined;
    const { pods, objects, errors } = { ...read, pods: selected(read.pods, selector), objects: selected(read.objects, selector) };
    if (!this.detached) for (const e of errors) this.logToStderr(`Error: ${e}`);
    const node = await NodeClient.find(rootDir);
    if (objects.length > 0 && node) throw ownedByNode(rootDir, flags.filename, objects);
    // A claim named goes: --claims is for the claims of manifests.
    const claims = flags.claims || named !== undefined;
    const client = await this.connectRuntime(flags);
    const runtime = RuntimeManager.standalone(client, config);
    let failed = 0;
    try {
      const runtimePods = named ? await runtimePodsNamed(client, named.pods) : { pods: [], missing: [] };
      if (selection?.runtimePods) runtimePods.pods.push(...(await runtimePodsSelected(client, bulk!, selection.controllers)));
      const none = objects.length === 0 && pods.length === 0 && runtimePods.pods.length === 0;
      if ((selection || selector) && none) return this.log('No resources found');
      if (!this.detached) for (const line of runtimePods.missing) this.logToStderr(line);
      failed += runtimePods.missing.length;
      const { found, refused } = await podsToStop(runtime, [...pods, ...runtimePods.pods], node, rootDir);
      // The background half says again only what the command that started it could not know.
      if (!this.detached) for (const line of refused) this.logToStderr(line.error ?? line.notFound);
      failed += refused.filter((r) => r.error).length;
      if (!flags.wait) {
        for (const { pod } of found) this.log(deletedLine('pod', pod, mode.operation));
        const outputs = objects.length > 0 ? workloadsToDelete(objects, config, rootDir, mode, claims) : [];
        failed += this.print(outputs, named !== undefined);
        if (outputs.some((o) => o.stdout) || found.length > 0) failed += await this.inBackground(rootDir);
        return this.exit(failed > 0 ? ExitCode.workloadFailed : errors.length > 0 ? ExitCode.usage : ExitCode.ok);
      }
      this.detached?.requested();
      // All at once, as the kubelet's pod workers stop pods: ten pods take one grace period, not ten.
      // As kubectl: each object's line once its deletion is requested, then the wait for them to be gone.
      const stopping = found.map(({ pod, status }) => stopPod(runtime, pod, status, mode.gracePeriod));
      for (const { pod } of found) this.log(deletedLine('pod', pod, mode.operation));
      const deletion = objects.length > 0 ? deleteWorkloads(objects, config, rootDir, runtime, mode, claims) : undefined;
      if (deletion) failed += this.print(deletion.requested, named !== undefined);
      for (const error of await Promise.all(stopping)) {
        if (!error) continue;
        failed++;
        this.logToStderr(`Error: ${error}`);
      }
      if (deletion) failed += this.print(await deletion.done, false);
    } finally {
      client.close();
    }
    if (failed > 0) this.exit(ExitCode.workloadFailed);
    if (errors.length > 0) this.exit(ExitCode.usage);
  }

  /** Prints what deleting the workloads said, in the manifests' order; the number that failed (with the missing, for objects NAMED, as kubectl counts them). */
  private print(outputs: DeleteOutput[], named: boolean): number {
    for (const { stdout, stderr } of outputs) {
      for (const line of stderr) this.logToStderr(line);
      if (stdout) this.log(stdout);
    }
    return outputs.reduce((sum, o) => sum + o.failed + (named && o.missing ? 1 : 0), 0);
  }

  /**
   * --wait=false: the pods are stopped by a `knode delete` of the same
   * manifests left running in the background, once it has requested the
   * deletion; the errors of that request are this command's (exit 1).
   */
  private async inBackground(rootDir: string): Promise<number> {
    const argv = this.argv.filter((a) => !/^--(no-wait|wait=false)$/.test(a));
    const outcome = await startBackgroundDelete(argv, rootPaths(rootDir).deleteLog, (line) => this.logToStderr(line));
    return outcome.requested && outcome.errors.length === 0 ? 0 : 1;
  }
}
