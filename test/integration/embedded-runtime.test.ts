// What only the embedded runtime promises: its answers to bad requests, and
// what it remembers across a restart of its own process.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CriClient } from '../../src/cri/client.js';
import { CriError, GrpcCode } from '../../src/cri/errors.js';
import { childrenOf, readProcStat } from '../../src/runtime/proc.js';
import { stillHeld } from '../../src/runtime/spares.js';
import { containerConfig, ensureImage, logPathOf, runContainer, sandboxConfig, waitExited } from '../helpers/cri.js';
import { eventually, startEmbeddedRuntime, type EmbeddedRuntimeProcess } from '../helpers/runtimes.js';

let runtime: EmbeddedRuntimeProcess | undefined;
let client: CriClient | undefined;

async function start(rootDir?: string) {
  client?.close();
  runtime = await startEmbeddedRuntime(rootDir);
  client = new CriClient(runtime.endpoint);
  await ensureImage(client);
  return client;
}

afterEach(async () => {
  client?.close();
  client = undefined;
  await runtime?.stop();
  runtime = undefined;
});

async function codeOf(promise: Promise<unknown>): Promise<number> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CriError);
  return (err as CriError).code;
}

/** The host's PID namespace, where the pids a container prints are the host's. */
const HOST_PID = { linux: { securityContext: { namespaceOptions: { network: 'NODE' as const, pid: 'NODE' as const } } } };

describe('the embedded runtime', () => {
  it('answers malformed requests with INVALID_ARGUMENT and keeps serving', async () => {
    const cri = await start();
    expect(await codeOf(cri.runPodSandbox({}))).toBe(GrpcCode.INVALID_ARGUMENT);
    expect(await codeOf(cri.runPodSandbox({ metadata: { name: 'x' } }))).toBe(GrpcCode.INVALID_ARGUMENT);
    const config = sandboxConfig('bad-requests');
    const sandbox = await cri.runPodSandbox(config);
    expect(await codeOf(cri.createContainer(sandbox, { image: { image: 'busybox:1.36' }, command: ['true'] }, config))).toBe(
      GrpcCode.INVALID_ARGUMENT,
    );
    const noCommand = containerConfig('nocmd', []);
    const err = await cri.createContainer(sandbox, noCommand, config).catch((e: CriError) => e);
    expect((err as CriError).code).toBe(GrpcCode.INVALID_ARGUMENT);
    expect((err as CriError).details).toMatch(/no command.*host processes/);
    expect(await codeOf(cri.createContainer(sandbox, containerConfig('escape', ['true'], { logPath: '../../etc/x.log' }), config))).toBe(
      GrpcCode.INVALID_ARGUMENT,
    );
    expect(await codeOf(cri.pullImage({ image: 'Not A Reference' }))).toBe(GrpcCode.INVALID_ARGUMENT);
    expect(await codeOf(cri.execSync('', ['true'], 1))).toBe(GrpcCode.INVALID_ARGUMENT);
    expect(await codeOf(cri.createContainer('0'.repeat(64), containerConfig('orphan', ['true']), config))).toBe(GrpcCode.NOT_FOUND);
    // A second container with the same name and attempt in one sandbox is refused; the next attempt is not.
    await cri.createContainer(sandbox, containerConfig('twice', ['true']), config);
    expect(await codeOf(cri.createContainer(sandbox, containerConfig('twice', ['true']), config))).toBe(GrpcCode.ALREADY_EXISTS);
    await cri.createContainer(sandbox, containerConfig('twice', ['true'], { metadata: { name: 'twice', attempt: 1 } }), config);
    expect((await cri.version()).runtimeName).toBe('knode');
  });

  it("runs containers in their own process group, with the pod hostname (the node's when it names none) and only the given environment", async () => {
    const cri = await start();
    const config = sandboxConfig('env-pod');
    const sandbox = await cri.runPodSandbox(config);
    const c = containerConfig(
      'env',
      ['sh', '-c', 'echo "$HOSTNAME $GREETING ${SECRET_FROM_HOST:-unset}"; echo "group $(cut -d" " -f5 /proc/$$/stat) pid $$"'],
      {
        envs: [{ key: 'GREETING', value: 'hello' }],
        ...HOST_PID,
      },
    );
    process.env.SECRET_FROM_HOST = 'leaked';
    const id = await runContainer(cri, sandbox, config, c);
    delete process.env.SECRET_FROM_HOST;
    await waitExited(cri, id);
    const log = readFileSync(logPathOf(config, c), 'utf8');
    // The config names no hostname: the node's, as containerd gives (a host-network pod's, which the kubelet names none for).
    expect(log).toContain(`stdout F ${hostname()} hello unset`);
    const [, group, pid] = /group (\d+) pid (\d+)/.exec(log)!;
    expect(group).toBe(pid);
  });

  it('says in its log when a container fails right after its start, with the end of its output', async () => {
    const cri = await start();
    const config = sandboxConfig('early');
    const sandbox = await cri.runPodSandbox(config);
    const id = await runContainer(cri, sandbox, config, containerConfig('fails', ['sh', '-c', 'echo cannot go on >&2; exit 3']));
    await waitExited(cri, id);
    const runtimeLog = join(runtime!.rootDir, 'runtime.log');
    const line = await eventually(
      () =>
        readFileSync(runtimeLog, 'utf8')
          .split('\n')
          .find((l) => l.includes(`container ${id} (fails) exited`)),
      'the early exit in the runtime log',
    );
    expect(line).toMatch(/exited \d+ ms after its start with code 3; its output ends: ".*stderr F cannot go on\\n"$/);
    // A container that ends well, or one stopped as asked, is not worth a line.
    const ok = await runContainer(cri, sandbox, config, containerConfig('fine', ['true']));
    await waitExited(cri, ok);
    const stopped = await runContainer(cri, sandbox, config, containerConfig('stopped', ['sleep', '60']));
    await cri.stopContainer(stopped, 0);
    expect(readFileSync(runtimeLog, 'utf8')).not.toContain(`container ${ok}`);
    expect(readFileSync(runtimeLog, 'utf8')).not.toContain(`container ${stopped}`);
  });

  it('kills what is left of the process group when the main process exits', async () => {
    const cri = await start();
    const config = sandboxConfig('group');
    const sandbox = await cri.runPodSandbox(config);
    const c = containerConfig('parent', ['sh', '-c', 'sleep 300 & echo $!; sleep 0.2'], HOST_PID);
    const id = await runContainer(cri, sandbox, config, c);
    await waitExited(cri, id);
    const child = Number(/stdout F (\d+)/.exec(readFileSync(logPathOf(config, c), 'utf8'))![1]);
    await eventually(() => readProcStat(child) === undefined || readProcStat(child)!.state === 'Z', 'the background child to be killed');
  });

  it('recovers after kill -9: sandboxes and exited containers are remembered, running ones are reported exited, not lost', async () => {
    let cri = await start();
    const rootDir = runtime!.rootDir;
    const config = sandboxConfig('survivor');
    const sandbox = await cri.runPodSandbox(config);
    const done = await runContainer(cri, sandbox, config, containerConfig('done', ['sh', '-c', 'exit 7']));
    await waitExited(cri, done);
    const running = await runContainer(cri, sandbox, config, containerConfig('running', ['sleep', '300']));
    const pid = JSON.parse((await cri.containerStatus(running, true)).info.info).pid as number;
    expect(readProcStat(pid)?.state).toMatch(/[RS]/);

    await runtime!.kill();
    cri = await start(rootDir);

    expect((await cri.podSandboxStatus(sandbox)).status?.state).toBe('SANDBOX_READY');
    const doneStatus = (await cri.containerStatus(done)).status!;
    expect([doneStatus.state, doneStatus.exitCode, doneStatus.reason]).toEqual(['CONTAINER_EXITED', 7, 'Error']);
    const lost = (await cri.containerStatus(running)).status!;
    expect([lost.state, lost.exitCode, lost.reason]).toEqual(['CONTAINER_EXITED', 255, 'Unknown']);
    expect(lost.message).toMatch(/runtime restarted/);
    await eventually(() => readProcStat(pid) === undefined || readProcStat(pid)!.state === 'Z', 'the orphaned process to be stopped');
    expect((await cri.imageStatus({ image: 'busybox:1.36' }))?.id).toMatch(/^sha256:/);
  });

  it("holds a pod's shared PID namespace in a process the sandbox starts, ended with the sandbox or by a restart", async () => {
    let cri = await start();
    const rootDir = runtime!.rootDir;
    const holderOf = async (sandbox: string) =>
      JSON.parse((await cri.podSandboxStatus(sandbox, true)).info.info).pidHolder?.pid as number | undefined;
    const gone = (pid: number) => readProcStat(pid) === undefined || readProcStat(pid)!.state === 'Z';

    const config = sandboxConfig('shared-pid');
    const sandbox = await cri.runPodSandbox(config);
    // Started with the sandbox, as a pause container is; the containers join it.
    const holder = (await holderOf(sandbox))!;
    expect(gone(holder)).toBe(false);
    await runContainer(cri, sandbox, config, containerConfig('app', ['sleep', '300']));
    // PID 1 is the holder's shell; what it idles on shows as pause, as a pause container does.
    const look = containerConfig('look', [
      'sh',
      '-c',
      'cat /proc/1/cmdline | tr "\\0" " "; echo; cat /proc/[0-9]*/comm | grep -x -e pause -e sleep',
    ]);
    await waitExited(cri, await runContainer(cri, sandbox, config, look));
    const seen = readFileSync(logPathOf(config, look), 'utf8');
    expect(seen).toMatch(/stdout F \/bin\/sh -c while \[ -x "\$1" \]; do "\$1" 2147483647 & wait; done holder \S+\/bin\/pause \n/);
    expect(
      seen
        .split('\n')
        .filter((line) => / stdout F (pause|sleep)$/.test(line))
        .map((line) => line.split(' ').at(-1))
        .sort(),
    ).toEqual(['pause', 'sleep']);
    expect(await holderOf(sandbox)).toBe(holder);

    await runtime!.kill();
    cri = await start(rootDir);
    await eventually(() => gone(holder), 'the holder to be ended by the restarted runtime');
    expect(await holderOf(sandbox)).toBeUndefined();

    await runContainer(cri, sandbox, config, containerConfig('app', ['sleep', '300'], { metadata: { name: 'app', attempt: 1 } }));
    const next = (await holderOf(sandbox))!;
    expect(next).not.toBe(holder);
    await cri.stopPodSandbox(sandbox);
    await eventually(() => gone(next), 'the holder to end with its sandbox');
    expect(await holderOf(sandbox)).toBeUndefined();
  });

  it('starts a container from a spare process made while it was quiet, with exactly its argv, environment and PID namespace', async () => {
    const cri = await start();
    const spares = () => childrenOf(runtime!.child.pid!).filter(stillHeld);
    const config = sandboxConfig('spare');
    const sandbox = await cri.runPodSandbox(config);
    const tricky = ["it's", 'a "b" $HOME `id` \\ \n next', ''];
    // It runs until the trigger exists, so that its status still has its pid.
    const trigger = join(mkdtempSync(join(tmpdir(), 'knode-trigger-')), 'go');
    const script = 'until [ -e "$TRIGGER" ]; do sleep 0.05; done; echo "pid $$"; printf "[%s]" "$@"; echo; echo "$GREETING"';
    const app = containerConfig('app', ['sh', '-c', script, 'sh', ...tricky], {
      envs: [
        { key: 'GREETING', value: "hello 'there' $PATH" },
        { key: 'TRIGGER', value: trigger },
      ],
      linux: { securityContext: { namespaceOptions: { pid: 'CONTAINER' } } },
    });
    const id = await cri.createContainer(sandbox, app, config);
    const waiting = await eventually(() => spares().length > 0 && spares(), 'a spare process of the runtime');
    await cri.startContainer(id);
    expect(waiting).toContain(JSON.parse((await cri.containerStatus(id, true)).info.info).pid);
    writeFileSync(trigger, '');
    expect(await waitExited(cri, id)).toMatchObject({ exitCode: 0, reason: 'Completed' });
    const out = readFileSync(logPathOf(config, app), 'utf8')
      .split('\n')
      .map((line) => line.split(' ').slice(3).join(' '));
    expect(out.slice(0, 4)).toEqual(['pid 1', `[it's][a "b" $HOME \`id\` \\ `, ' next][]', "hello 'there' $PATH"]);
  });

  it('does not make a start its client cancelled while it waited for its turn, and makes the others', async () => {
    const cri = await start();
    const config = sandboxConfig('cancelled-starts');
    const sandbox = await cri.runPodSandbox(config);
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) ids.push(await cri.createContainer(sandbox, containerConfig(`c${i}`, ['sleep', '60']), config));
    // Starts are made one a turn: sent together, the last ones wait while the first fork.
    const abort = new AbortController();
    const starts = ids.map((id, i) =>
      cri.startContainer(id, i >= 12 ? abort.signal : undefined).then(
        () => 'started',
        (e: CriError) => e.code,
      ),
    );
    await starts[0];
    abort.abort();
    const outcomes = await Promise.all(starts);
    expect(outcomes.slice(0, 12)).toEqual(Array(12).fill('started'));
    expect(outcomes.slice(12).every((o) => o === 'started' || o === GrpcCode.CANCELLED)).toBe(true);
    const states = await Promise.all(ids.map(async (id) => (await cri.containerStatus(id)).status!.state));
    expect(states.slice(0, 12)).toEqual(Array(12).fill('CONTAINER_RUNNING'));
    // The runtime saw the cancellations before their turns came: those containers were never started.
    const notStarted = ids.slice(12).filter((_, i) => states[12 + i] === 'CONTAINER_CREATED');
    expect(notStarted.length).toBeGreaterThanOrEqual(6);
    // And they can still be started: the last one asked for (a cancelled start the spawner had already
    // taken, one of the first, may still be under way while created, and run once its spawn is done).
    const last = notStarted[notStarted.length - 1];
    await cri.startContainer(last);
    expect((await cri.containerStatus(last)).status!.state).toBe('CONTAINER_RUNNING');
    await cri.stopPodSandbox(sandbox);
  });

  it('starts containers from its spawner process when no spare waits, so that it does not fork for them', async () => {
    const cri = await start();
    const spawner = await eventually(async () => {
      const spawning = String(JSON.parse((await cri.status(true)).info.config).spawning);
      return Number(/spawner process \(pid (\d+)\)/.exec(spawning)?.[1] ?? 0) || undefined;
    }, 'the runtime to report its spawner');
    const config = sandboxConfig('spawned');
    const sandbox = await cri.runPodSandbox(config);
    const names = ['c0', 'c1', 'c2', 'c3'];
    const ids: string[] = [];
    // Back to back: at most the two spares of a quiet moment take a start; the others are the spawner's.
    for (const name of names)
      ids.push(await runContainer(cri, sandbox, config, containerConfig(name, ['sh', '-c', 'echo "hi from $0"; exec sleep 300', name])));
    const parents = await Promise.all(
      ids.map(async (id) => readProcStat(JSON.parse((await cri.containerStatus(id, true)).info.info).pid as number)?.ppid),
    );
    expect(parents.filter((ppid) => ppid === spawner).length).toBeGreaterThanOrEqual(2);
    expect(parents.every((ppid) => ppid === spawner || ppid === runtime!.child.pid)).toBe(true);
    for (const name of names) {
      await eventually(
        () => readFileSync(logPathOf(config, containerConfig(name, [])), 'utf8').includes(`stdout F hi from ${name}`),
        `${name}'s log line`,
      );
    }
    await cri.stopContainer(ids[3], 0);
    expect(await waitExited(cri, ids[3])).toMatchObject({ exitCode: 137, reason: 'Error' });
  });

  it("raises a running container's memory limit in its cgroup, where the host lets it enforce limits", async () => {
    const cri = await start();
    const trigger = join(mkdtempSync(join(tmpdir(), 'knode-trigger-')), 'go');
    const config = sandboxConfig('resize');
    const sandbox = await cri.runPodSandbox(config);
    // Waits for the trigger, then holds ~100 MB: more than the first limit, less than the second.
    const script = `while [ ! -e ${trigger} ]; do sleep 0.02; done; head -c 100000000 /dev/zero | tail > /dev/null && echo survived`;
    const id = await runContainer(
      cri,
      sandbox,
      config,
      containerConfig('grows', ['sh', '-c', script], { linux: { resources: { memoryLimitInBytes: 32 * 1024 * 1024 } } }),
    );
    await cri.updateContainerResources(id, { memoryLimitInBytes: 512 * 1024 * 1024 });
    expect(JSON.parse((await cri.containerStatus(id, true)).info.info).resources.memoryLimitInBytes).toBe(512 * 1024 * 1024);
    writeFileSync(trigger, '');
    const status = await waitExited(cri, id, 30_000);
    const limits = JSON.parse((await cri.status(true)).info.config).resourceLimits as string;
    // Enforced or not, the container is not killed: the new limit is the one in force.
    expect({
      exitCode: status.exitCode,
      reason: status.reason,
      limits: limits.startsWith('enforced') || limits.startsWith('not enforced'),
    }).toEqual({ exitCode: 0, reason: 'Completed', limits: true });
  });

  it('shuts down promptly while a client watches its events, ending the stream', async () => {
    const cri = await start();
    const abort = new AbortController();
    let ended = false;
    const reading = (async () => {
      for await (const _ of cri.getContainerEvents(abort.signal)) void _;
      ended = true;
    })();
    await cri.version(); // the stream's call is on the same connection, opened by now
    const started = Date.now();
    await runtime!.stop();
    runtime = undefined;
    await reading;
    expect(ended).toBe(true);
    expect(Date.now() - started).toBeLessThan(900);
  });

  it('stops its containers when it shuts down', async () => {
    const cri = await start();
    const config = sandboxConfig('shutdown');
    const sandbox = await cri.runPodSandbox(config);
    const id = await runContainer(cri, sandbox, config, containerConfig('long', ['sleep', '300']));
    const pid = JSON.parse((await cri.containerStatus(id, true)).info.info).pid as number;
    await runtime!.stop();
    runtime = undefined;
    expect(readProcStat(pid) === undefined || readProcStat(pid)!.state === 'Z').toBe(true);
  });
});
