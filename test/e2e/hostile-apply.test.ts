// `knode apply -f DIR` on a hostile directory: a FIFO, a symlink to
// /dev/zero, a sparse 1.5 GiB file, a directory and a socket, each named like
// a manifest, beside two good pods. The good pods run, every bad file is
// named with its reason, and the apply process's peak RSS stays bounded.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { knode, type CliResult } from '../helpers/cli.js';
import { cliEntry } from '../helpers/runtimes.js';

/** The bound issue 43 sets on `knode apply` over a hostile directory. */
const PEAK_RSS_BOUND_KIB = 256 * 1024;

const roots: string[] = [];
let server: Server | undefined;

afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  for (const root of roots) await knode(['runtime', 'stop', '--root-dir', root]);
});

function pod(name: string): string {
  return `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  restartPolicy: Never\n  containers:\n    - name: app\n      image: busybox:1.36\n      command: ["sh", "-c", "echo ${name}"]\n`;
}

/**
 * Runs knode with a preload that writes the process's own VmHWM (peak RSS)
 * from /proc/self/status as it exits: read at the last moment, so no peak
 * between two polls is missed. The environment is vitest's (NODE_ENV=test),
 * under which the CLI costs more than as a user runs it: the bound is checked
 * on the heavier of the two.
 */
function knodeMeasured(args: string[], hwmDir: string): Promise<CliResult & { peakRssKiB: number }> {
  const hook = join(hwmDir, 'hwm.cjs');
  writeFileSync(
    hook,
    `const fs = require('node:fs');\nprocess.on('exit', () => {\n  const m = /VmHWM:\\s+(\\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));\n  fs.writeFileSync(${JSON.stringify(hwmDir)} + '/hwm-' + process.pid, m ? m[1] : '');\n});\n`,
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', hook, cliEntry, ...args], {
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`knode ${args.join(' ')} did not finish in time; stderr: ${stderr}`));
    }, 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const peakRssKiB = Number(readFileSync(join(hwmDir, `hwm-${child.pid}`), 'utf8'));
      resolve({ code: code ?? 1, stdout, stderr, peakRssKiB });
    });
  });
}

describe('knode apply on a hostile directory', () => {
  it('runs the good pods, names every bad file, and stays under the RSS bound', async () => {
    const root = mkdtempSync(join(tmpdir(), 'knode-e2e-hostile-'));
    roots.push(root);
    const dir = join(root, 'manifests');
    mkdirSync(dir);
    writeFileSync(join(dir, 'a-good.yaml'), pod('good-a'));
    writeFileSync(join(dir, 'z-good.yaml'), pod('good-z'));
    execFileSync('mkfifo', [join(dir, 'fifo.yaml')]);
    symlinkSync('/dev/zero', join(dir, 'zero.yaml'));
    writeFileSync(join(dir, 'sparse.yaml'), '');
    truncateSync(join(dir, 'sparse.yaml'), 1.5 * 1024 ** 3);
    mkdirSync(join(dir, 'x.yaml'));
    server = createServer();
    await new Promise<void>((resolve) => server!.listen(join(dir, 'sock.yaml'), resolve));

    const res = await knodeMeasured(['apply', '-f', dir, '--root-dir', root, '--node-name', 'e2e', '-o', 'json'], root);

    // Exit 2: the bad files are usage errors; the pods beside them ran.
    expect(res.code, res.stderr).toBe(2);
    const list = JSON.parse(res.stdout);
    const phases = Object.fromEntries(
      list.items.map((p: { metadata: { name: string }; status: { phase: string } }) => [p.metadata.name, p.status.phase]),
    );
    expect(phases).toEqual({ 'good-a-e2e': 'Succeeded', 'good-z-e2e': 'Succeeded' });
    expect(res.stderr).toMatch(/2 pods: 2 Succeeded/);
    for (const [name, reason] of Object.entries({
      'fifo.yaml': 'skipped: a FIFO, not a regular file',
      'zero.yaml': 'skipped: a character device, not a regular file',
      'sparse.yaml': 'manifest is larger than 3145728 bytes (1610612736 bytes); not read',
      'x.yaml': 'skipped: a directory (not read recursively, as in the kubelet), not a regular file',
      'sock.yaml': 'skipped: a socket, not a regular file',
    }))
      expect(res.stderr).toContain(`Error: ${join(dir, name)}, document 0: ${reason}`);
    console.log(`knode apply on a hostile directory: peak RSS ${Math.round(res.peakRssKiB / 1024)} MiB`);
    expect(res.peakRssKiB).toBeGreaterThan(0);
    expect(res.peakRssKiB).toBeLessThanOrEqual(PEAK_RSS_BOUND_KIB);
  }, 180_000);

  it('refuses a FIFO named directly, and stdin over the limit, as usage errors', async () => {
    const root = mkdtempSync(join(tmpdir(), 'knode-e2e-hostile-'));
    roots.push(root);
    execFileSync('mkfifo', [join(root, 'pod.yaml')]);
    const fifo = await knode(['apply', '-f', join(root, 'pod.yaml'), '--root-dir', root]);
    expect(fifo.code).toBe(2);
    expect(fifo.stderr).toContain(`${join(root, 'pod.yaml')}: a FIFO, not a regular file or a directory of manifests`);

    const big = await knode(['apply', '-f', '-', '--root-dir', root], { input: `# ${'x'.repeat(3 * 1024 * 1024)}\n` });
    expect(big.code).toBe(2);
    expect(big.stderr).toContain('stdin is larger than 3145728 bytes; not read');
  });
});
