/** What the PLEG tells the sync loop about a pod's containers. */
export type PodLifecycleEventType = 'ContainerStarted' | 'ContainerDied' | 'ContainerRemoved' | 'ContainerChanged' | 'PodSync';

export interface PodLifecycleEvent {
  /** The pod's UID. */
  id: string;
  type: PodLifecycleEventType;
  /** The container (or sandbox) id. */
  data: string;
}

/** Every event but ContainerRemoved is worth a pod sync (the kubelet's isSyncPodWorthy). */
export function isSyncPodWorthy(event: PodLifecycleEvent): boolean {
  return event.type !== 'ContainerRemoved';
}
