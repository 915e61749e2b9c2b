import { describe, expect, it } from 'vitest';
import { EventStream, type EmittedEvent, type LifecycleEvent } from '../../../src/engine/events.js';
import { TraceRecorder, type PodTrace, type TraceStage } from '../../../src/engine/trace.js';
import { formatWaterfall, toChromeTrace } from '../../../src/ui/trace-view.js';

// ---- helpers ----------------------------------------------------------------

/** A test's event: the detail holds only what the recorder reads. */
type Emit = Partial<Omit<LifecycleEvent, 'type' | 'detail'>> & { type: LifecycleEvent['type']; at: number; detail?: object };

function setup(limit?: number) {
  let clock = 0;
  const events = new EventStream(() => clock);
  const recorder = new TraceRecorder(events, limit);
  const emit = (e: Emit) => {
    clock = e.at;
    events.emit({ pod: 'default/web', uid: 'uid-web', ...e } as EmittedEvent);
  };
  return { events, recorder, emit };
}

const stage = (name: string, start: number, end: number, container?: string): TraceStage => ({ name, container, start, end });

/** A pod's start from the source to Ready, one container `app` with an image pull. */
function startUp(emit: (e: Emit) => void, t0 = 1000, pod?: { pod: string; uid: string }) {
  const p = pod ?? {};
  emit({ ...p, type: 'PodSeen', at: t0 });
  emit({ ...p, type: 'PodAdmitted', at: t0 + 5 });
  emit({ ...p, type: 'WorkerStarted', at: t0 + 10 });
  emit({ ...p, type: 'VolumesReady', at: t0 + 20 });
  emit({ ...p, type: 'SandboxCreated', at: t0 + 100 });
  emit({ ...p, type: 'ImagePulling', container: 'app', at: t0 + 110 });
  emit({ ...p, type: 'ImagePulled', container: 'app', at: t0 + 500 });
  emit({ ...p, type: 'ContainerCreated', container: 'app', at: t0 + 520 });
  emit({ ...p, type: 'ContainerStarted', container: 'app', at: t0 + 600, detail: { containerId: 'c-app-1' } });
  emit({ ...p, type: 'PLEGEvent', reason: 'ContainerStarted', at: t0 + 700, detail: { containerId: 'c-app-1' } });
  emit({ ...p, type: 'PLEGEvent', reason: 'ContainerStarted', at: t0 + 750, detail: { containerId: 'c-other' } });
  emit({ ...p, type: 'PodRunning', at: t0 + 800 });
  emit({ ...p, type: 'PodReady', at: t0 + 850 });
}

const START_UP_STAGES: TraceStage[] = [
  stage('seen by source', 1000, 1000),
  stage('admitted', 1000, 1005),
  stage('worker started', 1005, 1010),
  stage('volumes ready', 1010, 1020),
  stage('sandbox created', 1020, 1100),
  // The pull bar starts when the pull did, not where the sandbox ended.
  stage('image pulled', 1110, 1500, 'app'),
  stage('container created', 1500, 1520, 'app'),
  stage('container started', 1520, 1600, 'app'),
  stage('PLEG observed', 1600, 1700),
  stage('status Running', 1700, 1800),
  stage('Ready', 1800, 1850),
];

// ---- TraceRecorder ------------------------------------------------------------

describe('TraceRecorder', () => {
  it('records a start-up as stages, each bar starting where the previous ended', () => {
    const { recorder, emit } = setup();
    startUp(emit);
    const traces = recorder.forPod('default/web');
    expect(traces).toHaveLength(1);
    expect(traces[0]).toEqual({
      pod: 'default/web',
      uid: 'uid-web',
      kind: 'start-up',
      startedAt: 1000,
      finishedAt: 1850,
      outcome: 'Ready',
      stages: START_UP_STAGES,
    } satisfies PodTrace);
  });

  it("names an image volume's pull (no container) by its volume, from when that pull began", () => {
    const { recorder, emit } = setup();
    emit({ type: 'PodSeen', at: 1000 });
    emit({ type: 'SandboxCreated', at: 1100 });
    emit({ type: 'ImagePulling', at: 1110, detail: { volume: 'tools' } });
    emit({ type: 'ImagePulling', container: 'app', at: 1120 });
    emit({ type: 'ImagePulled', at: 1400, detail: { volume: 'tools', durationMs: 290 } });
    emit({ type: 'ImagePulled', container: 'app', at: 1500 });
    expect(recorder.forPod('default/web')[0].stages.slice(2)).toEqual([
      stage('image pulled', 1110, 1400, 'volume tools'),
      stage('image pulled', 1120, 1500, 'app'),
    ]);
  });

  it('keeps the trace open after PodRunning for the PodReady that follows', () => {
    const { recorder, emit } = setup();
    emit({ type: 'PodSeen', at: 1000 });
    emit({ type: 'ContainerStarted', container: 'app', at: 1100, detail: { containerId: 'c1' } });
    emit({ type: 'PodRunning', at: 1200 });
    expect(recorder.forPod('default/web')[0]).toMatchObject({ finishedAt: 1200, outcome: 'Running' });

    // A finished-but-open trace takes no more stages but its Ready.
    emit({ type: 'ContainerCreated', container: 'app', at: 1250 });
    emit({ type: 'PodReady', at: 1300 });
    const [trace] = recorder.forPod('default/web');
    expect(trace).toMatchObject({ finishedAt: 1300, outcome: 'Ready' });
    expect(trace.stages.map((s) => s.name)).toEqual(['seen by source', 'container started', 'status Running', 'Ready']);

    // Closed now: a later Ready goes nowhere.
    emit({ type: 'PodReady', at: 1400 });
    expect(recorder.forPod('default/web')[0].stages).toHaveLength(4);
  });

  it('adds "PLEG observed" only for the first ContainerStarted PLEG event', () => {
    const { recorder, emit } = setup();
    startUp(emit);
    const names = recorder.forPod('default/web')[0].stages.map((s) => s.name);
    expect(names.filter((n) => n === 'PLEG observed')).toHaveLength(1);
  });

  it('names the init container whose death PLEG reports, by its container id', () => {
    const { recorder, emit } = setup();
    emit({ type: 'PodSeen', at: 0 });
    emit({ type: 'ContainerStarted', container: 'setup', at: 10, detail: { containerId: 'c-setup' } });
    emit({ type: 'PLEGEvent', reason: 'ContainerStarted', at: 20, detail: { containerId: 'c-setup' } });
    emit({ type: 'PLEGEvent', reason: 'ContainerDied', at: 30, detail: { containerId: 'c-setup' } });
    // A death of a container the trace never saw start adds nothing.
    emit({ type: 'PLEGEvent', reason: 'ContainerDied', at: 35, detail: { containerId: 'c-unknown' } });
    emit({ type: 'ContainerStarted', container: 'app', at: 40, detail: { containerId: 'c-app' } });
    emit({ type: 'PodRunning', at: 50 });
    const [trace] = recorder.forPod('default/web');
    expect(trace.stages).toEqual([
      stage('seen by source', 0, 0),
      stage('container started', 0, 10, 'setup'),
      stage('PLEG observed', 10, 20),
      stage('container exited', 20, 30, 'setup'),
      stage('container started', 30, 40, 'app'),
      stage('status Running', 40, 50),
    ]);
    expect(trace.outcome).toBe('Running');
  });

  it('starts a restart trace when a container dies after the start finished', () => {
    const { recorder, emit } = setup();
    startUp(emit);
    emit({ type: 'PLEGEvent', reason: 'ContainerDied', at: 5000, detail: { containerId: 'c-app-1' } });
    emit({ type: 'ContainerCreated', container: 'app', at: 5100 });
    emit({ type: 'ContainerStarted', container: 'app', at: 5200, detail: { containerId: 'c-app-2' } });
    emit({ type: 'PodRunning', at: 5300 });
    emit({ type: 'PodReady', at: 5350 });

    const traces = recorder.forPod('default/web');
    expect(traces.map((t) => t.kind)).toEqual(['restart', 'start-up']);
    expect(traces[0]).toEqual({
      pod: 'default/web',
      uid: 'uid-web',
      kind: 'restart',
      startedAt: 5000,
      finishedAt: 5350,
      outcome: 'Ready',
      stages: [
        stage('container died (PLEG)', 5000, 5000),
        stage('container created', 5000, 5100, 'app'),
        stage('container started', 5100, 5200, 'app'),
        stage('status Running', 5200, 5300),
        stage('Ready', 5300, 5350),
      ],
    } satisfies PodTrace);
    // The start-up trace is untouched by the restart.
    expect(traces[1].stages).toEqual(START_UP_STAGES);
  });

  it('does not start a restart trace for a death during the start', () => {
    const { recorder, emit } = setup();
    emit({ type: 'PodSeen', at: 0 });
    emit({ type: 'PLEGEvent', reason: 'ContainerDied', at: 10, detail: { containerId: 'c-x' } });
    expect(recorder.forPod('default/web').map((t) => t.kind)).toEqual(['start-up']);
  });

  it('ends a trace with the pod failing, rejected or removed', () => {
    for (const [type, outcome] of [
      ['PodFailed', 'Failed'],
      ['PodSucceeded', 'Succeeded'],
      ['PodRejected', 'Rejected'],
      ['PodRemoved', 'Removed'],
    ] as const) {
      const { recorder, emit } = setup();
      emit({ type: 'PodSeen', at: 0 });
      emit({ type, at: 40 });
      emit({ type: 'ContainerStarted', container: 'late', at: 50 });
      const [trace] = recorder.forPod('default/web');
      expect(trace, type).toMatchObject({ finishedAt: 40, outcome });
      expect(
        trace.stages.some((s) => s.container === 'late'),
        type,
      ).toBe(false);
    }
  });

  it('ignores events of pods it never saw, and node-level events', () => {
    const { recorder, emit } = setup();
    emit({ type: 'ContainerStarted', container: 'app', at: 10 });
    emit({ type: 'PodRunning', at: 20 });
    emit({ type: 'NodeStarted', pod: '', uid: '', at: 30 });
    expect(recorder.pods()).toEqual([]);
    expect(recorder.forPod('default/web')).toEqual([]);
  });

  it('returns traces newest first and keeps pods apart', () => {
    const { recorder, emit } = setup();
    startUp(emit, 1000);
    startUp(emit, 20_000, { pod: 'default/db', uid: 'uid-db' });
    emit({ type: 'PLEGEvent', reason: 'ContainerDied', at: 30_000, detail: { containerId: 'c-app-1' } });
    emit({ type: 'PLEGEvent', reason: 'ContainerDied', at: 40_000, detail: { containerId: 'c-app-1' } });
    expect(recorder.forPod('default/web').map((t) => t.startedAt)).toEqual([30_000, 1000]);
    expect(recorder.forPod('default/db').map((t) => t.startedAt)).toEqual([20_000]);
    expect(recorder.pods()).toEqual(['default/web', 'default/db']);
  });

  it('drops the oldest traces beyond its limit', () => {
    const { recorder, emit } = setup(2);
    for (const [i, name] of ['a', 'b', 'c'].entries()) emit({ type: 'PodSeen', pod: `default/${name}`, uid: `uid-${name}`, at: i * 100 });
    expect(recorder.pods()).toEqual(['default/b', 'default/c']);
    expect(recorder.forPod('default/a')).toEqual([]);
    // The dropped trace was open; its later events bring nothing back.
    emit({ type: 'PodRunning', pod: 'default/a', uid: 'uid-a', at: 500 });
    expect(recorder.forPod('default/a')).toEqual([]);
    expect(recorder.forPod('default/b')[0].finishedAt).toBeUndefined();
  });

  it('keeps nothing but the traces of pods that are gone, however they ended', () => {
    const { recorder, emit } = setup();
    for (let i = 0; i < 20; i++) {
      const pod = { pod: `default/p${i}`, uid: `uid-p${i}` };
      if (i % 2 === 0) startUp(emit, 1000 * (i + 1), pod);
      else {
        // Removed while its image was pulled.
        emit({ ...pod, type: 'PodSeen', at: 1000 * (i + 1) });
        emit({ ...pod, type: 'ImagePulling', container: 'app', at: 1000 * (i + 1) + 100 });
      }
      emit({ ...pod, type: 'PodRemoved', at: 1000 * (i + 1) + 900 });
      // Its containers killed: no restart.
      emit({ ...pod, type: 'PLEGEvent', reason: 'ContainerDied', at: 1000 * (i + 1) + 950, detail: { containerId: 'c-app-1' } });
      emit({ ...pod, type: 'PodTerminated', at: 1000 * (i + 1) + 960 });
    }
    // Was: the container names of every pod that got Ready, the pull of every pod, and a restart trace of each Ready one.
    expect(recorder.podsTracked).toBe(0);
    expect(recorder.forPod('default/p0').map((t) => [t.kind, t.outcome])).toEqual([['start-up', 'Ready']]);
    expect(recorder.forPod('default/p1').map((t) => [t.kind, t.outcome])).toEqual([['start-up', 'Removed']]);
  });

  it('traces a pod written again after its removal (a static pod keeps its uid)', () => {
    const { recorder, emit } = setup();
    startUp(emit);
    emit({ type: 'PodRemoved', at: 5000 });
    startUp(emit, 6000);
    expect(recorder.forPod('default/web').map((t) => [t.kind, t.outcome, t.startedAt])).toEqual([
      ['start-up', 'Ready', 6000],
      ['start-up', 'Ready', 1000],
    ]);
  });
});

// ---- formatWaterfall ----------------------------------------------------------

function recordedStartUp(): PodTrace {
  const { recorder, emit } = setup();
  startUp(emit);
  return recorder.forPod('default/web')[0];
}

describe('formatWaterfall', () => {
  it('names pod, uid, kind and outcome in the header', () => {
    const header = formatWaterfall(recordedStartUp()).split('\n')[0];
    expect(header).toContain('default/web');
    expect(header).toContain('uid-web');
    expect(header).toContain('start-up');
    expect(header).toContain('Ready');
    expect(header).toContain('850.0ms');
  });

  it('has one line per stage, in order', () => {
    const trace = recordedStartUp();
    const lines = formatWaterfall(trace).split('\n');
    const labels = trace.stages.map((s) => (s.container ? `${s.name} ${s.container}` : s.name));
    const stageLines = lines.filter((l) => l.includes('|'));
    expect(stageLines).toHaveLength(trace.stages.length);
    stageLines.forEach((line, i) => expect(line.startsWith(labels[i]), line).toBe(true));
  });

  it('marks exactly the slowest stage', () => {
    const lines = formatWaterfall(recordedStartUp()).split('\n');
    const marked = lines.filter((l) => l.includes('◀ slowest'));
    expect(marked).toHaveLength(1);
    expect(marked[0]).toMatch(/^image pulled app\b/);
    expect(marked[0]).toContain('390.0ms');
  });

  it('says "in progress" for a trace that has not finished, and marks nothing for a single stage', () => {
    const out = formatWaterfall({
      pod: 'default/web',
      uid: 'u1',
      kind: 'restart',
      startedAt: 0,
      stages: [stage('container died (PLEG)', 0, 0)],
    });
    expect(out.split('\n')[0]).toContain('restart: in progress');
    expect(out).not.toContain('slowest');
  });
});

// ---- toChromeTrace ------------------------------------------------------------

describe('toChromeTrace', () => {
  const traces: PodTrace[] = [
    recordedStartUp(),
    {
      pod: 'default/db',
      uid: 'uid-db',
      kind: 'restart',
      startedAt: 2000.4,
      finishedAt: 2600,
      outcome: 'Running',
      stages: [stage('container died (PLEG)', 2000.4, 2000.4), stage('container started', 2000.4, 2600.6, 'pg')],
    },
  ];

  it('writes trace-event JSON: complete events in whole microseconds and a thread name per trace', () => {
    const out = toChromeTrace(traces);
    expect(Array.isArray(out.traceEvents)).toBe(true);
    const events = out.traceEvents as Record<string, unknown>[];

    const meta = events.filter((e) => e.ph === 'M');
    expect(meta).toHaveLength(2);
    for (const m of meta) expect(m.name).toBe('thread_name');
    expect(meta.map((m) => (m.args as { name: string }).name)).toEqual(['default/web start-up', 'default/db restart']);
    expect(new Set(meta.map((m) => m.tid)).size).toBe(2);

    const complete = events.filter((e) => e.ph === 'X');
    expect(complete).toHaveLength(traces[0].stages.length + traces[1].stages.length);
    for (const e of complete) {
      expect(typeof e.name).toBe('string');
      expect(typeof e.pid).toBe('number');
      expect(typeof e.tid).toBe('number');
      expect(Number.isInteger(e.ts), `ts of ${e.name}`).toBe(true);
      expect(Number.isInteger(e.dur), `dur of ${e.name}`).toBe(true);
      expect(e.dur as number).toBeGreaterThanOrEqual(1);
    }
    expect(events.length).toBe(meta.length + complete.length);
  });

  it('puts each stage at its start in microseconds, on its trace’s track', () => {
    const events = toChromeTrace(traces).traceEvents as Record<string, unknown>[];
    const pull = events.find((e) => e.name === 'image pulled app')!;
    expect(pull).toMatchObject({ ph: 'X', ts: 1_110_000, dur: 390_000 });
    // A stage of no length still gets a visible 1 µs.
    expect(events.find((e) => e.name === 'seen by source')).toMatchObject({ ts: 1_000_000, dur: 1 });
    // Fractional milliseconds round to whole microseconds.
    expect(events.find((e) => e.name === 'container started pg')).toMatchObject({ ts: 2_000_400, dur: 600_200 });
    const metaTid = (pod: string) => events.find((e) => e.ph === 'M' && (e.args as { name: string }).name.startsWith(pod))!.tid;
    expect(pull.tid).toBe(metaTid('default/web'));
    expect(events.find((e) => e.name === 'container started pg')!.tid).toBe(metaTid('default/db'));
  });

  it('round-trips through JSON', () => {
    const out = toChromeTrace(traces);
    expect(JSON.parse(JSON.stringify(out))).toEqual(out);
  });

  it('gives no events for no traces', () => {
    expect(toChromeTrace([]).traceEvents).toEqual([]);
  });
});
