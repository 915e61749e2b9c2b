import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import type { LifecycleEvent } from '../../../../src/engine/events.js';
import type { PodTrace } from '../../../../src/engine/trace.js';
import { NodeTui } from '../../../../src/ui/tui/app.js';

afterEach(() => cleanup());

// ---- helpers ----------------------------------------------------------------

const NOW = Date.parse('2026-01-01T12:00:00Z');
const DOWN = '\u001B[B';
const ENTER = '\r';

/** A subscribe that keeps the listener, so the test can push events. */
function eventSource() {
  let listener: ((e: LifecycleEvent) => void) | undefined;
  return {
    subscribe: (l: (e: LifecycleEvent) => void) => {
      listener = l;
      return () => {
        listener = undefined;
      };
    },
    push: (...events: LifecycleEvent[]) => {
      if (!listener) throw new Error('NodeTui did not subscribe');
      for (const e of events) listener(e);
    },
  };
}

const tick = () => new Promise((r) => setTimeout(r, 20));

/**
 * Polls the frame (the TUI redraws on its own interval) until it passes
 * `check`, for up to a second. Then it gives React one more tick: the frame is
 * written at commit, the key handler that knows the new pods only after it.
 */
async function until(lastFrame: () => string | undefined, check: (frame: string) => boolean): Promise<string> {
  const deadline = Date.now() + 1000;
  for (;;) {
    const frame = lastFrame() ?? '';
    if (check(frame)) {
      await tick();
      return lastFrame() ?? '';
    }
    if (Date.now() > deadline) throw new Error(`frame never matched:\n${frame}`);
    await tick();
  }
}
const has =
  (...parts: string[]) =>
  (frame: string) =>
    parts.every((p) => frame.includes(p));

const twoPods: LifecycleEvent[] = [
  {
    type: 'NodeStarted',
    pod: '',
    uid: '',
    at: NOW - 60_000,
    message: 'node node-a on knode-runtime 0.1.0',
    detail: { nodeName: 'node-a', runtimeName: 'knode-runtime', runtimeVersion: '0.1.0', sources: ['file'], evented: false },
  },
  { type: 'SourceReady', pod: '', uid: '', at: NOW - 59_000, message: 'source "file" seen', detail: { source: 'file' } },
  {
    type: 'StatusChanged',
    pod: 'default/web',
    uid: 'uid-web',
    at: NOW - 30_000,
    message: 'Running 1/1',
    detail: {
      phase: 'Running',
      version: 2,
      status: 'Running',
      ready: '1/1',
      restarts: 0,
      ip: '10.0.0.7',
      containers: [{ name: 'nginx', state: 'running', reason: '', restartCount: 0 }],
    },
  },
  {
    type: 'StatusChanged',
    pod: 'default/db',
    uid: 'uid-db',
    at: NOW - 20_000,
    message: 'ContainerCreating 0/2',
    detail: {
      phase: 'Pending',
      version: 1,
      status: 'ContainerCreating',
      ready: '0/2',
      restarts: 0,
      ip: '',
      containers: [
        { name: 'postgres', state: 'waiting', reason: 'ContainerCreating', restartCount: 0 },
        { name: 'exporter', state: 'waiting', reason: 'ContainerCreating', restartCount: 0 },
      ],
    },
  },
];

function rowOf(frame: string, pod: string): string {
  return frame.split('\n').find((l) => l.includes(pod)) ?? '';
}

// ---- the tests ----------------------------------------------------------------

describe('NodeTui', () => {
  it('shows the node, each pod with its phase and READY, and the events', async () => {
    const source = eventSource();
    const { lastFrame } = render(<NodeTui subscribe={source.subscribe} onQuit={() => {}} refreshMs={10} now={() => NOW} />);
    source.push(...twoPods);

    const frame = await until(lastFrame, has('node-a', 'default/web', 'default/db', 'SourceReady'));
    expect(frame).toContain('knode-runtime 0.1.0');
    expect(frame).toContain('file ✓');
    expect(frame).toContain('pods 2 (1 running)');
    expect(rowOf(frame, 'default/web')).toMatch(/default\/web\s+Running\s+1\/1\s+Running/);
    expect(rowOf(frame, 'default/db')).toMatch(/default\/db\s+Pending\s+0\/2\s+ContainerCreating/);
    // The events pane: node-level events are listed, StatusChanged is not.
    expect(frame).toContain('NodeStarted');
    expect(frame).not.toContain('StatusChanged');
  });

  it('shows the workloads the local controllers run above the pods, and forgets a deleted one', async () => {
    const source = eventSource();
    const { lastFrame } = render(<NodeTui subscribe={source.subscribe} onQuit={() => {}} refreshMs={10} now={() => NOW} />);
    const row = (kind: string, name: string, resource: string, cells: [string, string][], deleted?: boolean): LifecycleEvent => ({
      type: 'WorkloadStatus',
      pod: '',
      uid: `uid-${name}`,
      at: NOW,
      detail: { kind, namespace: 'default', name, resource, cells, ...(deleted ? { deleted } : {}) },
    });
    source.push(
      ...twoPods,
      row('Deployment', 'web', 'deployment.apps', [
        ['READY', '1/2'],
        ['UP-TO-DATE', '2'],
        ['AVAILABLE', '1'],
      ]),
      row('Job', 'pi', 'job.batch', [
        ['STATUS', 'Running'],
        ['COMPLETIONS', '0/1'],
      ]),
    );
    const frame = await until(lastFrame, has('deployment.apps/web', 'job.batch/pi'));
    expect(rowOf(frame, 'deployment.apps/web')).toMatch(/deployment\.apps\/web\s+READY 1\/2 · UP-TO-DATE 2 · AVAILABLE 1/);
    expect(rowOf(frame, 'job.batch/pi')).toContain('STATUS Running · COMPLETIONS 0/1');
    // Its events and its rows are no pod's: the pod table keeps its two pods.
    expect(frame).toContain('pods 2 (1 running)');
    source.push(row('Job', 'pi', 'job.batch', [], true));
    expect(await until(lastFrame, (f) => !f.includes('job.batch/pi'))).toContain('deployment.apps/web');
  });

  it('says in its header that the node drains once knode stops every pod (--drain-on-exit)', async () => {
    const source = eventSource();
    const { lastFrame } = render(<NodeTui subscribe={source.subscribe} onQuit={() => {}} refreshMs={10} now={() => NOW} />);
    source.push(...twoPods);
    expect(await until(lastFrame, has('node-a', 'default/web'))).not.toContain('draining');
    source.push({
      type: 'NodeShutdown',
      pod: '',
      uid: '',
      at: NOW,
      reason: 'Shutdown',
      message: 'draining the node: stopping 2 pods',
      detail: { pods: 2 },
    });
    const frame = await until(lastFrame, has('draining: stopping every pod'));
    expect(frame.split('\n').find((l) => l.includes('PLEG'))).toContain('draining: stopping every pod');
  });

  it('shows the selected pod’s containers after ↓ and Enter', async () => {
    const source = eventSource();
    const { lastFrame, stdin } = render(<NodeTui subscribe={source.subscribe} onQuit={() => {}} refreshMs={10} now={() => NOW} />);
    source.push(...twoPods);
    await until(lastFrame, has('default/web', 'default/db'));

    // Pods are sorted by name: db first, so ↓ selects web.
    stdin.write(DOWN);
    await until(lastFrame, (f) => rowOf(f, 'default/web').startsWith('>'));
    stdin.write(ENTER);
    const frame = await until(lastFrame, has('default/web (uid-web)'));
    expect(frame).toMatch(/nginx\s+running/);
    expect(frame).toContain('phase Running · status Running');
    expect(frame).not.toContain('postgres');
    expect(frame).not.toContain('SourceReady');
  });

  it('keeps a selection when ↓ comes before any pod is there', async () => {
    const source = eventSource();
    const { lastFrame, stdin } = render(<NodeTui subscribe={source.subscribe} onQuit={() => {}} refreshMs={10} now={() => NOW} />);
    await until(lastFrame, has('waiting for events'));
    stdin.write(DOWN);
    await tick();
    source.push(...twoPods);
    await until(lastFrame, (f) => rowOf(f, 'default/db').startsWith('>'));
    stdin.write(ENTER);
    const frame = await until(lastFrame, has('default/db (uid-db)'));
    expect(frame).toMatch(/postgres\s+waiting/);
  });

  it('shows the first pod’s containers on Enter without moving', async () => {
    const source = eventSource();
    const { lastFrame, stdin } = render(<NodeTui subscribe={source.subscribe} onQuit={() => {}} refreshMs={10} now={() => NOW} />);
    source.push(...twoPods);
    await until(lastFrame, has('default/web', 'default/db'));
    stdin.write(ENTER);
    const frame = await until(lastFrame, has('default/db (uid-db)'));
    expect(frame).toMatch(/postgres\s+waiting\s+ContainerCreating/);
    expect(frame).toMatch(/exporter\s+waiting\s+ContainerCreating/);
    expect(frame).not.toContain('nginx');

    // Enter again goes back to the events.
    stdin.write(ENTER);
    const back = await until(lastFrame, has('SourceReady'));
    expect(back).not.toContain('default/db (uid-db)');
  });

  it('calls onQuit on q', async () => {
    const source = eventSource();
    const onQuit = vi.fn();
    const { lastFrame, stdin } = render(<NodeTui subscribe={source.subscribe} onQuit={onQuit} refreshMs={10} now={() => NOW} />);
    source.push(...twoPods);
    await until(lastFrame, has('default/web'));
    expect(onQuit).not.toHaveBeenCalled();
    stdin.write('q');
    expect(onQuit).toHaveBeenCalledTimes(1);
  });

  it('shows the selected pod’s start-up waterfall on t', async () => {
    const source = eventSource();
    const trace: PodTrace = {
      pod: 'default/web',
      uid: 'uid-web',
      kind: 'start-up',
      startedAt: 1000,
      finishedAt: 1600,
      outcome: 'Ready',
      stages: [
        { name: 'seen by source', start: 1000, end: 1000 },
        { name: 'image pulled', container: 'nginx', start: 1010, end: 1500 },
        { name: 'container started', container: 'nginx', start: 1500, end: 1600 },
      ],
    };
    const traceOf = vi.fn((pod: string) => (pod === 'default/web' ? trace : undefined));
    const { lastFrame, stdin } = render(
      <NodeTui subscribe={source.subscribe} onQuit={() => {}} traceOf={traceOf} refreshMs={10} now={() => NOW} />,
    );
    source.push(...twoPods);
    await until(lastFrame, has('default/web', 'default/db'));
    stdin.write(DOWN);
    await until(lastFrame, (f) => rowOf(f, 'default/web').startsWith('>'));
    stdin.write('t');
    const frame = await until(lastFrame, has('◀ slowest'));
    expect(frame).toContain('default/web (uid-web) start-up: Ready');
    expect(frame).toMatch(/image pulled nginx.*◀ slowest/);
    expect(frame).toContain('container started nginx');
    expect(traceOf).toHaveBeenCalledWith('default/web');
  });

  it('says so when the selected pod has no trace', async () => {
    const source = eventSource();
    const { lastFrame, stdin } = render(
      <NodeTui subscribe={source.subscribe} onQuit={() => {}} traceOf={() => undefined} refreshMs={10} now={() => NOW} />,
    );
    source.push(...twoPods);
    await until(lastFrame, has('default/db'));
    stdin.write('t');
    await until(lastFrame, has('no start-up trace of default/db'));
  });
});
