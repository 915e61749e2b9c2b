// Container log rotation as a user meets it: `knode run --config` with a
// small containerLogMaxSize, a pod that writes lines without a pause, and
// `knode logs` (and `logs -f`) reading it across the rotations.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knode } from '../helpers/cli.js';
import { cliEntry, eventually } from '../helpers/runtimes.js';

const MAX_SIZE = 2 * 1024;
const MAX_FILES = 5;
const root = mkdtempSync(join(tmpdir(), 'knode-rotation-'));
const manifests = join(root, 'manifests');
const at = ['--root-dir', root];
let node: ChildProcess;
let output = '';

// About 450 bytes a second, so the log passes MAX_SIZE every other 3 s look. The kubelet bounds a log only at
// its looks: the current file and the newest rotated one may each hold MAX_SIZE and an interval's writing,
// beside MAX_FILES - 2 compressed ones, so the bound holds for a writer of up to about a quarter of MAX_SIZE
// a second; this one writes as fast as that allows with room to spare on a loaded machine.
const WRITER = 'i=0; while true; do i=$((i+1)); echo "line $i"; sleep 0.1; done';

beforeAll(async () => {
  mkdirSync(manifests);
  const config = join(root, 'kubelet.yaml');
  writeFileSync(
    config,
    `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncontainerLogMaxSize: 2Ki\ncontainerLogMaxFiles: ${MAX_FILES}\ncontainerLogMonitorInterval: 3s\n`,
  );
  writeFileSync(
    join(manifests, 'writer.yaml'),
    `apiVersion: v1\nkind: Pod\nmetadata:\n  name: writer\nspec:\n  containers:\n    - name: app\n      image: busybox:1.36\n      command: ["sh", "-c", ${JSON.stringify(WRITER)}]\n`,
  );
  node = spawn(
    process.execPath,
    [cliEntry, 'run', '--config', config, '--static-dir', manifests, ...at, '--node-name', 'rotation', '--output', 'plain', '-v', '4'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  node.stdout!.on('data', (d) => (output += d));
  node.stderr!.on('data', (d) => (output += d));
});

afterAll(async () => {
  if (node.exitCode === null && node.signalCode === null) {
    const exited = new Promise((resolve) => node.once('exit', resolve));
    node.kill('SIGTERM');
    await exited;
  }
  await knode(['runtime', 'stop', ...at]);
});

/** The container's log directory, once the pod has one. */
function logDir(): string | undefined {
  const pods = join(root, 'pods');
  const pod = readdirSync(pods, { withFileTypes: true }).find((d) => d.name.startsWith('default_writer-rotation_'));
  return pod && join(pods, pod.name, 'app');
}

/** The log's files and their sizes: the current one, the newest rotated one, the compressed older ones. */
function logFiles(dir: string): { name: string; size: number }[] {
  return readdirSync(dir).map((name) => ({ name, size: statSync(join(dir, name)).size }));
}

/** The numbers of "line N" lines, in order. */
const numbers = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => Number(/^line (\d+)$/.exec(l)?.[1] ?? NaN));

describe('container log rotation', () => {
  it('keeps a fast writer within containerLogMaxSize × containerLogMaxFiles, and knode logs -f follows it across rotations', async () => {
    const dir = await eventually(
      () => {
        try {
          return logDir();
        } catch {
          return undefined;
        }
      },
      `the writer's log (${output})`,
      60_000,
    );
    const follow = spawn(process.execPath, [cliEntry, 'logs', 'writer-rotation', ...at, '-f'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let followed = '';
    follow.stdout!.on('data', (d) => (followed += d));
    follow.stderr!.on('data', (d) => (followed += d));

    // Look at the files until the oldest compressed log has been removed (MAX_FILES - 2 are kept).
    let largest = 0;
    let most = 0;
    let compressedSeen = new Set<string>();
    await eventually(
      () => {
        const files = logFiles(dir);
        largest = Math.max(
          largest,
          files.reduce((sum, f) => sum + f.size, 0),
        );
        // A compression's temporary file lives a moment beside its source, as upstream's.
        most = Math.max(most, files.filter((f) => !f.name.endsWith('.tmp')).length);
        compressedSeen = new Set([...compressedSeen, ...files.filter((f) => f.name.endsWith('.gz')).map((f) => f.name)]);
        return compressedSeen.size >= MAX_FILES - 1;
      },
      () => `${MAX_FILES - 1} compressed logs (files: ${JSON.stringify(logFiles(dir))}; node: ${output.slice(-2000)})`,
      90_000,
    );
    expect(most).toBeLessThanOrEqual(MAX_FILES);
    expect(largest).toBeGreaterThan(MAX_SIZE);
    expect(largest).toBeLessThanOrEqual(MAX_SIZE * MAX_FILES);
    // Between the rename aside and the runtime's reopen there is no 0.log for a moment, as upstream's.
    const names = await eventually(
      () => {
        const now = logFiles(dir).map((f) => f.name);
        return now.includes('0.log') ? now : undefined;
      },
      () => `a current 0.log (files: ${JSON.stringify(logFiles(dir))}; node exit ${node.exitCode}: ${output.slice(-2000)})`,
      10_000,
    );
    expect(names.some((n) => /^0\.log\.\d{8}-\d{6}$/.test(n))).toBe(true);
    expect(output).toMatch(/ContainerLogRotated/);

    // `knode logs` reads the current file: the newest lines, in order. Just after a rotation that file
    // holds fewer than five lines, as the kubelet's would: ask again until it holds them.
    const tail = await eventually(async () => {
      const res = await knode(['logs', 'writer-rotation', ...at, '--tail', '5']);
      expect(res.code, res.stderr).toBe(0);
      const lines = numbers(res.stdout);
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.length).toBeLessThanOrEqual(5);
      return lines.length === 5 ? lines : undefined;
    }, 'five lines in the current log');
    expect(tail).toHaveLength(5);
    expect(tail.every((n, i) => i === 0 || n === tail[i - 1] + 1)).toBe(true);
    await eventually(() => numbers(followed).at(-1)! >= tail[4], 'the follow to catch up');

    // The follow went through every rotation without a gap or a repeat.
    follow.kill('SIGINT');
    await new Promise((resolve) => follow.once('exit', resolve));
    const seen = numbers(followed);
    expect(seen.length).toBeGreaterThan(100);
    expect(seen.filter((n, i) => i > 0 && n !== seen[i - 1] + 1)).toEqual([]);
  }, 150_000);
});
