import { Box, Text, useApp, useInput, useStdout } from 'ink';
import { useEffect, useRef, useState } from 'react';
import type { LifecycleEvent } from '../../engine/events.js';
import type { PodTrace } from '../../engine/trace.js';
import { humanDuration } from '../../engine/api/printers.js';
import { formatEventLine } from '../event-line.js';
import { formatWaterfall } from '../trace-view.js';
import { applyEvent, emptyNodeView, type NodeView, type PodView, type WorkloadView } from './node-view.js';
import { compareStrings } from '../../util/compare.js';

export interface NodeTuiProps {
  subscribe: (listener: (event: LifecycleEvent) => void) => () => void;
  onQuit: () => void;
  /** The pod's start-up trace, for the `t` view. */
  traceOf?: (pod: string) => PodTrace | undefined;
  /** The last lines of a pod's container log, for the `l` view. */
  logsOf?: (pod: string) => Promise<string[]>;
  /** How often the screen may change (ms): a thousand pods must not flicker. */
  refreshMs?: number;
  now?: () => number;
}

type Pane = 'events' | 'detail' | 'trace' | 'logs';

/** The live view of `knode run` on a terminal: node header, pod workers, and events or a pod's detail. */
export function NodeTui({ subscribe, onQuit, traceOf, logsOf, refreshMs = 250, now = Date.now }: NodeTuiProps) {
  const view = useRef<NodeView>(emptyNodeView());
  const dirty = useRef(true);
  const [, setTick] = useState(0);
  const [selected, setSelected] = useState(0);
  const [pane, setPane] = useState<Pane>('events');
  const [logLines, setLogLines] = useState<string[]>([]);
  const { exit } = useApp();
  const { stdout } = useStdout();
  const rows = Math.max(5, (stdout?.rows ?? 40) - 22);

  useEffect(
    () =>
      subscribe((e) => {
        applyEvent(view.current, e);
        dirty.current = true;
      }),
    [subscribe],
  );
  useEffect(() => {
    const timer = setInterval(() => {
      if (!dirty.current) return;
      dirty.current = false;
      setTick((t) => t + 1);
    }, refreshMs);
    return () => clearInterval(timer);
  }, [refreshMs]);

  const pods = [...view.current.pods.values()].sort((a, b) => compareStrings(a.pod, b.pod));
  const current = pods[Math.min(selected, pods.length - 1)];

  useInput((input, key) => {
    if (input === 'q' || (key.ctrl && input === 'c')) {
      onQuit();
      exit();
    } else if (key.upArrow) setSelected((s) => Math.max(0, s - 1));
    else if (key.downArrow) setSelected((s) => Math.max(0, Math.min(pods.length - 1, s + 1)));
    else if (key.return) setPane((p) => (p === 'detail' ? 'events' : 'detail'));
    else if (input === 't') setPane((p) => (p === 'trace' ? 'events' : 'trace'));
    else if (input === 'l' && current && logsOf) {
      setPane('logs');
      void logsOf(current.pod).then(setLogLines, (err: Error) => setLogLines([`cannot read logs: ${err.message}`]));
    } else if (key.escape) setPane('events');
    dirty.current = true;
  });

  const first = Math.max(0, Math.min(selected - Math.floor(rows / 2), pods.length - rows));
  const visible = pods.slice(first, first + rows);
  return (
    <Box flexDirection="column">
      <Header view={view.current} pods={pods} />
      <Workloads workloads={[...view.current.workloads.values()]} />
      <PodTable pods={visible} selected={current?.uid} now={now()} total={pods.length} first={first} />
      <Box borderStyle="single" borderTop borderBottom={false} borderLeft={false} borderRight={false} flexDirection="column">
        {pane === 'events' && <Events events={view.current.events.slice(-12)} />}
        {pane === 'detail' && current && <Detail pod={current} now={now()} />}
        {pane === 'trace' && current && (
          <Text>{traceOf?.(current.pod) ? formatWaterfall(traceOf(current.pod)!) : `no start-up trace of ${current.pod}`}</Text>
        )}
        {pane === 'logs' && current && <Text>{logLines.slice(-12).join('\n') || `(no output from ${current.pod} yet)`}</Text>}
      </Box>
      <Text dimColor>↑/↓ select · Enter detail · t trace · l logs · Esc events · q quit (containers keep running)</Text>
    </Box>
  );
}

function Header({ view, pods }: { view: NodeView; pods: PodView[] }) {
  const running = pods.filter((p) => p.phase === 'Running').length;
  const failing = pods.filter((p) => p.lastError || p.status === 'CrashLoopBackOff').length;
  const sources = [...view.sources].map(([name, ready]) => `${name} ${ready ? '✓' : '…'}`).join(', ') || 'none';
  return (
    <Box flexDirection="column">
      <Text>
        <Text bold>knode</Text> node <Text color="cyan">{view.nodeName || '…'}</Text> · runtime {view.runtime || '…'}
        {view.runtimeHealthy ? '' : <Text color="red"> (not ready)</Text>} · PLEG {view.plegMode}
        {view.draining ? <Text color="yellow"> · draining: stopping every pod</Text> : ''}
        {view.lastRelistMs !== undefined ? ` (relist ${view.lastRelistMs.toFixed(1)}ms)` : ''}
      </Text>
      <Text>
        sources {sources} · pods {pods.length} ({running} running{failing ? <Text color="red">, {failing} failing</Text> : ''})
      </Text>
    </Box>
  );
}

/** How many workload rows the TUI shows above the pods; the rest are counted. */
const WORKLOAD_ROWS = 6;

/** The local controllers' workloads, a line each as `kubectl get all` has them (without ages). */
function Workloads({ workloads }: { workloads: WorkloadView[] }) {
  if (workloads.length === 0) return null;
  const sorted = workloads.sort((a, b) => compareStrings(a.namespace, b.namespace) || compareStrings(a.name, b.name));
  const shown = sorted.slice(0, WORKLOAD_ROWS);
  const width = Math.min(40, Math.max(...shown.map((w) => w.name.length)) + 2);
  return (
    <Box flexDirection="column" marginTop={1}>
      {shown.map((w) => (
        <Text key={`${w.namespace}/${w.name}`}>
          {`  ${w.name.padEnd(width)}${w.cells.map(([column, value]) => `${column} ${value}`).join(' · ')}`}
        </Text>
      ))}
      {sorted.length > shown.length && <Text dimColor>{`  and ${sorted.length - shown.length} more workloads (knode status)`}</Text>}
    </Box>
  );
}

/** Column widths that fit the table (with its two-column selection mark) in 100 columns. */
const COLUMNS: [string, number][] = [
  ['NAME', 25],
  ['PHASE', 10],
  ['READY', 6],
  ['STATUS', 18],
  ['RESTARTS', 9],
  ['WORKER', 12],
  ['LAST SYNC', 10],
  ['BACKOFF', 8],
];

function cells(values: string[]): string {
  return values.map((v, i) => v.slice(0, COLUMNS[i][1] - 1).padEnd(COLUMNS[i][1])).join('');
}

function PodTable({
  pods,
  selected,
  now,
  total,
  first,
}: {
  pods: PodView[];
  selected?: string;
  now: number;
  total: number;
  first: number;
}) {
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text bold>{`  ${cells(COLUMNS.map(([c]) => c))}`}</Text>
      {pods.map((p) => {
        const color =
          p.worker === 'rejected' || p.status === 'CrashLoopBackOff' || p.phase === 'Failed'
            ? 'red'
            : p.phase === 'Running'
              ? 'green'
              : undefined;
        const backoff = p.backoffUntil && p.backoffUntil > now ? humanDuration(p.backoffUntil - now) : '';
        const row = cells([
          p.pod,
          p.phase,
          p.ready,
          p.status,
          String(p.restarts),
          p.worker,
          p.lastSync ? `${humanDuration(now - p.lastSync)} ago` : '',
          backoff,
        ]);
        return (
          <Text key={p.uid} color={color} inverse={p.uid === selected}>
            {`${p.uid === selected ? '>' : ' '} ${row}`}
          </Text>
        );
      })}
      {total > pods.length && <Text dimColor>{`  rows ${first + 1}-${first + pods.length} of ${total}`}</Text>}
    </Box>
  );
}

function Events({ events }: { events: LifecycleEvent[] }) {
  return <Text>{events.map((e) => formatEventLine(e)).join('\n') || 'waiting for events…'}</Text>;
}

function Detail({ pod, now }: { pod: PodView; now: number }) {
  return (
    <Box flexDirection="column">
      <Text bold>
        {pod.pod} ({pod.uid})
      </Text>
      <Text>
        phase {pod.phase} · status {pod.status} · worker {pod.worker} · seen {humanDuration(now - pod.seenAt)} ago
      </Text>
      {[...pod.containers.values()].map((c) => (
        <Text key={c.name}>{`  ${c.name.padEnd(20)} ${c.state.padEnd(8)} ${c.reason.padEnd(22)} restarts ${c.restartCount}`}</Text>
      ))}
      {pod.lastError && <Text color="red">last error: {pod.lastError}</Text>}
    </Box>
  );
}
