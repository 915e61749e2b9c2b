import { eventVerbosity } from '../engine/events-table.js';
import type { HostInterface } from '../engine/server/host.js';
import { readContainerLog } from '../engine/logs.js';
import { formatEventJson, formatEventLine, formatEventLogJson } from '../ui/event-line.js';
import { BatchedLines } from './batched-lines.js';

export type NodeOutput = 'tui' | 'plain' | 'json';
export type LogFormat = 'text' | 'json';

/** What the faces read of the kubelet: its events, its traces, and the pods' logs. */
export type NodeFaceHost = Pick<HostInterface, 'events' | 'traces' | 'getPods' | 'getRuntimePodStatus'>;

/**
 * Shows a running node the way the user asked: the live TUI; plain, the
 * node's log on stderr (a line per event up to the verbosity, text or klog's
 * JSON), as the kubelet logs; or json, the NDJSON event stream on stdout for
 * programs. Resolves when the user quits the TUI (`q`); never for the others.
 */
export async function showNode(
  kubelet: NodeFaceHost,
  output: NodeOutput,
  verbosity: number,
  logFormat: LogFormat = 'text',
): Promise<{ quit: Promise<void>; close(): void }> {
  if (output === 'json') {
    // stdout carries nothing but this stream: its lines can wait for the end of the turn.
    const lines = new BatchedLines(process.stdout);
    const unsubscribe = kubelet.events.subscribe((e) => lines.push(formatEventJson(e)));
    return {
      quit: new Promise(() => {}),
      close: () => {
        unsubscribe();
        lines.close();
      },
    };
  }
  if (output === 'plain') {
    // The node's own messages go to stderr between these lines: each is written at once, in order.
    const unsubscribe = kubelet.events.subscribe((e) => {
      if (eventVerbosity(e) <= verbosity)
        process.stderr.write(`${logFormat === 'json' ? formatEventLogJson(e, verbosity) : formatEventLine(e, verbosity)}\n`);
    });
    return { quit: new Promise(() => {}), close: unsubscribe };
  }
  let quit!: () => void;
  const quitting = new Promise<void>((resolve) => (quit = resolve));
  const { renderNodeTui } = await loadTui();
  const tui = renderNodeTui({
    subscribe: (listener) => kubelet.events.subscribe(listener),
    onQuit: quit,
    traceOf: (pod) => kubelet.traces.forPod(pod)[0],
    logsOf: (pod) => lastLogLines(kubelet, pod),
  });
  return { quit: quitting, close: () => tui.unmount() };
}

/**
 * Ink and React cost memory and time to load (bench/notes/density.md): only the live view
 * pays for them. Ink decides once, when it loads, whether it runs under CI
 * (the CI or CONTINUOUS_INTEGRATION variables) and then draws nothing until
 * it exits, and its chalk turns colour off under CI. The live view is only
 * drawn on a terminal, so the variables are hidden while Ink loads and put
 * back for the rest of the process.
 */
async function loadTui(): Promise<typeof import('../ui/tui/render.js')> {
  const keys = ['CI', 'CONTINUOUS_INTEGRATION'] as const;
  const saved = keys.map((k) => [k, process.env[k]] as const);
  for (const k of keys) delete process.env[k];
  try {
    return await import('../ui/tui/render.js');
  } finally {
    for (const [k, v] of saved) if (v !== undefined) process.env[k] = v;
  }
}

/** The last lines of the newest container of a pod (`namespace/name`). */
async function lastLogLines(kubelet: NodeFaceHost, ref: string): Promise<string[]> {
  const pod = kubelet.getPods().find((p) => `${p.metadata.namespace}/${p.metadata.name}` === ref);
  if (!pod) return [`${ref} is not on this node any more`];
  const newest = kubelet.getRuntimePodStatus(pod.metadata.uid!).containers.find((c) => c.logPath);
  if (!newest) return ['no container has written a log yet'];
  const lines: string[] = [`--- ${newest.name} (${newest.logPath})`];
  for await (const line of readContainerLog(newest.logPath, { tailLines: 20 })) lines.push(line);
  return lines;
}
