import { podFullName } from './api/pod-util.js';
import type { Pod } from './api/v1.js';

/**
 * The desired pods, by UID and by full name: the kubelet's source of truth
 * for what should run (its podManager, without mirror pods yet).
 */
export class PodManager {
  private readonly byUid = new Map<string, Pod>();
  private readonly byName = new Map<string, Pod>();

  addPod(pod: Pod): void {
    this.byUid.set(pod.metadata.uid!, pod);
    this.byName.set(podFullName(pod), pod);
  }

  updatePod(pod: Pod): void {
    this.addPod(pod);
  }

  removePod(pod: Pod): void {
    this.byUid.delete(pod.metadata.uid!);
    if (this.byName.get(podFullName(pod))?.metadata.uid === pod.metadata.uid) this.byName.delete(podFullName(pod));
  }

  getPodByUid(uid: string): Pod | undefined {
    return this.byUid.get(uid);
  }

  getPodByFullName(fullName: string): Pod | undefined {
    return this.byName.get(fullName);
  }

  getPods(): Pod[] {
    return [...this.byUid.values()];
  }
}
