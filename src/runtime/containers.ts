import type { Writable } from 'node:stream';
import type { ContainerConfig__Output } from '../cri/gen/runtime/v1/ContainerConfig.js';
import type { ContainerEventType } from '../cri/gen/runtime/v1/ContainerEventType.js';
import type { ContainerFilter__Output } from '../cri/gen/runtime/v1/ContainerFilter.js';
import { ContainerLaunch } from './container-launch.js';
import { ContainerProcess, type ProcessExit } from './container-process.js';
import { execErrorMessage, findExecutable } from './executables.js';
import type { ProcessSpec } from './process-spec.js';
import { CreatedProcesses } from './created-processes.js';
import type { OutputTap } from './follow-child.js';
import { containerEvent, matchesLabels } from './convert.js';
import { cancelled as cancelledError, invalid, precondition, storageFailed, unknown } from './errors.js';
import type { Cgroups } from './cgroups.js';
import type { ContainerEventHub } from './events.js';
import type { ExecResult } from './exec.js';
import { lookup, lookupOptional, newId, nowNs } from './ids.js';
import type { RuntimeImages } from './images.js';
import { recordMounts } from './container-mounts.js';
import { checkCreate, containerRecord } from './container-record.js';
import { describeTree, logTail } from './diagnostics.js';
import { isSameProcess, signalGroup, stopSignalOf, waitForProcess } from './proc.js';
import type { PidNamespaces } from './pid-namespaces.js';
import type { ContainerRecord } from './records.js';
import type { RuntimeState } from './state.js';
import type { ImageSandboxes } from './sandbox/image-sandboxes.js';
import { Spawner, StartCancelled } from './spawner/client.js';
import { SpareProcesses } from './spares.js';
import type { AttachedCommand } from './streaming/attached-process.js';
import { Turns } from './turns.js';

/** containerd's answer for a container whose fate the runtime lost track of. */
const UNKNOWN_EXIT_CODE = 255;

/**
 * The containers' lifecycle: create records, start them in their own process
 * group with CRI logging (what runs and in which namespaces is
 * ContainerLaunch's), stop them with the stop signal then SIGKILL, remove
 * them. Every state change is persisted and published as an event.
 */
export class ContainerService {
  private readonly processes = new Map<string, ContainerProcess>();
  /** Container starts fork one per turn of the event loop, so a burst of them does not stall every answer. */
  private readonly startTurns = new Turns();
  /** Processes spawned ahead, so that a start need not fork. */
  private readonly spares = new SpareProcesses();
  /** The process that forks containers when no spare waits, so that this one need not. */
  private readonly spawner: Spawner;
  private readonly launch: ContainerLaunch;
  /** The processes of sandboxed containers that their create made, held for their start. */
  private readonly created: CreatedProcesses;

  constructor(
    private readonly state: RuntimeState,
    private readonly images: RuntimeImages,
    private readonly events: ContainerEventHub,
    private readonly cgroups: Cgroups,
    pidNamespaces: PidNamespaces,
    private readonly sandboxes: ImageSandboxes,
    private readonly warn: (message: string) => void = () => {},
  ) {
    this.launch = new ContainerLaunch(state, pidNamespaces, sandboxes, (id) => this.programOf(id));
    this.spawner = new Spawner(warn);
    this.created = new CreatedProcesses(this.spawner);
    sandboxes.useRunner(this.spawner);
  }

  /**
   * After a restart of the runtime, containers that were running can no longer
   * be followed (their output pipes and exit status belonged to the old
   * process): stop any that still run and report them exited, never lost.
   */
  recover(): void {
    for (const c of this.state.containers.values()) {
      // Its create mounted its root file system: its start mounts it again, after this unmount.
      if (c.state === 'CONTAINER_CREATED' && c.sandboxed) this.sandboxes.unmountRootfs(c);
      if (c.state !== 'CONTAINER_RUNNING') continue;
      if (c.pid && isSameProcess(c.pid, c.pidStartTime)) signalGroup(c.pid, 'SIGKILL');
      if (c.sandboxed) this.sandboxes.unmountRootfs(c);
      Object.assign(c, {
        state: 'CONTAINER_EXITED',
        finishedAt: nowNs(),
        exitCode: UNKNOWN_EXIT_CODE,
        reason: 'Unknown',
        message:
          'the embedded runtime restarted while this container ran; it was stopped because its output and exit status could no longer be followed',
        pid: undefined,
        pidStartTime: undefined,
      });
      this.state.saveContainer(c);
    }
  }

  create(podSandboxId: string, config: ContainerConfig__Output | null): string {
    const sandbox = lookup(this.state.sandboxes, podSandboxId, 'pod sandbox');
    if (!config?.metadata?.name) throw invalid('container config must include metadata.name');
    if (sandbox.state !== 'SANDBOX_READY') throw precondition(`pod sandbox ${sandbox.id} is not ready`);
    this.spares.fillWhenQuiet();
    const { name, image, sandboxed } = checkCreate(this.state, this.images, this.sandboxes, sandbox, config);
    const mounts = recordMounts(name, config.mounts, sandboxed ? undefined : this.sandboxes.describe(), (ref) => {
      const volume = this.images.find(ref);
      return volume && { id: volume.id, root: this.sandboxes.volumeRoot(volume) };
    });
    const id = newId();
    // Its sandbox's part (its root file system, its mount begun) is made last, once nothing else can refuse it.
    const record = containerRecord(id, sandbox, config, image, mounts, () =>
      sandboxed ? this.sandboxes.create(id, image, config) : undefined,
    );
    try {
      this.state.saveContainer(record);
    } catch (err) {
      if (record.sandboxed) this.sandboxes.releaseContainer(id, record.sandboxed.ownRoot).catch(() => {});
      throw storageFailed(`failed to create container "${name}"`, err);
    }
    this.publish(record, 'CONTAINER_CREATED_EVENT');
    // Set up while the create answers, as runc's create does; not one whose start must wait for a target
    // container's PID namespace or put it in a cgroup first, nor one with stdin.
    if (
      record.sandboxed &&
      record.pidNamespace?.mode !== 'TARGET' &&
      !record.stdin &&
      !(needsLimits(record) && this.cgroups.mode !== 'none')
    ) {
      this.created.make(record.id, () => this.launch.spec(record, sandbox).then((spec) => this.processSpec(record, spec)));
    }
    return record.id;
  }

  /** What a start runs for container `c`: its launch, its log, its stdin, and its cgroup before its program. */
  private processSpec(c: ContainerRecord, launch: Awaited<ReturnType<ContainerLaunch['spec']>>): ProcessSpec {
    return {
      ...launch,
      stdin: c.stdin,
      logPath: c.logPath,
      onLogError: (err) =>
        this.warn(`container ${c.id} (${c.metadata.name}): ${err.message}; its output is dropped until the file takes it`),
      // With limits to enforce, the program runs only once it is inside its cgroup.
      beforeExec: needsLimits(c) && this.cgroups.mode !== 'none' ? (pid) => this.cgroups.attach(c.id, pid, c.resources!) : undefined,
    };
  }

  /** Starts a created container on its turn, unless CANCELLED says its caller has gone before it is made (it stays created). */
  async start(id: string, cancelled: () => boolean = () => false): Promise<void> {
    await this.startTurns.next();
    const c = lookup(this.state.containers, id, 'container');
    if (cancelled()) throw cancelledError(`the start of container ${c.id} was cancelled before its turn; it was not started`);
    if (c.state !== 'CONTAINER_CREATED')
      throw precondition(`container ${c.id} is in ${c.state} state, only a created container can be started`);
    const sandbox = this.state.sandboxes.get(c.podSandboxId);
    if (!sandbox || sandbox.state !== 'SANDBOX_READY')
      throw precondition(`pod sandbox ${c.podSandboxId} of container ${c.id} is not ready`);
    let proc: ContainerProcess;
    try {
      // Its create's set-up, unless it went without a report (its spawner died with it): then one made now. A
      // set-up that said why it failed (its mounts) fails the start, as runc's create does.
      const made = await this.created.take(c.id);
      // Released before its set-up reports: its shell reads the release only after its report (and never after a
      // failure), so it execs its program without waiting for a round trip through this process. So once it has
      // reported, it is the container's process even if it has ended since: its program may have run already.
      made?.release();
      const failure = await made?.setUpFailed();
      if (failure) throw new Error(failure);
      const held = made && (await made.programStarted) !== undefined ? made : undefined;
      proc =
        held ??
        (await ContainerProcess.start(this.processSpec(c, await this.launch.spec(c, sandbox)), this.spares, this.spawner, cancelled));
      const failed = held ? undefined : await proc.setUpFailed();
      if (failed) throw new Error(failed);
    } catch (err) {
      if (c.sandboxed) this.sandboxes.unmountRootfs(c);
      // Its caller gave up while it waited for the spawner: nothing ran, and the container stays created.
      if (err instanceof StartCancelled)
        throw cancelledError(`the start of container ${c.id} was cancelled before it was made; it was not started`);
      const message = (err as Error).message;
      Object.assign(c, { state: 'CONTAINER_EXITED', finishedAt: nowNs(), exitCode: 128, reason: 'StartError', message });
      this.state.saveContainer(c);
      this.publish(c, 'CONTAINER_STOPPED_EVENT');
      throw unknown(`failed to start container "${c.id}": ${message}`);
    }
    this.processes.set(c.id, proc);
    Object.assign(c, { state: 'CONTAINER_RUNNING', startedAt: nowNs(), pid: proc.pid, pidStartTime: proc.startTime });
    this.state.saveContainer(c);
    this.publish(c, 'CONTAINER_STARTED_EVENT');
    void proc.exited.then((exit) => this.onExit(c.id, exit));
    // As runc's start answers once its init has exec'd the program: bwrap has bound the volumes when the program
    // is there, so what the host mounts after StartContainer does not reach a private volume; a set-up shell
    // reports before its release, then execs the kit's setpriv, which execs the program, so the program is
    // waited for under them too (an exec or a signal right after the start finds it). A wrapper that ends
    // first ends the wait.
    if (c.sandboxed && (await proc.programStarted) !== undefined) await waitForProcess(proc.pid, () => proc.program(), PROGRAM_SETTLE_MS);
  }

  /** A running container's program, once it has started under its wrapper; undefined without one. */
  private async programOf(id: string): Promise<number | undefined> {
    const proc = this.processes.get(id);
    if (!proc?.wrapped) return undefined;
    const started = await proc.programStarted;
    // Its chain of wrappers may still be settling (seen under load): give it the time a start has.
    const program =
      proc.program() ?? (started === undefined ? undefined : await waitForProcess(proc.pid, () => proc.program(), PROGRAM_SETTLE_MS));
    // A running container whose program cannot be found is worth a line: which processes were there.
    if (program === undefined && this.processes.has(id)) {
      this.warn(
        `container ${id}: no program found under its wrapper (${started === undefined ? 'never found' : `found ${started} at its start`}); the processes: ${describeTree(proc.pid)}`,
      );
    }
    return program;
  }

  /** Containers a stop was asked for, until they exit: their exit is no surprise. */
  private readonly stopping = new Set<string>();

  private onExit(id: string, exit: ProcessExit): void {
    const asked = this.stopping.delete(id);
    this.processes.delete(id);
    const oomKilled = this.cgroups.oomKilled(id);
    this.cgroups.release(id);
    const c = this.state.containers.get(id);
    if (!c) return;
    if (c.sandboxed) this.sandboxes.unmountRootfs(c);
    Object.assign(c, {
      state: 'CONTAINER_EXITED',
      // Read by the spawner to the millisecond: a program that ended within the millisecond of its start is not said to end before it.
      finishedAt: Math.max(exit.finishedAt.getTime() * 1e6, c.startedAt),
      exitCode: exit.exitCode,
      reason: oomKilled ? 'OOMKilled' : exit.exitCode === 0 ? 'Completed' : 'Error',
      pid: undefined,
      pidStartTime: undefined,
    });
    this.state.saveContainer(c);
    this.publish(c, 'CONTAINER_STOPPED_EVENT');
    const lived = c.finishedAt - c.startedAt;
    if (!asked && exit.exitCode !== 0 && lived < EARLY_EXIT_NS) {
      this.warn(
        `container ${c.id} (${c.metadata.name}) exited ${Math.round(lived / 1e6)} ms after its start with code ${exit.exitCode}${exit.signal ? ` (${exit.signal})` : ''}; its output ends: ${JSON.stringify(logTail(c.logPath))}`,
      );
    }
  }

  /**
   * Stops with the container's stop signal, then SIGKILL after `timeoutSeconds`; returns once it has exited.
   * An unknown id is not an error: stopping is idempotent (critest's Idempotence suite; containerd 2).
   */
  async stop(id: string, timeoutSeconds: number): Promise<void> {
    const c = lookupOptional(this.state.containers, id, 'container');
    if (!c) return;
    const proc = this.processes.get(c.id);
    // A created container's set-up, made by its create, ends (its pod stops): a start would make it again.
    if (!proc) return this.created.drop(c.id);
    this.stopping.add(c.id);
    if (timeoutSeconds > 0) {
      await proc.signalProgram(stopSignalOf(c.stopSignal));
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        proc.exited.then(() => false),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutSeconds * 1000))),
      ]);
      clearTimeout(timer);
      if (!timedOut) return;
    }
    proc.signal('SIGKILL');
    await proc.exited; // start() registered onExit first, so the exit is recorded by now
  }

  /** Removes a container, killing it first if it still runs; an unknown id is not an error. */
  async remove(id: string): Promise<void> {
    const c = lookupOptional(this.state.containers, id, 'container');
    if (!c) return;
    await this.stop(c.id, 0);
    if (c.sandboxed) await this.sandboxes.releaseContainer(c.id, c.sandboxed.ownRoot);
    const deleted = this.state.deleteContainer(c.id);
    this.publish(c, 'CONTAINER_DELETED_EVENT');
    if (c.sandboxed && imagesOf(c).some((id) => !this.images.list().some((i) => i.id === id))) this.pruneImageRoots();
    await deleted;
  }

  /** After RemoveImage, or the last container of a removed image (its own or a volume's): its stacked layers go. */
  pruneImageRoots(): void {
    const sandboxed = [...this.state.containers.values()].filter((c) => c.sandboxed).flatMap(imagesOf);
    this.sandboxes.pruneImageRoots([...this.images.list().map((i) => i.id), ...sandboxed]);
  }

  list(filter: ContainerFilter__Output | null): ContainerRecord[] {
    const out: ContainerRecord[] = [];
    for (const c of filter ? this.state.containersFor(filter.labelSelector, filter.podSandboxId) : this.state.containers.values()) {
      if (filter) {
        if (filter.id && !c.id.startsWith(filter.id)) continue;
        if (filter.podSandboxId && !c.podSandboxId.startsWith(filter.podSandboxId)) continue;
        if (filter.state && c.state !== filter.state.state) continue;
        if (!matchesLabels(c.labels, filter.labelSelector)) continue;
      }
      out.push(c);
    }
    return out;
  }

  get(id: string): ContainerRecord {
    return lookup(this.state.containers, id, 'container');
  }

  async reopenLog(id: string): Promise<void> {
    const c = lookup(this.state.containers, id, 'container');
    const proc = this.processes.get(c.id);
    if (!proc) throw precondition(`container ${c.id} is not running`);
    await proc.reopenLog();
  }

  /** What runs `cmd` beside a running container for a streamed exec: checked as ExecSync checks it. */
  async execCommand(id: string, cmd: string[]): Promise<AttachedCommand> {
    const c = lookup(this.state.containers, id, 'container');
    if (cmd.length === 0) throw invalid('exec command is empty');
    if (c.state !== 'CONTAINER_RUNNING') throw precondition(`container ${c.id} is not running`);
    const run = this.launch.execCommand(c, this.state.sandboxes.get(c.podSandboxId), await this.programOf(c.id));
    // Behind a wrapper, a missing program would be an exit code: it is an error, as with runc.
    const found = run.hasProgram ? run.hasProgram(cmd[0]) : findExecutable(cmd[0], run.env.PATH ?? '', run.cwd) !== undefined;
    if (run.wrapper && !found)
      throw unknown(`OCI runtime exec failed: ${execErrorMessage(cmd[0], Object.assign(new Error('not found'), { code: 'ENOENT' }))}`);
    return { argv: [...(run.wrapper ?? []), ...cmd], env: run.env, cwd: run.cwd, terminalWrapper: run.terminalWrapper };
  }

  /** A running container as an attach sees it: its record, its stdin (if it keeps one) and its end. */
  attachable(id: string): { container: ContainerRecord; stdin?: Writable; output?: OutputTap; exited: Promise<unknown> } {
    const c = lookup(this.state.containers, id, 'container');
    const proc = this.processes.get(c.id);
    if (c.state !== 'CONTAINER_RUNNING' || !proc) throw precondition(`container ${c.id} is not running`);
    return { container: c, stdin: proc.stdin, output: proc.output, exited: proc.exited };
  }

  async exec(id: string, cmd: string[], timeoutSeconds: number): Promise<ExecResult> {
    const c = lookup(this.state.containers, id, 'container');
    if (cmd.length === 0) throw invalid('exec command is empty');
    if (c.state !== 'CONTAINER_RUNNING') throw precondition(`container ${c.id} is not running`);
    // In the container's PID namespace (or sandbox), when it has one.
    return this.launch.exec(c, this.state.sandboxes.get(c.podSandboxId), await this.programOf(c.id), cmd, timeoutSeconds);
  }

  /** New limits for a container (UpdateContainerResources): recorded, and applied to its cgroup while it runs. */
  updateResources(id: string, linux: { memoryLimitInBytes: number; cpuQuota: number; cpuPeriod: number; cpuShares: number } | null): void {
    const c = lookup(this.state.containers, id, 'container');
    if (!linux) return;
    c.resources = {
      memoryLimitInBytes: linux.memoryLimitInBytes,
      cpuQuota: linux.cpuQuota,
      cpuPeriod: linux.cpuPeriod,
      cpuShares: linux.cpuShares,
    };
    this.state.saveContainer(c);
    if (this.processes.has(c.id) && needsLimits(c)) this.cgroups.update(c.id, c.resources);
  }

  /** Stops every running container (runtime shutdown). */
  async stopAll(timeoutSeconds: number): Promise<void> {
    this.spares.close();
    await Promise.all([...this.processes.keys()].map((id) => this.stop(id, timeoutSeconds)));
    await this.created.dropAll();
    this.spawner.close();
  }

  /** Who forks the containers, for `runtime status`. */
  describeSpawning(): string {
    return this.spawner.describe();
  }

  pidOf(id: string): number | undefined {
    return this.processes.get(id)?.pid;
  }

  /** Whether the process `pidOf` gives is a wrapper that runs the program in a PID namespace. */
  isWrapped(id: string): boolean {
    return this.processes.get(id)?.wrapped ?? false;
  }

  /** Every container event carries the sandbox and all its containers, as containerd's do. */
  private publish(c: ContainerRecord, type: ContainerEventType): void {
    if (this.events.subscribers === 0) return;
    this.events.publish(containerEvent(c, type, this.state.sandboxes.get(c.podSandboxId), this.state.containersOf(c.podSandboxId)));
  }
}

function needsLimits(c: ContainerRecord): boolean {
  return !!c.resources && (c.resources.memoryLimitInBytes > 0 || c.resources.cpuQuota > 0);
}

/** How long a start waits for its program to show under its wrapper, and an exec for a started container's. */
const PROGRAM_SETTLE_MS = 2_000;

/** A non-zero exit this soon after the start is said in the runtime's log (a start that failed under its wrapper, say). */
const EARLY_EXIT_NS = 2_000 * 1e6;

/** The images whose stacked layers container `c` stands on: its own, and its image volumes'. */
function imagesOf(c: ContainerRecord): string[] {
  return [c.imageId, ...c.mounts.flatMap((m) => (m.image ? [m.image.imageId] : []))];
}
