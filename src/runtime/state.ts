import { join } from 'node:path';
import type { ContainerRecord, SandboxRecord } from './records.js';
import { LabelIndex } from './label-index.js';
import { RecordDir } from './store.js';

/**
 * The runtime's sandboxes and containers, in memory and on disk. Every change
 * goes through `save*`/`delete*`, so what is on disk is what the runtime knew
 * at its last step.
 *
 * When the disk refuses a write (full, read-only): a new record is not taken
 * at all, and the save throws, so the CRI call that would have created it
 * fails and nothing half-made is left; a change to a known record (a
 * container exited) stays true in memory, is reported through `onUnsaved`,
 * and is written again with the next save that succeeds, or by `flush()`.
 */
export class RuntimeState {
  readonly sandboxes = new Map<string, SandboxRecord>();
  readonly containers = new Map<string, ContainerRecord>();
  /** Container ids by sandbox id, so a sandbox's containers are found without going through every container. */
  private readonly bySandbox = new Map<string, Set<string>>();
  private readonly sandboxLabels = new LabelIndex();
  private readonly containerLabels = new LabelIndex();
  private readonly revisions = new Map<string, number>();
  private nextRevision = 1;
  /** Known records whose last change is not on disk yet, by id. */
  private readonly unsaved = new Map<string, () => void>();
  private readonly sandboxDir: RecordDir<SandboxRecord>;
  private readonly containerDir: RecordDir<ContainerRecord>;

  constructor(
    stateDir: string,
    onBadRecord: (file: string, err: unknown) => void,
    private readonly onUnsaved: (err: Error) => void = () => {},
  ) {
    this.sandboxDir = new RecordDir(join(stateDir, 'sandboxes'));
    this.containerDir = new RecordDir(join(stateDir, 'containers'));
    for (const sandbox of this.sandboxDir.loadAll(onBadRecord)) this.indexSandbox(sandbox);
    for (const container of this.containerDir.loadAll(onBadRecord)) this.index(container);
  }

  /** Grows whenever the record is saved, so encodings of it can be cached until it changes. */
  revision(id: string): number {
    return this.revisions.get(id) ?? 0;
  }

  saveSandbox(sandbox: SandboxRecord): void {
    this.write(sandbox.id, this.sandboxes.has(sandbox.id), () => this.sandboxDir.save(sandbox));
    this.revisions.set(sandbox.id, this.nextRevision++);
    this.indexSandbox(sandbox);
  }

  /** Forgets the sandbox at once; resolves once its record's file is deleted. */
  deleteSandbox(id: string): Promise<void> {
    this.unsaved.delete(id);
    this.revisions.delete(id);
    this.sandboxes.delete(id);
    this.sandboxLabels.remove(id);
    return this.sandboxDir.delete(id);
  }

  saveContainer(container: ContainerRecord): void {
    this.write(container.id, this.containers.has(container.id), () => this.containerDir.save(container));
    this.revisions.set(container.id, this.nextRevision++);
    this.index(container);
  }

  /** How many known records wait to be written again. */
  get unsavedCount(): number {
    return this.unsaved.size;
  }

  /** Writes again what a refused write left in memory only; true when all of it is on disk now. */
  flush(): boolean {
    for (const [id, save] of this.unsaved) {
      try {
        save();
        this.unsaved.delete(id);
      } catch {
        return false;
      }
    }
    return true;
  }

  private write(id: string, known: boolean, save: () => void): void {
    try {
      save();
      this.unsaved.delete(id);
    } catch (err) {
      if (!known) throw err;
      if (!this.unsaved.has(id)) this.onUnsaved(err as Error);
      this.unsaved.set(id, save);
      return;
    }
    this.flush();
  }

  /** Forgets the container at once; resolves once its record's file is deleted. */
  deleteContainer(id: string): Promise<void> {
    const sandboxId = this.containers.get(id)?.podSandboxId;
    const siblings = sandboxId === undefined ? undefined : this.bySandbox.get(sandboxId);
    siblings?.delete(id);
    if (siblings?.size === 0) this.bySandbox.delete(sandboxId!);
    this.unsaved.delete(id);
    this.revisions.delete(id);
    this.containers.delete(id);
    this.containerLabels.remove(id);
    return this.containerDir.delete(id);
  }

  containersOf(sandboxId: string): ContainerRecord[] {
    return [...(this.bySandbox.get(sandboxId) ?? [])].map((id) => this.containers.get(id)!);
  }

  /** The sandboxes a list with `selector` has to look at: those with its rarest label, or all. */
  sandboxesFor(selector: Record<string, string> | undefined): Iterable<SandboxRecord> {
    const ids = this.sandboxLabels.candidates(selector);
    return ids ? [...ids].map((id) => this.sandboxes.get(id)!) : this.sandboxes.values();
  }

  /** The containers a list with `selector` and sandbox id `sandboxId` (whole or a prefix) has to look at. */
  containersFor(selector: Record<string, string> | undefined, sandboxId: string): Iterable<ContainerRecord> {
    const ids = this.containerLabels.candidates(selector);
    if (ids) return [...ids].map((id) => this.containers.get(id)!);
    return this.bySandbox.has(sandboxId) ? this.containersOf(sandboxId) : this.containers.values();
  }

  private indexSandbox(sandbox: SandboxRecord): void {
    this.sandboxes.set(sandbox.id, sandbox);
    this.sandboxLabels.add(sandbox.id, sandbox.labels);
  }

  private index(container: ContainerRecord): void {
    this.containers.set(container.id, container);
    this.containerLabels.add(container.id, container.labels);
    let ids = this.bySandbox.get(container.podSandboxId);
    if (!ids) this.bySandbox.set(container.podSandboxId, (ids = new Set()));
    ids.add(container.id);
  }
}
