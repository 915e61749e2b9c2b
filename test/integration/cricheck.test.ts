// The embedded runtime driven by cricheck (test/peers/cricheck), a crictl-like
// CLI built on k8s.io/cri-client: the client library crictl and the kubelet
// use, with its own checks of each answer. What crictl users type, through the
// Go client, against knode's runtime.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually, startEmbeddedRuntime, type EmbeddedRuntimeProcess } from '../helpers/runtimes.js';

const cricheckPath = inject('cricheckPath');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe.runIf(cricheckPath)('cricheck (k8s.io/cri-client) against the embedded runtime', () => {
  let runtime: EmbeddedRuntimeProcess;
  let dir: string;

  function cricheck(...args: string[]): Promise<Run> {
    return new Promise((resolve) => {
      execFile(cricheckPath, ['-r', runtime.endpoint, ...args], { encoding: 'utf8' }, (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as NodeJS.ErrnoException & { code: unknown }).code ?? 1) : 0, stdout, stderr });
      });
    });
  }

  /** Runs a command that must succeed; returns its stdout. */
  async function ok(...args: string[]): Promise<string> {
    const run = await cricheck(...args);
    expect(run, `cricheck ${args.join(' ')}`).toMatchObject({ code: 0 });
    return run.stdout;
  }

  function writeJson(name: string, value: unknown): string {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(value));
    return path;
  }

  /** A pod and a container as crictl's JSON files write them (cri-api's field names). */
  function podFiles(name: string, command: string[]) {
    const pod = writeJson(`${name}-pod.json`, {
      metadata: { name, uid: `${name}-uid`, namespace: 'cricheck', attempt: 0 },
      log_directory: join(dir, `${name}-logs`),
      linux: { security_context: { namespace_options: { network: 2 } } },
    });
    const ctr = writeJson(`${name}-ctr.json`, {
      metadata: { name: 'main' },
      image: { image: 'busybox:1.36' },
      command,
      log_path: 'main/0.log',
      linux: { resources: { memory_limit_in_bytes: 64 * 1024 * 1024 } },
    });
    return { pod, ctr };
  }

  beforeAll(async () => {
    runtime = await startEmbeddedRuntime();
    dir = mkdtempSync(join(tmpdir(), 'knode-cricheck-'));
  });

  afterAll(async () => {
    await runtime.stop();
    rmSync(runtime.rootDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers version and info with every field the client checks', async () => {
    expect(await ok('version')).toMatch(/RuntimeName:\s+knode\nRuntimeVersion:\s+\S+\nRuntimeApiVersion:\s+v1/);
    const info = JSON.parse(await ok('info'));
    expect(info.status.conditions.map((c: { type: string; status: boolean }) => [c.type, c.status])).toEqual([
      ['RuntimeReady', true],
      ['NetworkReady', true],
    ]);
    expect(JSON.parse(await ok('runtime-config'))).toEqual({ linux: { cgroup_driver: 1 } });
  });

  it('pulls, lists, inspects and removes an image', async () => {
    expect(await ok('pull', 'busybox:1.36')).toMatch(/^Image is up to date for sha256:[0-9a-f]{64}\n$/);
    expect(await ok('images')).toMatch(/docker\.io\/library\/busybox\s+1\.36\s+[0-9a-f]{13}\s+[1-9]\d*\n/);
    const status = JSON.parse(await ok('inspecti', 'busybox:1.36'));
    expect(status.image.repo_tags).toEqual(['docker.io/library/busybox:1.36']);
    expect(status.image.size).toBeGreaterThan(0);
    const unreachable = await cricheck('pull', 'nosuch.invalid/x:1');
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/pulling image: .*nosuch\.invalid/);
    expect(await ok('rmi', 'busybox:1.36')).toBe('Deleted: busybox:1.36\n');
    expect(await ok('images')).not.toMatch(/busybox/);
  });

  it('runs a pod through runp, create, start, logs, exec, stats, update, stop, rm, stopp and rmp', async () => {
    const { pod, ctr } = podFiles('cycle', ['sh', '-c', 'echo hello from cricheck; echo to stderr >&2; exec sleep 60']);
    const podId = (await ok('runp', pod)).trim();
    expect(await ok('pods')).toMatch(new RegExp(`${podId.slice(0, 13)}\\s+.*READY\\s+cycle\\s+cricheck\\s+0`));
    const id = (await ok('create', podId, ctr, pod)).trim();
    const again = await cricheck('create', '--no-pull', podId, ctr, pod);
    expect(again.stderr).toMatch(/AlreadyExists/);
    await ok('start', id);
    expect(await ok('ps')).toMatch(new RegExp(`${id.slice(0, 13)}\\s+busybox:1.36\\s+.*RUNNING\\s+main\\s+0\\s+${podId.slice(0, 13)}`));

    const logs = await eventually(async () => {
      const run = await cricheck('logs', id);
      return run.stdout.includes('hello from cricheck') && run.stderr.includes('to stderr') ? run : undefined;
    }, "the container's logs through cri-client's log reader");
    expect(logs.stdout).toBe('hello from cricheck\n');

    expect(await ok('exec', '-s', id, 'sh', '-c', 'echo in-exec')).toBe('in-exec\n');
    expect((await cricheck('exec', '-s', id, 'sh', '-c', 'exit 3')).code).toBe(3);

    const stats = JSON.parse(await ok('stats')) as { attributes: { id: string } }[];
    expect(stats.map((s) => s.attributes.id)).toContain(id);
    const podStats = JSON.parse(await ok('statsp')) as {
      attributes: { id: string };
      linux: { containers: { attributes: { id: string } }[] };
    }[];
    expect(podStats.find((s) => s.attributes.id === podId)?.linux.containers.map((c) => c.attributes.id)).toEqual([id]);

    await ok('update', '--memory', String(128 * 1024 * 1024), id);
    const inspected = JSON.parse(await ok('inspect', id));
    expect(inspected.status.state).toBe(1);
    expect(JSON.parse(inspected.info.info).resources.memoryLimitInBytes).toBe(128 * 1024 * 1024);
    expect(JSON.parse(await ok('inspectp', podId)).status.metadata.name).toBe('cycle');
    await ok('reopen-log', id);

    await ok('stop', '-t', '5', id);
    const stopped = JSON.parse(await ok('inspect', id)).status;
    expect({ state: stopped.state, exit_code: stopped.exit_code, reason: stopped.reason }).toEqual({
      state: 2,
      exit_code: 143,
      reason: 'Error',
    });
    await ok('rm', id);
    await ok('stopp', podId);
    await ok('rmp', podId);
    expect(await ok('ps', '-a')).not.toContain(id.slice(0, 13));
    expect(await ok('pods')).not.toContain(podId.slice(0, 13));
  });

  it('falls back from the streaming list calls to the unary ones', async () => {
    const { pod } = podFiles('streaming', ['true']);
    const podId = (await ok('runp', pod)).trim();
    const run = await cricheck('--streaming', 'pods');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(podId.slice(0, 13));
    await ok('rmp', podId);
  });

  it('streams sandbox and container events, in order', async () => {
    const events = spawn(cricheckPath, ['-r', runtime.endpoint, 'events']);
    let stdout = '';
    let stderr = '';
    events.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    events.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      await eventually(() => stderr.includes('events stream established'), 'the event stream');
      const { pod, ctr } = podFiles('events', ['true']);
      const podId = (await ok('runp', pod)).trim();
      const id = (await ok('create', podId, ctr, pod)).trim();
      await ok('start', id);
      await eventually(async () => JSON.parse(await ok('inspect', id)).status.state === 2, 'the container to exit');
      await ok('rm', id);
      await ok('stopp', podId);
      await ok('rmp', podId);
      const seen = await eventually(() => {
        const lines = stdout
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { containerId: string; type: string; sandboxId: string });
        return lines.some((e) => e.containerId === podId && e.type === 'CONTAINER_DELETED_EVENT') ? lines : undefined;
      }, "the sandbox's deletion");
      const named = seen.map((e) => `${e.containerId === podId ? 'sandbox' : 'container'} ${e.type.replace(/^CONTAINER_|_EVENT$/g, '')}`);
      // containerd 2 sends the same sequence for the same calls.
      expect(named).toEqual([
        'sandbox CREATED',
        'sandbox STARTED',
        'container CREATED',
        'container STARTED',
        'container STOPPED',
        'container DELETED',
        'sandbox STOPPED',
        'sandbox DELETED',
      ]);
      expect(seen.every((e) => e.sandboxId === podId)).toBe(true);
    } finally {
      events.kill();
    }
  });
});
