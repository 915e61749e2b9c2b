import { ensureEmbeddedRuntime } from '../cri/embedded.js';
import type { EventStream } from '../engine/events.js';

/**
 * Keeps the embedded runtime up for a node that uses it: when the kubelet
 * finds the runtime not answering, the runtime is started again (it recovers
 * its state from disk, and the kubelet restarts containers by policy).
 * Returns the unsubscribe.
 */
export function superviseEmbeddedRuntime(
  kubelet: { readonly events: Pick<EventStream, 'subscribe'> },
  rootDir: string,
  warn: (message: string) => void,
): () => void {
  let restarting = false;
  return kubelet.events.subscribe((e) => {
    if (e.type !== 'RuntimeUnhealthy' || restarting || !/does not answer/.test(e.message ?? '')) return;
    restarting = true;
    warn('the embedded runtime does not answer: starting it again');
    ensureEmbeddedRuntime(rootDir)
      .catch((err: Error) => warn(`could not start the embedded runtime again: ${err.message}`))
      .finally(() => (restarting = false));
  });
}
