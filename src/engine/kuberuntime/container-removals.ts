// A container's removal, asked of the runtime once (see ContainerRemovals).
import type { RuntimeService } from '../../cri/runtime-service.js';
import { cleanContainerLogs } from '../container-log-manager.js';

/** How many removed container ids are remembered, so as not to ask for them again. */
const REMEMBERED_REMOVALS = 1_024;

/**
 * Removes containers and their log files, rotated ones too (the kubelet's
 * removeContainer and removeContainerLog). A removal of the same container
 * under way is joined, not asked again: the container deletor and a removed
 * pod's cleanup both ask for its dead containers, and containerd refuses a
 * second removal of one being removed ("already in removing state"). One
 * removed a moment ago is not asked for again either: an id is never
 * reused, so the second ask would be two calls that find nothing.
 */
export class ContainerRemovals {
  private readonly removing = new Map<string, Promise<void>>();
  private readonly removed = new Set<string>();

  constructor(private readonly rt: Pick<RuntimeService, 'containerStatus' | 'removeContainer'>) {}

  remove(id: string): Promise<void> {
    if (this.removed.has(id)) return Promise.resolve();
    const underWay = this.removing.get(id);
    if (underWay) return underWay;
    const removal = this.removeNow(id).finally(() => this.removing.delete(id));
    this.removing.set(id, removal);
    return removal;
  }

  private async removeNow(id: string): Promise<void> {
    const logPath = (await this.rt.containerStatus(id).catch(() => undefined))?.status?.logPath;
    if (logPath) await cleanContainerLogs(logPath);
    await this.rt.removeContainer(id);
    this.removed.add(id);
    if (this.removed.size > REMEMBERED_REMOVALS) this.removed.delete(this.removed.values().next().value!);
  }
}
