import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { earlyProbesFor, earlyRuntimeRoot } from '../../../src/cli/early-runtime.js';
import { startRuntimeEarly, takeEarlyStart } from '../../../src/cri/runtime-spawn.js';
import { defaultRootDir, rootPaths } from '../../../src/util/paths.js';
import { eventually } from '../../helpers/runtimes.js';

describe('which command lines start the embedded runtime before their code loads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'knode-early-'));
  const file = join(dir, 'pod.yaml');
  writeFileSync(file, 'kind: Pod\n');

  it('apply of a file that is there, and run, on the root dir they name or the default one', () => {
    expect(earlyRuntimeRoot(['apply', '-f', file, '--root-dir', '/srv/knode'])).toBe('/srv/knode');
    expect(earlyRuntimeRoot(['apply', `--filename=${file}`, '--root-dir=/srv/k'])).toBe('/srv/k');
    expect(earlyRuntimeRoot(['apply', '-f', '-'])).toBe(defaultRootDir());
    expect(earlyRuntimeRoot(['run', '--static-dir', dir])).toBe(defaultRootDir());
    expect(earlyRuntimeRoot(['run', '--root-dir', 'a', '--root-dir', 'b'])).toBe('b');
  });

  it('not a command that may not connect to it, nor one with another endpoint, a config file or help', () => {
    for (const args of [
      [],
      ['status'],
      ['logs', 'web'],
      ['apply'],
      ['apply', '-f', join(dir, 'missing.yaml')],
      ['apply', '-f', file, '--runtime-endpoint', 'unix:///run/containerd/containerd.sock'],
      ['apply', '-f', file, '--runtime-endpoint=unix:///x.sock'],
      ['run', '--config', join(dir, 'kubelet.yaml')],
      ['run', '--print-config'],
      ['run', '--help'],
      ['apply', '-h'],
    ])
      expect(earlyRuntimeRoot(args), args.join(' ')).toBeUndefined();
  });

  it('runtime serve starts its host probes, about sandboxes where a registries.yaml is there and they are not off', () => {
    const root = join(dir, 'root');
    expect(earlyProbesFor(['runtime', 'serve', '--root-dir', root])).toEqual({ runtimeDir: join(root, 'runtime'), sandboxes: false });
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, 'registries.yaml'), '');
    expect(earlyProbesFor(['runtime', 'serve', `--root-dir=${root}`])).toEqual({ runtimeDir: join(root, 'runtime'), sandboxes: true });
    expect(earlyProbesFor(['runtime', 'serve', '--root-dir', root, '--sandbox', 'off'])?.sandboxes).toBe(false);
    expect(earlyProbesFor(['runtime', 'serve'])?.runtimeDir).toBe(rootPaths(defaultRootDir()).runtimeDir);
    for (const args of [['runtime', 'serve', '--help'], ['runtime', 'serve', '-h'], ['runtime', 'stop'], ['run'], ['apply', '-f', file]])
      expect(earlyProbesFor(args), args.join(' ')).toBeUndefined();
  });
});

describe('a runtime started early', () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  it('is spawned detached with its output in the runtime log, and handed once to the command of its root dir', async () => {
    const root = mkdtempSync(join(tmpdir(), 'knode-early-root-'));
    roots.push(root);
    // A stand-in for bin/run.js: it prints its arguments and exits.
    const cli = join(root, 'cli.js');
    writeFileSync(cli, 'console.log(process.argv.slice(2).join(" ")); process.exit(3);\n');
    startRuntimeEarly(spawn, cli, root);
    expect(takeEarlyStart(join(root, 'elsewhere'))).toBeUndefined();
    const start = takeEarlyStart(`${root}/`)!;
    expect(start.pid).toBeGreaterThan(0);
    expect(takeEarlyStart(root)).toBeUndefined();
    await eventually(() => start.exitCode() !== null, 'the stand-in to exit');
    expect(start.exitCode()).toBe(3);
    expect(readFileSync(rootPaths(root).runtimeLog, 'utf8')).toBe(`runtime serve --root-dir ${root}\n`);
  });

  it('is not started when its socket is there', () => {
    const root = mkdtempSync(join(tmpdir(), 'knode-early-root-'));
    roots.push(root);
    mkdirSync(rootPaths(root).run, { recursive: true });
    writeFileSync(rootPaths(root).runtimeSocket, '');
    startRuntimeEarly(spawn, join(root, 'cli.js'), root);
    expect(takeEarlyStart(root)).toBeUndefined();
  });
});
