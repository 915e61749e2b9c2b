// The workloads in apply's task list, through the real listr2 renderers into
// a buffer: a task per workload, its pods added under it as they come, a
// deleted pod skipped, a pod's start stages routed to it, and failures (the
// workload's, a pod's, apply's timeout) told in plain lines and on a terminal.
import { Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LifecycleEvent } from '../../../src/engine/events.js';
import { renderApplyTasks } from '../../../src/ui/apply-tasks.js';
import type { PodProgress, WorkloadFeed, WorkloadProgress } from '../../../src/ui/workload-tasks.js';

const tick = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** A feed the test moves by hand, and an event stream for the pods' stages. */
function harness(initial: WorkloadProgress[]) {
  const state = new Map(initial.map((w) => [w.key, w]));
  const listeners = new Set<(w: WorkloadProgress) => void>();
  const eventListeners = new Set<(e: LifecycleEvent) => void>();
  let end!: (why: string) => void;
  const feed: WorkloadFeed = {
    current: () => [...state.values()],
    subscribe: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    ended: new Promise((resolve) => (end = resolve)),
  };
  let text = '';
  const out = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  return {
    render: (tty: boolean) =>
      renderApplyTasks(
        [],
        {
          subscribe: (l) => {
            eventListeners.add(l);
            return () => eventListeners.delete(l);
          },
          outcomes: Promise.resolve([]),
          workloads: feed,
        },
        tty,
        out,
      ),
    set: async (w: WorkloadProgress) => {
      state.set(w.key, w);
      for (const l of [...listeners]) l(w);
      await tick();
    },
    event: async (e: Partial<LifecycleEvent>) => {
      for (const l of [...eventListeners]) l({ uid: 'u', at: 0, ...e } as LifecycleEvent);
      await tick();
    },
    end: async (why: string) => {
      end(why);
      await tick();
    },
    lines: () => stripVTControlCharacters(text).split('\n').filter(Boolean),
    text: () => stripVTControlCharacters(text),
  };
}

const pod = (name: string, status: string, state: PodProgress['state'] = 'waiting', extra: Partial<PodProgress> = {}): PodProgress => ({
  ref: `default/${name}`,
  name,
  ready: state === 'done' ? '1/1' : '0/1',
  status,
  restarts: 0,
  state,
  ...extra,
});

const web = (
  summary: string,
  state: WorkloadProgress['state'],
  pods: PodProgress[],
  message = 'Waiting for rollout',
): WorkloadProgress => ({
  key: 'Deployment/default/web',
  name: 'deployment.apps/web',
  summary,
  state,
  message,
  pods,
});

describe('the workloads in the task list, in plain lines', () => {
  // Whatever the test's own stdout is, listr2 is to find no terminal there.
  const stdoutTTY = process.stdout.isTTY;
  beforeEach(() => {
    process.stdout.isTTY = false as true;
  });
  afterEach(() => {
    process.stdout.isTTY = stdoutTTY;
  });

  it('shows a Deployment with its pods as they come, their stages, a deleted one skipped, and ends when it is ready', async () => {
    const h = harness([web('0/2 ready', 'waiting', [])]);
    const done = h.render(false);
    await tick();
    await h.set(web('0/2 ready', 'waiting', [pod('web-a', 'Pending'), pod('web-old', 'Terminating')]));
    await h.event({ type: 'ImagePulling', pod: 'default/web-a', container: 'web' });
    await h.set(web('0/2 ready', 'waiting', [pod('web-a', 'ContainerCreating')], 'Waiting for 1 of 2')); // web-old is gone
    await h.set(web('1/2 ready', 'waiting', [pod('web-a', 'Running', 'done'), pod('web-b', 'Pending')], 'Waiting for 2 of 2'));
    await h.set(web('2/2 ready', 'ready', [pod('web-a', 'Running', 'done'), pod('web-b', 'Running', 'done')]));
    await done;
    const lines = h.lines();
    expect(lines.slice(0, 4)).toEqual([
      '❯ deployment.apps/web  0/2 ready',
      '› Waiting for rollout',
      '❯ web-a  0/1  Pending',
      '❯ web-old  0/1  Terminating',
    ]);
    expect(lines).toContain('› pulling image for web');
    expect(lines).toContain('↓ web-old  0/1  Terminating [SKIPPED: web-old  deleted]');
    expect(lines).toContain('› Waiting for 1 of 2');
    expect(lines).toContain('✔ web-a  1/1  Running');
    expect(lines).toContain('❯ web-b  0/1  Pending');
    expect(lines.at(-2)).toBe('✔ web-b  1/1  Running');
    expect(lines.at(-1)).toMatch(/^✔ deployment\.apps\/web {2}2\/2 ready in \d+\.\ds$/);
    // Each line once: a stage or a message is told when it changes, not at every update.
    expect(lines.filter((l) => l === '› Waiting for 1 of 2')).toHaveLength(1);
  });

  it('fails a Job that failed, after its failed pod, with the reasons in brackets', async () => {
    const job: WorkloadProgress = {
      key: 'Job/default/pi',
      name: 'job.batch/pi',
      summary: '0/1 complete',
      state: 'waiting',
      message: 'Waiting for job "pi" to complete: 0 of 1 succeeded...',
      pods: [pod('pi-x', 'Running')],
    };
    const h = harness([job]);
    const done = h.render(false);
    await tick();
    await h.set({
      ...job,
      summary: '0/1 complete, 1 failed',
      state: 'failed',
      message: 'job "pi" failed: BackoffLimitExceeded: Job has reached the specified backoff limit',
      pods: [pod('pi-x', 'Error', 'failed', { message: 'container main exited with code 3' })],
    });
    await done;
    expect(h.lines().slice(-2)).toEqual([
      '✖ pi-x  0/1  Error [FAILED: pi-x: Error: container main exited with code 3]',
      '✖ job.batch/pi  0/1 complete, 1 failed [FAILED: job "pi" failed: BackoffLimitExceeded: Job has reached the specified backoff limit]',
    ]);
  });

  // Stderr a terminal but stdout not (-o json > file): listr2 cannot draw, so plain lines, on stderr.
  it.each([
    ['', false],
    [', also when stdout is redirected from a terminal', true],
  ])('fails what is not done when apply stops waiting, each pod not ready with its READY%s', async (_, tty) => {
    const h = harness([web('0/1 ready', 'waiting', [pod('web-a', 'Running')])]);
    const done = h.render(tty);
    await tick();
    await h.end('timed out after 5s');
    await done;
    // The failure is told in brackets, as plain lines tell it, not only in a title no one draws.
    expect(h.lines().slice(-2)).toEqual([
      '✖ web-a  0/1  Running [FAILED: web-a: Running: 0/1 ready]',
      '✖ deployment.apps/web  0/1 ready [FAILED: timed out after 5s]',
    ]);
  });
});

describe('the workloads in the task list, on a terminal', () => {
  // listr2 draws when stdout is a terminal; the test's is not, so it is made one for the test.
  const stdoutTTY = process.stdout.isTTY;
  beforeEach(() => {
    process.stdout.isTTY = true;
  });
  afterEach(() => {
    process.stdout.isTTY = stdoutTTY;
  });

  it('draws the pods under their workload, and a failed workload crossed with its reason in the title', async () => {
    const ok: WorkloadProgress = { ...web('1/1 ready', 'ready', [pod('web-a', 'Running', 'done')]), key: 'Deployment/default/ok' };
    const h = harness([ok, web('0/1 ready', 'waiting', [pod('web-b', 'Running')])]);
    const done = h.render(true);
    await tick();
    await h.end('timed out after 5s');
    await done;
    const frame = h.text().slice(h.text().lastIndexOf('deployment.apps/web  1/1') - 2);
    expect(frame.split('\n').slice(0, 5)).toEqual([
      expect.stringMatching(/^✔ deployment\.apps\/web {2}1\/1 ready in \d+\.\ds$/),
      '  ✔ web-a  1/1  Running',
      '✖ deployment.apps/web  0/1 ready: timed out after 5s',
      '  ✖ web-b  0/1  Running',
      '    › web-b: Running: 0/1 ready',
    ]);
  });
});
