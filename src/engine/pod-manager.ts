import { ConfigMirrorAnnotation, podFullName } from './api/pod-util.js';
import type { Pod } from './api/v1.js';

/** A mirror pod: the apiserver's copy of a static pod, made by the node that runs it. */
export function isMirrorPod(pod: Pod): boolean {
  return pod.metadata.annotations?.[ConfigMirrorAnnotation] !== undefined;
}

/**
 * The desired pods: the kubelet's source of truth for what should run
 * (upstream's pod.Manager). Mirror pods are kept apart: they are never run,
 * only matched to the static pods they mirror (by full name). Its users take
 * this interface, so that a test can hand them a small fake.
 */
export interface PodManager {
  addPod(pod: Pod): void;
  updatePod(pod: Pod): void;
  removePod(pod: Pod): void;
  getPodByUid(uid: string): Pod | undefined;
  getPodByFullName(fullName: string): Pod | undefined;
  /** The pods to run (mirror pods are not among them). */
  getPods(): Pod[];
  /** The mirror pod of a static pod, if the apiserver has one. */
  getMirrorPodByPod(pod: Pod): Pod | undefined;
  /** The static pod a mirror pod stands for, if it still runs here. */
  getPodByMirrorPod(mirror: Pod): Pod | undefined;
  getMirrorPods(): Pod[];
}

/** The pod manager in memory, by UID and by full name (upstream's basicManager). */
export class BasicPodManager implements PodManager {
  private readonly byUid = new Map<string, Pod>();
  private readonly byName = new Map<string, Pod>();
  private readonly mirrorsByName = new Map<string, Pod>();

  addPod(pod: Pod): void {
    if (isMirrorPod(pod)) {
      this.mirrorsByName.set(podFullName(pod), pod);
      return;
    }
    this.byUid.set(pod.metadata.uid!, pod);
    this.byName.set(podFullName(pod), pod);
  }

  updatePod(pod: Pod): void {
    this.addPod(pod);
  }

  removePod(pod: Pod): void {
    const name = podFullName(pod);
    if (isMirrorPod(pod)) {
      if (this.mirrorsByName.get(name)?.metadata.uid === pod.metadata.uid) this.mirrorsByName.delete(name);
      return;
    }
    this.byUid.delete(pod.metadata.uid!);
    if (this.byName.get(name)?.metadata.uid === pod.metadata.uid) this.byName.delete(name);
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

  getMirrorPodByPod(pod: Pod): Pod | undefined {
    return this.mirrorsByName.get(podFullName(pod));
  }

  getPodByMirrorPod(mirror: Pod): Pod | undefined {
    return this.byName.get(podFullName(mirror));
  }

  getMirrorPods(): Pod[] {
    return [...this.mirrorsByName.values()];
  }
}
