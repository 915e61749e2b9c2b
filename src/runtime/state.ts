import { join } from 'node:path';
import type { ContainerRecord, SandboxRecord } from './records.js';
import { RecordDir } from './store.js';

/**
 * The runtime's sandboxes and containers, in memory and on disk. Every change
 * goes through `save*`/`delete*`, so what is on disk is what the runtime knew
 * at its last step.
 */
export class RuntimeState {
  readonly sandboxes = new Map<string, SandboxRecord>();
  readonly containers = new Map<string, ContainerRecord>();
  /** Container ids by sandbox id, so a sandbox's containers are found without going through every container. */
  private readonly bySandbox = new Map<string, Set<string>>();
  private readonly revisions = new Map<string, number>();
  private nextRevision = 1;
  private readonly sandboxDir: RecordDir<SandboxRecord>;
  private readonly containerDir: RecordDir<ContainerRecord>;

  constructor(stateDir: string, onBadRecord: (file: string, err: unknown) => void) {
    this.sandboxDir = new RecordDir(join(stateDir, 'sandboxes'));
    this.containerDir = new RecordDir(join(stateDir, 'containers'));
    for (const sandbox of this.sandboxDir.loadAll(onBadRecord)) this.sandboxes.set(sandbox.id, sandbox);
    for (const container of this.containerDir.loadAll(onBadRecord)) this.index(container);
  }

  /** Grows whenever the record is saved, so encodings of it can be cached until it changes. */
  revision(id: string): number {
    return this.revisions.get(id) ?? 0;
  }

  saveSandbox(sandbox: SandboxRecord): void {
    this.revisions.set(sandbox.id, this.nextRevision++);
    this.sandboxes.set(sandbox.id, sandbox);
    this.sandboxDir.save(sandbox);
  }

  deleteSandbox(id: string): void {
    this.revisions.delete(id);
    this.sandboxes.delete(id);
    this.sandboxDir.delete(id);
  }

  saveContainer(container: ContainerRecord): void {
    this.revisions.set(container.id, this.nextRevision++);
    this.index(container);
    this.containerDir.save(container);
  }

  deleteContainer(id: string): void {
    const sandboxId = this.containers.get(id)?.podSandboxId;
    const siblings = sandboxId === undefined ? undefined : this.bySandbox.get(sandboxId);
    siblings?.delete(id);
    if (siblings?.size === 0) this.bySandbox.delete(sandboxId!);
    this.revisions.delete(id);
    this.containers.delete(id);
    this.containerDir.delete(id);
  }

  containersOf(sandboxId: string): ContainerRecord[] {
    return [...(this.bySandbox.get(sandboxId) ?? [])].map((id) => this.containers.get(id)!);
  }

  private index(container: ContainerRecord): void {
    this.containers.set(container.id, container);
    let ids = this.bySandbox.get(container.podSandboxId);
    if (!ids) this.bySandbox.set(container.podSandboxId, (ids = new Set()));
    ids.add(container.id);
  }
}
