import { compareStrings } from '../util/compare.js';
import { RealClock, type Clock } from '../util/clock.js';
import type { KubeObject } from '../engine/api/workloads.js';
import type { Pod } from '../engine/api/v1.js';
import type { Controller, ControllerEvent } from './controller.js';
import { CronJobController } from './cronjob.js';
import { DeploymentController } from './deployment.js';
import { JobController } from './job.js';
import { LocalApiserver } from './local-api.js';
import { ReplicaSetController } from './replicaset.js';
import { ObjectStore } from './store.js';
import { SchedulerController } from './scheduler.js';
import type { NodeAllocatable } from '../engine/admission.js';
import type { Taint } from './node-fit.js';
import { TtlAfterFinishedController } from './ttl-after-finished.js';
// StatefulSet, DaemonSet and their claims
import { ClaimController } from './claims.js';
import { DaemonSetController } from './daemonset.js';
import { StatefulSetController } from './statefulset.js';

export type { ControllerEvent } from './controller.js';
export { LocalApiserver, readSavedObjects, type AppliedAs } from './local-api.js';
export { ObjectStore } from './store.js';
export { rolloutState, waitForRollouts, type RolloutState } from './rollout.js';

export interface WorkloadsOptions {
  nodeName: string;
  nodeLabels: Record<string, string>;
  /** Where the objects are saved (none: kept in memory only). */
  file?: string;
  /** Where claims' directories live (none: claims are bound but have no directory, as in unit tests). */
  claimsDir?: string;
  /** What the node can hold, for the scheduler's resource fit (none: everything fits). */
  allocatable?: NodeAllocatable;
  clock?: Clock;
  random?: () => number;
}

/**
 * A standalone node's workloads: the object store, the local apiserver the
 * kubelet reads pods from, the controllers that turn Deployments,
 * ReplicaSets, StatefulSets, DaemonSets, Jobs and CronJobs into pods, and
 * the scheduler's retry for pods that did not fit. Start them once the
 * kubelet can take their events; stop saves the objects.
 */
export class LocalWorkloads {
  readonly store: ObjectStore;
  readonly api: LocalApiserver;
  private controllers: Controller[] = [];
  private scheduler: SchedulerController | undefined;
  private daemonSets: DaemonSetController | undefined;

  constructor(private readonly opts: WorkloadsOptions) {
    const clock = opts.clock ?? new RealClock();
    this.store = new ObjectStore(clock, opts.random);
    this.api = new LocalApiserver(this.store, clock, opts.file, opts.claimsDir);
  }

  /**
   * Starts the controllers; NODE says what taints the node has now (the
   * pressure taints while it is under pressure) and what pods it runs
   * besides theirs (static pods), for the scheduler.
   */
  start(record: (event: ControllerEvent) => void, node: { taints?: () => Taint[]; otherPods?: () => Pod[] } = {}): void {
    const deps = {
      store: this.store,
      clock: this.opts.clock ?? new RealClock(),
      nodeName: this.opts.nodeName,
      nodeLabels: this.opts.nodeLabels,
      allocatable: this.opts.allocatable,
      nodeTaints: node.taints,
      otherPods: node.otherPods,
      record,
    };
    this.scheduler = new SchedulerController(deps);
    this.controllers = [
      this.scheduler,
      new ReplicaSetController(deps),
      new DeploymentController(deps),
      new JobController(deps),
      new TtlAfterFinishedController(deps),
      new CronJobController(deps),
    ];
    // StatefulSet, DaemonSet and their claims
    this.daemonSets = new DaemonSetController(deps);
    this.controllers.push(new ClaimController(deps, this.opts.claimsDir), new StatefulSetController(deps), this.daemonSets);
    for (const c of this.controllers) c.start();
  }
  /** The node's taints changed: pods left Pending for them are tried again, and each DaemonSet synced, as a Node update requeues them. */
  nodeChanged(): void {
    this.scheduler?.retry();
    this.daemonSets?.resyncAll();
  }

  stop(): void {
    for (const c of this.controllers) c.stop();
    this.api.save();
  }

  /**
   * The objects KEYS name, then what they control (a Deployment's ReplicaSets, their pods), with their status.
   * With `shared`, the dependents are the store's own objects, for a reader that neither changes nor keeps them.
   */
  withDependents(keys: string[], options: { shared?: boolean } = {}): KubeObject[] {
    const out: KubeObject[] = [];
    const seen = new Set<string>();
    const visit = (o: KubeObject) => {
      if (seen.has(o.metadata.uid!)) return;
      seen.add(o.metadata.uid!);
      out.push(o);
      const owns = (d: Readonly<KubeObject>) => d.metadata.ownerReferences?.some((r) => r.uid === o.metadata.uid) === true;
      const namespace = o.metadata.namespace!;
      for (const kind of ['ReplicaSet', 'Job', 'Pod', 'PersistentVolumeClaim']) {
        const dependents = options.shared
          ? [...(this.store.peek(kind, namespace, owns) as KubeObject[])].sort((a, b) => compareStrings(a.metadata.name!, b.metadata.name!))
          : this.store.list(kind, namespace, owns);
        for (const d of dependents) visit(d);
      }
    };
    for (const key of keys) {
      const [kind, namespace, name] = key.split('/');
      const o = this.store.get(kind, namespace, name);
      if (o) visit(o);
    }
    return out;
  }
}
