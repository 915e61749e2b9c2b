// knode delete -f as kubectl delete: pods whose PID 1 ignores SIGTERM are
// stopped all at once, so three take one grace period, not three, and leave
// nothing on disk; --now,
// --force, --wait=false and the flag rules, through bin/run.js on the
// embedded runtime. The waits are real, bounded by the pods' 5 s grace.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knode } from '../helpers/cli.js';
import { eventually } from '../helpers/runtimes.js';

const GRACE_SECONDS = 5;
const root = mkdtempSync(join(tmpdir(), 'knode-delete-'));
const pods = join(root, 'manifests');
const at = ['--root-dir', root, '--node-name', 'e2e'];
const names = ['stubborn-1-e2e', 'stubborn-2-e2e', 'stubborn-3-e2e'];
/** How long the delete with the pods' own grace took: the bound the quicker ones are measured against. */
let graceful = 2 * GRACE_SECONDS;

beforeAll(() => {
  mkdirSync(pods);
  for (const n of [1, 2, 3])
    writeFileSync(
      join(pods, `stubborn-${n}.yaml`),
      `apiVersion: v1
kind: Pod
metadata:
  name: stubborn-${n}
  labels:
    nr: "${n}"
spec:
  terminationGracePeriodSeconds: ${GRACE_SECONDS}
  containers:
    - name: main
      image: busybox:1.36
      command: ["sh", "-c", "trap '' TERM; while :; do sleep 0.2; done"]
`,
    );
});

afterAll(async () => {
  await knode(['runtime', 'stop', '--root-dir', root]);
}, 60_000);

async function applyAll(): Promise<void> {
  const applied = await knode(['apply', '-f', pods, ...at], { timeoutMs: 90_000 });
  expect(applied.code, applied.stderr).toBe(0);
}

/** The delete, how long it took, and when it printed its first line (seconds from its start). */
async function timed(args: string[]) {
  const started = performance.now();
  let printedAt: number | undefined;
  const onStdout = () => (printedAt ??= (performance.now() - started) / 1000);
  const res = await knode(['delete', '-f', pods, ...args, ...at], { timeoutMs: 90_000, onStdout });
  return { ...res, seconds: (performance.now() - started) / 1000, printedAt };
}

/** What the node keeps of the pods on disk: their directories (kubelet/pods/<uid>) and their log directories. */
function podContent(): { dirs: string[]; logs: string[] } {
  const list = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);
  return { dirs: list(join(root, 'kubelet', 'pods')), logs: list(join(root, 'pods')).filter((d) => d.includes('_stubborn-')) };
}

const lines = (operation: string) => names.map((n) => `pod "${n}" ${operation} from default namespace\n`).join('');

describe('knode delete -f', () => {
  it('stops pods that ignore SIGTERM all at once: one grace period for three, not three', async () => {
    await applyAll();
    expect(podContent().dirs).toHaveLength(3);
    expect(podContent().logs).toHaveLength(3);
    const res = await timed([]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe(lines('deleted'));
    // The pods are gone for good: nothing of them is left under the root dir.
    expect(podContent()).toEqual({ dirs: [], logs: [] });
    // Each pod had its grace period (SIGTERM is ignored, so SIGKILL ends it), and they ran side by side.
    expect(res.seconds).toBeGreaterThanOrEqual(GRACE_SECONDS - 0.5);
    expect(res.seconds).toBeLessThan(2 * GRACE_SECONDS);
    // As kubectl: the lines come once the deletion is requested, then the command waits for the pods to go.
    expect(res.seconds - res.printedAt!).toBeGreaterThanOrEqual(GRACE_SECONDS - 1.5);
    graceful = res.seconds;
    const status = await knode(['status', '--root-dir', root]);
    expect(status.stdout).toBe('');
  }, 180_000);

  it('--now gives each pod a second (the kubelet makes it two); --force kills at once, with kubectl warning', async () => {
    await applyAll();
    const now = await timed(['--now']);
    expect(now.code, now.stderr).toBe(0);
    expect(now.stdout).toBe(lines('deleted'));
    // The same work as above but for the grace: at least two seconds less (5 s of grace against 2).
    expect(now.seconds).toBeLessThan(graceful - 2);

    await applyAll();
    const force = await timed(['--force']);
    expect(force.code, force.stderr).toBe(0);
    expect(force.stdout).toBe(lines('force deleted'));
    expect(force.stderr).toContain(
      'Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.\n',
    );
    expect(force.seconds).toBeLessThan(graceful - 2);
  }, 240_000);

  it('--wait=false returns at once and the pods are stopped in the background', async () => {
    await applyAll();
    const res = await timed(['--wait=false']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe(lines('deleted'));
    expect(res.seconds).toBeLessThan(graceful - 2);
    await eventually(
      async () => (await knode(['status', '--root-dir', root])).stdout === '',
      'the pods to be gone',
      4 * GRACE_SECONDS * 1000,
    );
    // The background delete stopped them all: nothing went to its log.
    const log = join(root, 'logs', 'delete.log');
    expect(existsSync(log) ? readFileSync(log, 'utf8') : '').toBe('');
    expect(podContent()).toEqual({ dirs: [], logs: [] });
  }, 180_000);

  it("refuses kubectl's impossible flag pairs, exit 1", async () => {
    const both = await knode(['delete', '-f', pods, '--now', '--grace-period', '3', ...at]);
    expect(both).toEqual({ code: 1, stdout: '', stderr: 'error: --now and --grace-period cannot be specified together\n' });
    const force = await knode(['delete', '-f', pods, '--force', '--grace-period', '3', ...at]);
    expect(force).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: --force and --grace-period greater than 0 cannot be specified together\n',
    });
  });
});

describe('knode delete TYPE NAME', () => {
  it("stops the pods named, with the grace period the runtime keeps for each, and says kubectl's NotFound for the others", async () => {
    await applyAll();
    const started = performance.now();
    const res = await knode(['delete', 'pod', names[0], names[1], 'nope', ...at], { timeoutMs: 90_000 });
    const seconds = (performance.now() - started) / 1000;
    expect(res).toMatchObject({ code: 1, stderr: 'Error from server (NotFound): pods "nope" not found\n' });
    expect(res.stdout).toBe(`pod "${names[0]}" deleted from default namespace\npod "${names[1]}" deleted from default namespace\n`);
    // No manifest here: the grace period is the one the pod's sandbox was given (5 s), not a default of 30 s.
    expect(seconds).toBeGreaterThanOrEqual(GRACE_SECONDS - 0.5);
    expect(seconds).toBeLessThan(2 * GRACE_SECONDS);
    const rest = await knode(['delete', `pods/${names[2]}`, '--force', ...at], { timeoutMs: 60_000 });
    expect(rest).toMatchObject({ code: 0, stdout: `pod "${names[2]}" force deleted from default namespace\n` });
    expect(podContent()).toEqual({ dirs: [], logs: [] });
  }, 180_000);

  it('refuses what kubectl refuses: nothing named, both -f and names, a type it has not, mixed forms (exit 2)', async () => {
    for (const [args, message] of [
      [[], 'Error: You must provide one or more resources by argument or filename.'],
      [['-f', pods, 'pod', 'x'], 'Error: when paths, URLs, or stdin is provided as input, you may not specify resource arguments as well'],
      [['svc', 'web'], 'Error: the server doesn\'t have a resource type "svc"'],
      [['deploy/a', 'b'], 'Error: there is no need to specify a resource type as a separate argument'],
      [['pods'], 'Error: resource(s) were provided, but no name was specified'],
    ] as const) {
      const res = await knode(['delete', ...args, ...at]);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr).toContain(message);
    }
  });
});

describe('knode delete TYPE --all / -l', () => {
  it("deletes what the selector matches among the runtime's pods or the manifests', and says kubectl's No resources found", async () => {
    await applyAll();
    const force = ['--force', ...at];
    const line = (n: number) => `pod "${names[n]}" force deleted from default namespace\n`;
    expect(await knode(['delete', 'pods', '-l', 'nr=2', ...force], { timeoutMs: 60_000 })).toMatchObject({ code: 0, stdout: line(1) });
    // With -f, -l keeps the manifests it matches.
    expect(await knode(['delete', '-f', pods, '-l', 'nr in (1,7)', ...force], { timeoutMs: 60_000 })).toMatchObject({
      code: 0,
      stdout: line(0),
    });
    expect(await knode(['delete', 'pods', '-l', 'nr=9', ...force])).toMatchObject({ code: 0, stdout: 'No resources found\n' });
    expect(await knode(['delete', 'po', '--all', '-A', ...force], { timeoutMs: 60_000 })).toMatchObject({ code: 0, stdout: line(2) });
    expect(podContent()).toEqual({ dirs: [], logs: [] });
    expect(await knode(['delete', 'pods', '--all', ...force])).toMatchObject({ code: 0, stdout: 'No resources found\n' });
  }, 180_000);

  it('refuses what kubectl refuses beside a selector: both flags (exit 1), names, TYPE/NAME, no type (exit 2)', async () => {
    expect(await knode(['delete', 'pods', '--all', '-l', 'nr=1', ...at])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: cannot set --all and --selector at the same time\n',
    });
    for (const [args, message] of [
      [['pods', names[0], '--all'], 'Error: name cannot be provided when a selector is specified'],
      [['pod/x', '-l', 'nr=1'], 'Error: selectors and the all flag cannot be used when passing resource/name arguments'],
      [['--all'], 'Error: at least one resource must be specified to use a selector'],
    ] as const) {
      const res = await knode(['delete', ...args, ...at]);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr).toContain(message);
    }
  });
});
