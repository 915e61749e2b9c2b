import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Pod } from '../engine/api/v1.js';
import type { KubeObject, PersistentVolumeClaim } from '../engine/api/workloads.js';
import type { Controller, ControllerDeps } from './controller.js';
import { ensureClaimDir } from './local-api.js';

/**
 * PersistentVolumeClaims on one node, as the PV controller with a local
 * provisioner and the pvc-protection controller keep them: a claim is bound
 * at once to a directory under the root dir (status Bound, capacity as
 * requested); a deleted claim's directory goes once no pod in the store
 * names it, so data outlives pods but not its claim.
 */
export class ClaimController implements Controller {
  private unsubscribe: (() => void) | undefined;
  /** Deleted claims (`<namespace>/<name>`) whose directories wait for their pods to go. */
  private readonly releasing = new Set<string>();

  constructor(
    private readonly deps: ControllerDeps,
    private readonly claimsDir: string | undefined,
  ) {}

  start(): void {
    this.unsubscribe = this.deps.store.watch((e) => {
      if (e.object.kind === 'PersistentVolumeClaim') {
        if (e.type === 'DELETED') this.release(e.object);
        else this.bind(e.object as PersistentVolumeClaim);
      } else if (e.object.kind === 'Pod' && e.type === 'DELETED') for (const key of [...this.releasing]) this.removeWhenUnused(key);
    });
    for (const claim of this.deps.store.list<PersistentVolumeClaim>('PersistentVolumeClaim')) this.bind(claim);
    // A claim deleted while its pods ran, before a restart: its directory is still to go.
    for (const key of this.directories())
      if (!this.deps.store.get('PersistentVolumeClaim', ...splitClaim(key))) {
        this.releasing.add(key);
        this.removeWhenUnused(key);
      }
  }

  /** Every claim directory there is, as `<namespace>/<name>`. */
  private directories(): string[] {
    if (!this.claimsDir) return [];
    const list = (dir: string) => {
      try {
        return readdirSync(dir);
      } catch {
        return [];
      }
    };
    return list(this.claimsDir).flatMap((namespace) => list(join(this.claimsDir!, namespace)).map((name) => `${namespace}/${name}`));
  }

  stop(): void {
    this.unsubscribe?.();
  }

  private bind(claim: PersistentVolumeClaim): void {
    const { namespace, name } = claim.metadata;
    if (this.claimsDir) ensureClaimDir(this.claimsDir, namespace!, name!);
    const status: PersistentVolumeClaim['status'] = {
      phase: 'Bound',
      accessModes: claim.spec.accessModes,
      capacity: { storage: claim.spec.resources?.requests?.storage ?? '0' },
    };
    this.deps.store.updateStatus('PersistentVolumeClaim', namespace!, name!, status, claim.metadata.uid);
  }

  private release(claim: KubeObject): void {
    const key = `${claim.metadata.namespace}/${claim.metadata.name}`;
    this.releasing.add(key);
    this.removeWhenUnused(key);
  }

  private removeWhenUnused(key: string): void {
    const [namespace, name] = splitClaim(key);
    if (this.deps.store.get('PersistentVolumeClaim', namespace, name)) return void this.releasing.delete(key); // made again
    const used = (this.deps.store.list<KubeObject>('Pod', namespace) as unknown as Pod[]).some((pod) =>
      (pod.spec.volumes ?? []).some((v) => (v.persistentVolumeClaim as { claimName?: string } | undefined)?.claimName === name),
    );
    if (used) return;
    this.releasing.delete(key);
    if (this.claimsDir) rmSync(join(this.claimsDir, namespace, name), { recursive: true, force: true });
  }
}

function splitClaim(key: string): [string, string] {
  const [namespace, name] = key.split('/');
  return [namespace, name];
}
