import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Pod } from '../engine/api/v1.js';
import type { KubeObject, PersistentVolumeClaim } from '../engine/api/workloads.js';
import type { Controller, ControllerDeps } from './controller.js';
import { ensureClaimDir } from './local-api.js';

/** Beside a deleted claim's directory while pods still use it (no claim name starts with a dot). */
const RELEASED = (name: string) => `.${name}.released`;

/**
 * PersistentVolumeClaims on one node, as the PV controller with a local
 * provisioner and the pvc-protection controller keep them: a claim is bound
 * at once to a directory under the root dir (status Bound, capacity as
 * requested); a deleted claim's directory goes once no pod in the store
 * names it, so data outlives pods but not its claim. A directory waiting
 * for its pods is marked on disk, so a restart in between still removes it.
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
    this.unsubscribe = this.deps.store.watch(
      (e) => {
        if (e.object.kind === 'PersistentVolumeClaim') {
          if (e.type === 'DELETED') this.release(`${e.object.metadata.namespace}/${e.object.metadata.name}`);
          else this.bind(structuredClone(e.object) as PersistentVolumeClaim);
        } else if (e.object.kind === 'Pod' && e.type === 'DELETED') for (const key of [...this.releasing]) this.removeWhenUnused(key);
      },
      { shared: true },
    );
    for (const claim of this.deps.store.list<PersistentVolumeClaim>('PersistentVolumeClaim')) this.bind(claim);
    for (const key of this.marked()) this.release(key);
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

  private release(key: string): void {
    this.releasing.add(key);
    if (this.removeWhenUnused(key) || !this.claimsDir) return;
    const [namespace, name] = splitClaim(key);
    writeFileSync(join(this.claimsDir, namespace, RELEASED(name)), '');
  }

  /** Removes the directory of a deleted claim that no pod names; whether it is settled (removed, or the claim is back). */
  private removeWhenUnused(key: string): boolean {
    const [namespace, name] = splitClaim(key);
    const back = this.deps.store.get('PersistentVolumeClaim', namespace, name) !== undefined;
    if (!back) {
      const used = (this.deps.store.list<KubeObject>('Pod', namespace) as unknown as Pod[]).some((pod) =>
        (pod.spec.volumes ?? []).some((v) => v.persistentVolumeClaim?.claimName === name),
      );
      if (used) return false;
    }
    this.releasing.delete(key);
    if (this.claimsDir) {
      if (!back) rmSync(join(this.claimsDir, namespace, name), { recursive: true, force: true });
      rmSync(join(this.claimsDir, namespace, RELEASED(name)), { force: true });
    }
    return true;
  }

  /** The claims marked released on disk (by a run that stopped before their pods went). */
  private marked(): string[] {
    if (!this.claimsDir) return [];
    const list = (dir: string) => {
      try {
        return readdirSync(dir);
      } catch {
        return [];
      }
    };
    return list(this.claimsDir).flatMap((namespace) =>
      list(join(this.claimsDir!, namespace))
        .map((entry) => /^\.(.+)\.released$/.exec(entry)?.[1])
        .filter((name): name is string => name !== undefined)
        .map((name) => `${namespace}/${name}`),
    );
  }
}

function splitClaim(key: string): [string, string] {
  const [namespace, name] = key.split('/');
  return [namespace, name];
}
