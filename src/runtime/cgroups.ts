import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ContainerLimits {
  memoryLimitInBytes: number;
  cpuQuota: number;
  cpuPeriod: number;
  cpuShares: number;
}

/**
 * Resource limits for host-process containers through cgroups, where the host
 * lets the runtime write them (root, a writable cgroup file system): a group
 * per container under `knode/`, memory and CPU limits written, the process
 * moved in right after it starts. Elsewhere limits are recorded, not
 * enforced, and `mode` says so.
 */
export class Cgroups {
  readonly mode: 'v1' | 'v2' | 'none';
  readonly reason: string;
  /** Why limits could not be applied to a container, once that happened. */
  private failure: string | undefined;

  constructor(private readonly root = '/sys/fs/cgroup') {
    const detected = this.detect();
    this.mode = detected.mode;
    this.reason = detected.reason;
  }

  private detect(): { mode: Cgroups['mode']; reason: string } {
    try {
      if (existsSync(join(this.root, 'cgroup.controllers'))) {
        mkdirSync(join(this.root, 'knode'), { recursive: true });
        writeFileSync(join(this.root, 'cgroup.subtree_control'), '+memory +cpu');
        writeFileSync(join(this.root, 'knode', 'cgroup.subtree_control'), '+memory +cpu');
        return { mode: 'v2', reason: 'cgroup v2' };
      }
      if (existsSync(join(this.root, 'memory'))) {
        mkdirSync(join(this.root, 'memory', 'knode'), { recursive: true });
        if (existsSync(join(this.root, 'cpu'))) mkdirSync(join(this.root, 'cpu', 'knode'), { recursive: true });
        return { mode: 'v1', reason: 'cgroup v1' };
      }
      return { mode: 'none', reason: `no cgroup file system at ${this.root}` };
    } catch (err) {
      return { mode: 'none', reason: `cannot write cgroups (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
    }
  }

  /** What `knode runtime status` says about limits. */
  describe(): string {
    if (this.mode === 'none') return `not enforced: ${this.reason}`;
    if (this.failure) return `not enforced: ${this.failure}`;
    return `enforced (${this.reason})`;
  }

  /** Puts a process under its container's limits (before it runs the program); false when that failed. */
  attach(id: string, pid: number, limits: ContainerLimits): boolean {
    try {
      this.write(id, pid, limits);
      const membership = readFileSync(`/proc/${pid}/cgroup`, 'utf8');
      if (!membership.includes(`/knode/${id}`)) throw new Error(`process ${pid} did not move into its cgroup`);
      return true;
    } catch (err) {
      this.failure = `could not put a container into its cgroup (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
      return false;
    }
  }

  private write(id: string, pid: number, limits: ContainerLimits): void {
    if (this.mode === 'v2') {
      const dir = join(this.root, 'knode', id);
      mkdirSync(dir, { recursive: true });
      if (limits.memoryLimitInBytes > 0) writeFileSync(join(dir, 'memory.max'), String(limits.memoryLimitInBytes));
      if (limits.cpuQuota > 0) writeFileSync(join(dir, 'cpu.max'), `${limits.cpuQuota} ${limits.cpuPeriod || 100_000}`);
      writeFileSync(join(dir, 'cgroup.procs'), String(pid));
      return;
    }
    const memory = join(this.root, 'memory', 'knode', id);
    mkdirSync(memory, { recursive: true });
    if (limits.memoryLimitInBytes > 0) writeFileSync(join(memory, 'memory.limit_in_bytes'), String(limits.memoryLimitInBytes));
    writeFileSync(join(memory, 'cgroup.procs'), String(pid));
    if (!existsSync(join(this.root, 'cpu', 'knode'))) return;
    const cpu = join(this.root, 'cpu', 'knode', id);
    mkdirSync(cpu, { recursive: true });
    if (limits.cpuShares > 0) writeFileSync(join(cpu, 'cpu.shares'), String(limits.cpuShares));
    if (limits.cpuQuota > 0) {
      writeFileSync(join(cpu, 'cpu.cfs_period_us'), String(limits.cpuPeriod || 100_000));
      writeFileSync(join(cpu, 'cpu.cfs_quota_us'), String(limits.cpuQuota));
    }
    writeFileSync(join(cpu, 'cgroup.procs'), String(pid));
  }

  /** Changes a running container's limits (UpdateContainerResources); false when it could not. */
  update(id: string, limits: ContainerLimits): boolean {
    if (this.mode === 'none') return false;
    try {
      if (this.mode === 'v2') {
        const dir = join(this.root, 'knode', id);
        if (limits.memoryLimitInBytes > 0) writeFileSync(join(dir, 'memory.max'), String(limits.memoryLimitInBytes));
        if (limits.cpuQuota > 0) writeFileSync(join(dir, 'cpu.max'), `${limits.cpuQuota} ${limits.cpuPeriod || 100_000}`);
        return true;
      }
      if (limits.memoryLimitInBytes > 0)
        writeFileSync(join(this.root, 'memory', 'knode', id, 'memory.limit_in_bytes'), String(limits.memoryLimitInBytes));
      const cpu = join(this.root, 'cpu', 'knode', id);
      if (existsSync(cpu)) {
        if (limits.cpuShares > 0) writeFileSync(join(cpu, 'cpu.shares'), String(limits.cpuShares));
        if (limits.cpuQuota > 0) writeFileSync(join(cpu, 'cpu.cfs_quota_us'), String(limits.cpuQuota));
      }
      return true;
    } catch {
      return false;
    }
  }

  /** Whether the kernel's OOM killer killed a process of the container. */
  oomKilled(id: string): boolean {
    try {
      const file =
        this.mode === 'v2' ? join(this.root, 'knode', id, 'memory.events') : join(this.root, 'memory', 'knode', id, 'memory.oom_control');
      if (this.mode !== 'none') return (/oom_kill (\d+)/.exec(readFileSync(file, 'utf8'))?.[1] ?? '0') !== '0';
    } catch {
      // no group, no OOM record
    }
    return false;
  }

  /** Removes the container's groups once its processes are gone. */
  release(id: string): void {
    const dirs =
      this.mode === 'v2' ? [join(this.root, 'knode', id)] : [join(this.root, 'memory', 'knode', id), join(this.root, 'cpu', 'knode', id)];
    for (const dir of dirs) {
      try {
        rmdirSync(dir);
      } catch {
        // already gone, or not ours
      }
    }
  }
}
