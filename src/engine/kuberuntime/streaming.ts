// The runtime's streaming URLs for a pod's containers and sandbox (upstream's GetExec, GetAttach, GetPortForward).
import type { RuntimeService, StreamFlags } from '../../cri/runtime-service.js';
import { KubeletLabels } from '../../cri/types.js';

/** The runtime's streaming URL for `cmd` in the pod's running container `name`; undefined when no such container runs. */
export async function getExec(
  rt: RuntimeService,
  uid: string,
  name: string,
  cmd: string[],
  flags: StreamFlags,
): Promise<string | undefined> {
  const containerId = await runningContainer(rt, uid, name);
  return containerId === undefined ? undefined : rt.exec({ containerId, cmd, ...flags });
}

/** The runtime's streaming URL to attach to the pod's running container `name`; undefined when it does not run. */
export async function getAttach(rt: RuntimeService, uid: string, name: string, flags: StreamFlags): Promise<string | undefined> {
  const containerId = await runningContainer(rt, uid, name);
  return containerId === undefined ? undefined : rt.attach({ containerId, ...flags });
}

/** The runtime's streaming URL to forward ports into the pod's ready sandbox; undefined without one. */
export async function getPortForward(rt: RuntimeService, uid: string, ports: number[]): Promise<string | undefined> {
  const sandboxes = await rt.listPodSandbox({ labelSelector: { [KubeletLabels.podUid]: uid }, state: { state: 'SANDBOX_READY' } });
  const newest = sandboxes.sort((a, b) => Number(b.createdAt) - Number(a.createdAt))[0];
  return newest === undefined ? undefined : rt.portForward(newest.id, ports);
}

async function runningContainer(rt: RuntimeService, uid: string, name: string): Promise<string | undefined> {
  const running = await rt.listContainers({
    labelSelector: { [KubeletLabels.podUid]: uid, [KubeletLabels.containerName]: name },
    state: { state: 'CONTAINER_RUNNING' },
  });
  return running[0]?.id;
}
