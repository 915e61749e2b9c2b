import type { ContainerEventResponse } from '../cri/gen/runtime/v1/ContainerEventResponse.js';

export type ContainerEventListener = (event: ContainerEventResponse) => void;

/** Fans container lifecycle events out to every open GetContainerEvents stream. */
export class ContainerEventHub {
  private readonly listeners = new Set<ContainerEventListener>();

  subscribe(listener: ContainerEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get subscribers(): number {
    return this.listeners.size;
  }

  publish(event: ContainerEventResponse): void {
    for (const listener of this.listeners) listener(event);
  }
}
