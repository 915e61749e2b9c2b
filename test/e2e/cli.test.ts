import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CriClient } from '../../src/cri/client.js';
import { ensureEmbeddedRuntime } from '../../src/cri/embedded.js';
import { rootPaths } from '../../src/util/paths.js';
import { readPid } from '../../src/util/pid-file.js';
import { knode } from '../helpers/cli.js';
import { eventually } from '../helpers/runtimes.js';

const rootDir = mkdtempSync(join(tmpdir(), 'knode-e2e-'));

afterAll(async () => {
  await knode(['runtime', 'stop', '--root-dir', rootDir]);
});

describe('knode as a command', () => {
  it('lists its commands and topics in --help', async () => {
    const { code, stdout } = await knode(['--help']);
    expect(code).toBe(0);
    for (const command of [
      'run',
      'apply',
      'status',
      'top',
      'pleg',
      'trace',
      'logs',
      'exec',
      'attach',
      'port-forward',
      'cp',
      'delete',
      'runtime',
    ])
      expect(stdout).toMatch(new RegExp(`^\\s+${command}\\s`, 'm'));
  });

  it("tells a command it does not have in kubectl's words, with knode's way, exit 2", async () => {
    expect(await knode(['rollout', 'undo', 'deploy/web'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr: expect.stringMatching(
        /^Error: unknown command "undo" for "knode rollout"\nHint: the manifests own the spec on a knode node: /,
      ),
    });
    expect(await knode(['stauts'])).toMatchObject({
      code: 2,
      stderr: 'Error: unknown command "stauts" for "knode"\nHint: did you mean knode status?\n',
    });
  });

  it('completes commands, topics and flags in bash, from the script it installs', async () => {
    const home = mkdtempSync(join(tmpdir(), 'knode-home-'));
    const setup = await knode(['autocomplete', 'bash'], { env: { HOME: home, XDG_CACHE_HOME: '' } });
    expect(setup.code).toBe(0);
    expect(setup.stdout).toContain('knode autocomplete script bash');
    const script = (await knode(['autocomplete', 'script', 'bash'], { env: { HOME: home, XDG_CACHE_HOME: '' } })).stdout;
    const complete = (line: string) => {
      const words = line.split(' ');
      // The function knode's hook registers for bash: oclif's, its answers each once, pod names in a pod's place.
      const program = `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; COMP_LINE='${line}'; COMP_POINT=${line.length}; _knode_pods_complete; echo "\${COMPREPLY[*]}"`;
      return execFileSync('bash', ['-c', program], { encoding: 'utf8', env: { ...process.env, HOME: home } }).trim();
    };
    expect(complete('knode st')).toBe('status');
    expect(complete('knode runtime s')).toBe('serve status stop');
    expect(complete('knode top --so')).toBe('--sort-by');
    expect(complete('knode run --node-l')).toBe('--node-labels --node-log-dir');
    expect(complete('knode desc')).toBe('describe');
    expect(complete('knode describe po')).toBe('pod');
    expect(complete('knode describe ')).toBe(
      'configmap cm configmaps cronjob cj cronjobs daemonset ds daemonsets deployment deploy deployments job jobs persistentvolumeclaim pvc persistentvolumeclaims pod replicaset rs replicasets secret secrets statefulset sts statefulsets',
    );
    expect(complete('knode events --fo')).toBe('--for');
    expect(complete('knode ex')).toBe('exec');
    expect(complete('knode port')).toBe('port-forward');
    expect(complete('knode exec --con')).toBe('--container');
    expect(complete('knode port-forward --add')).toBe('--address');
    expect(complete('knode cp --no-p')).toBe('--no-preserve');
  });

  it("starts a short command without Node's ES module loader", async () => {
    // What the command loaded, written at its exit by a module Node requires before bin/run.js.
    const dir = mkdtempSync(join(tmpdir(), 'knode-loaded-'));
    const preload = join(dir, 'loaded.cjs');
    const loaded = join(dir, 'loaded.txt');
    writeFileSync(
      preload,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(loaded)}, process.moduleLoadList.join('\\n')));`,
    );
    const { code, stdout } = await knode(['--version'], { env: { NODE_OPTIONS: `--require ${preload}` } });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^knode\//);
    const modules = readFileSync(loaded, 'utf8').split('\n');
    expect(modules).toContain('NativeModule internal/modules/cjs/loader');
    expect(modules.filter((m) => /esm\/(module_job|translators)$/.test(m))).toEqual([]);
  });

  it('says that trace needs a running node, and how to start one', async () => {
    const { code, stderr } = await knode(['trace', 'some-pod', '--root-dir', mkdtempSync(join(tmpdir(), 'knode-none-'))]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/no node runs under/);
    expect(stderr).toMatch(/knode run/);
  });

  it('reports a runtime that does not answer with exit code 3 and what to do', async () => {
    const { code, stderr } = await knode(['runtime', 'status', '--root-dir', mkdtempSync(join(tmpdir(), 'knode-none-'))]);
    expect(code).toBe(3);
    expect(stderr).toMatch(/no runtime answers/);
    expect(stderr).toMatch(/knode runtime serve/);
  });

  it('starts the embedded runtime detached when needed, reports it, and stops it', async () => {
    const endpoint = await ensureEmbeddedRuntime(rootDir);
    expect(endpoint).toBe(`unix://${join(rootDir, 'run', 'runtime.sock')}`);
    // A second call finds the running one instead of starting another.
    expect(await ensureEmbeddedRuntime(rootDir)).toBe(endpoint);

    const status = await knode(['runtime', 'status', '--root-dir', rootDir, '-o', 'json']);
    expect(status.code).toBe(0);
    const parsed = JSON.parse(status.stdout);
    expect(parsed.version.runtimeName).toBe('knode');
    expect(parsed.status.status.conditions.map((c: { type: string }) => c.type)).toEqual(['RuntimeReady', 'NetworkReady']);

    const text = await knode(['runtime', 'status', '--root-dir', rootDir]);
    expect(text.stdout).toMatch(/RuntimeReady:\s+true/);

    const stop = await knode(['runtime', 'stop', '--root-dir', rootDir]);
    expect(stop.code).toBe(0);
    expect(stop.stdout).toMatch(/stopped the embedded runtime/);
    const client = new CriClient(endpoint, { requestTimeoutMs: 500 });
    await expect(client.version()).rejects.toMatchObject({ code: 14 });
    client.close();
  });

  it('starts one runtime when commands race for it, and every command uses that one', async () => {
    const root = mkdtempSync(join(tmpdir(), 'knode-e2e-race-'));
    try {
      const runs = await Promise.all([1, 2, 3].map(() => knode(['status', '--root-dir', root])));
      expect(runs.map((r) => r.code)).toEqual([0, 0, 0]);
      // The runtimes that lost the race exit once they find the winner's pid file, which may be after the commands returned.
      const serving = () =>
        execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
          .split('\n')
          .filter((line) => line.includes('runtime serve') && line.includes(root))
          .map((line) => Number(line.trim().split(/\s+/)[0]));
      const [winner] = await eventually(
        () => {
          const pids = serving();
          return pids.length === 1 && pids;
        },
        () => `one runtime serving ${root}, not ${serving().length}`,
      );
      expect(readPid(rootPaths(root).runtimePidFile)).toBe(winner);
    } finally {
      await knode(['runtime', 'stop', '--root-dir', root]);
    }
  });
});
