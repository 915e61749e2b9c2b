import type { Kubelet } from '../engine/kubelet.js';
import { readContainerLog } from '../engine/logs.js';
import { formatEventJson, formatEventLine, isNoisy } from '../ui/event-line.js';
import { renderNodeTui } from '../ui/tui/render.js';

export type NodeOutput = 'tui' | 'plain' | 'json';

/**
 * Shows a running node the way the user asked: the live TUI, plain lines or
 * NDJSON. Resolves when the user quits the TUI (`q`); never for the others.
 */
export function showNode(kubelet: Kubelet, output: NodeOutput, verbosity: number): { quit: Promise<void>; close(): void } {
  if (output !== 'tui') {
    const unsubscribe = kubelet.events.subscribe((e) => {
      if (output === 'json') process.stdout.write(`${formatEventJson(e)}\n`);
      else if (verbosity >= 4 || !isNoisy(e)) process.stdout.write(`${formatEventLine(e)}\n`);
    });
    return { quit: new Promise(() => {}), close: unsubscribe };
  }
  let quit!: () => void;
  const quitting = new Promise<void>((resolve) => (quit = resolve));
  const tui = renderNodeTui({
    subscribe: (listener) => kubelet.events.subscribe(listener),
    onQuit: quit,
    traceOf: (pod) => kubelet.traces.forPod(pod)[0],
    logsOf: (pod) => lastLogLines(kubelet, pod),
  });
  return { quit: quitting, close: () => tui.unmount() };
}

/** The last lines of the newest container of a pod (`namespace/name`). */
async function lastLogLines(kubelet: Kubelet, ref: string): Promise<string[]> {
  const pod = kubelet.podManager.getPods().find((p) => `${p.metadata.namespace}/${p.metadata.name}` === ref);
  if (!pod) return [`${ref} is not on this node any more`];
  const newest = kubelet.podCache.get(pod.metadata.uid!).status.containers.find((c) => c.logPath);
  if (!newest) return ['no container has written a log yet'];
  const lines: string[] = [`--- ${newest.name} (${newest.logPath})`];
  for await (const line of readContainerLog(newest.logPath, { tailLines: 20 })) lines.push(line);
  return lines;
}
