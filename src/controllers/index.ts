import { RealClock, type Clock } from '../util/clock.js';
import type { Controller, ControllerEvent } from './controller.js';
import { DeploymentController } from './deployment.js';
import { LocalApiserver } from './local-api.js';
import { ReplicaSetController } from './replicaset.js';
import { ObjectStore } from './store.js';

export type { ControllerEvent } from './controller.js';
export { LocalApiserver } from './local-api.js';
export { ObjectStore } from './store.js';

export interface WorkloadsOptions {
  nodeName: string;
  nodeLabels: Record<string, string>;
  /** Where the objects are saved (none: kept in memory only). */
  file?: string;
  clock?: Clock;
  random?: () => number;
}

/**
 * A standalone node's workloads: the object store, the local apiserver the
 * kubelet reads pods from, and the controllers that turn Deployments,
 * ReplicaSets and Jobs into pods. Start them once the kubelet can take
 * their events; stop saves the objects.
 */
export class LocalWorkloads {
  readonly store: ObjectStore;
  readonly api: LocalApiserver;
  private controllers: Controller[] = [];

  constructor(private readonly opts: WorkloadsOptions) {
    const clock = opts.clock ?? new RealClock();
    this.store = new ObjectStore(clock, opts.random);
    this.api = new LocalApiserver(this.store, clock, opts.file);
  }

  start(record: (event: ControllerEvent) => void): void {
    const deps = {
      store: this.store,
      clock: this.opts.clock ?? new RealClock(),
      nodeName: this.opts.nodeName,
      nodeLabels: this.opts.nodeLabels,
      record,
    };
    this.controllers = [new ReplicaSetController(deps), new DeploymentController(deps)];
    for (const c of this.controllers) c.start();
  }

  stop(): void {
    for (const c of this.controllers) c.stop();
    this.api.save();
  }
}
