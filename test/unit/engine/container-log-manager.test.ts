import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CriError, GrpcCode } from '../../../src/cri/errors.js';
import type { ContainerState } from '../../../src/cri/types.js';
import {
  ContainerLogManager,
  filterUnusedLogs,
  rotationTimestamp,
  runningContainersOf,
  type RunningContainerRef,
} from '../../../src/engine/container-log-manager.js';
import type { RunningPod } from '../../../src/engine/container/types.js';
import { EventStream, type LifecycleEvent } from '../../../src/engine/events.js';
import { FakeClock } from '../../../src/util/clock.js';
import { FakeRuntimeService, podLabels } from '../../helpers/fake-runtime-service.js';

let dir: string;
let clock: FakeClock;
let runtime: FakeRuntimeService;
let events: LifecycleEvent[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'knode-log-rotate-'));
  clock = new FakeClock();
  runtime = new FakeRuntimeService(() => clock.now());
  events = [];
  // As a runtime does: ReopenContainerLog makes a new file at the log path.
  runtime.beforeCall('reopenContainerLog', (id) => writeFileSync(runtime.containers.get(id)!.status.logPath, '', { flag: 'a' }));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function manager(
  policy = { maxSize: 10, maxFiles: 3 },
  maxWorkers = 10,
  runningContainers?: () => RunningContainerRef[] | undefined,
): ContainerLogManager {
  const stream = new EventStream(() => clock.now());
  stream.subscribe((e) => events.push(e));
  return new ContainerLogManager({
    runtime,
    runningContainers,
    clock,
    events: stream,
    nodeName: 'node-1',
    policy,
    monitorInterval: 10_000,
    maxWorkers,
  });
}

function container(id: string, log: string, state: ContainerState = 'CONTAINER_RUNNING', node = 'node-1'): void {
  const labels = podLabels({ uid: 'uid-1', name: 'web', namespace: 'default' }, node);
  runtime.addContainer('sb-1', { id, state, logPath: join(dir, log), labels, metadata: { name: id, attempt: 0 } });
}

function files(names: Record<string, string>): void {
  for (const [name, content] of Object.entries(names)) writeFileSync(join(dir, name), content);
}

const stamp = () => rotationTimestamp(new Date(clock.now()));

describe('ContainerLogManager', () => {
  it("rotates the logs of running containers past the max size, as upstream's TestRotateLogs", async () => {
    files({
      'test-log-1': 'short',
      'test-log-2': 'longer than 10 bytes',
      'test-log-3': 'longer than 10 bytes',
      'test-log-4': 'longer than 10 bytes',
      'test-log-5': 'longer than 10 bytes',
      'test-log-3.00000000-000001': "the length doesn't matter",
      'test-log-3.00000000-000000.gz': "the length doesn't matter",
    });
    container('container-not-need-rotate', 'test-log-1');
    container('container-need-rotate', 'test-log-2');
    container('container-has-excess-log', 'test-log-3');
    container('container-is-not-running', 'test-log-4', 'CONTAINER_EXITED');
    container('container-of-another-node', 'test-log-5', 'CONTAINER_RUNNING', 'node-2');
    const m = manager();
    await m.rotateLogs();
    await m.idle();

    expect(readdirSync(dir).sort()).toEqual(
      [
        'test-log-1',
        'test-log-2', // reopened: a new, empty file
        `test-log-2.${stamp()}`,
        'test-log-3',
        `test-log-3.${stamp()}`,
        'test-log-3.00000000-000001.gz',
        'test-log-4',
        'test-log-5',
      ].sort(),
    );
    expect(readFileSync(join(dir, 'test-log-2'), 'utf8')).toBe('');
    expect(readFileSync(join(dir, `test-log-2.${stamp()}`), 'utf8')).toBe('longer than 10 bytes');
    expect(gunzipSync(readFileSync(join(dir, 'test-log-3.00000000-000001.gz'))).toString()).toBe("the length doesn't matter");
    expect(runtime.calls('reopenContainerLog').map(([id]) => id)).toEqual(['container-need-rotate', 'container-has-excess-log']);
    const rotated = events.filter((e) => e.type === 'ContainerLogRotated');
    expect(rotated.map((e) => [e.pod, e.uid, e.container])).toEqual([
      ['default/web', 'uid-1', 'container-need-rotate'],
      ['default/web', 'uid-1', 'container-has-excess-log'],
    ]);
    expect(rotated[0].message).toBe(`rotated ${join(dir, 'test-log-2')} (20 bytes) to ${join(dir, `test-log-2.${stamp()}`)}`);
  });

  it.each([
    { maxFiles: 2, kept: [] },
    { maxFiles: 3, kept: ['0.log.20260101-000004.gz'] },
    { maxFiles: 6, kept: ['0.log.20260101-000001.gz', '0.log.20260101-000002.gz', '0.log.20260101-000003.gz', '0.log.20260101-000004.gz'] },
  ])('keeps maxFiles-2 older rotated files, removing the oldest ($maxFiles)', async ({ maxFiles, kept }) => {
    files({
      '0.log': 'more than ten bytes',
      '0.log.20260101-000003': '3',
      '0.log.20260101-000001': '1',
      '0.log.20260101-000002.gz': '2',
      '0.log.20260101-000004': '4',
    });
    container('c-1', '0.log');
    const m = manager({ maxSize: 10, maxFiles });
    await m.rotateLogs();
    await m.idle();
    expect(readdirSync(dir).sort()).toEqual(['0.log', `0.log.${stamp()}`, ...kept].sort());
  });

  it('removes what a failed rotation left: temporary files, and rotated files already compressed', () => {
    expect(filterUnusedLogs(['a.1', 'a.1.gz', 'a.2.tmp', 'a.2', 'a.3.gz'])).toEqual({
      inUse: ['a.1.gz', 'a.2', 'a.3.gz'],
      unused: ['a.1', 'a.2.tmp'],
    });
  });

  it('puts the log back when the runtime cannot reopen it, and says so; the next pass rotates it again', async () => {
    files({ '0.log': 'more than ten bytes' });
    container('c-1', '0.log');
    runtime.injectError('reopenContainerLog', new CriError('ReopenContainerLog', GrpcCode.UNIMPLEMENTED, 'not implemented'));
    const m = manager();
    await m.rotateLogs();
    await m.idle();
    expect(readdirSync(dir)).toEqual(['0.log']);
    expect(readFileSync(join(dir, '0.log'), 'utf8')).toBe('more than ten bytes');
    const failed = events.filter((e) => e.type === 'ContainerLogRotationFailed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ pod: 'default/web', container: 'c-1', reason: 'LogRotationFailed' });
    expect(failed[0].message).toContain('failed to reopen container log "c-1"');

    await m.rotateLogs();
    await m.idle();
    expect(readdirSync(dir).sort()).toEqual(['0.log', `0.log.${stamp()}`]);
  });

  it('reopens a log that is missing before looking at its size', async () => {
    container('c-1', '0.log');
    const m = manager();
    await m.rotateLogs();
    await m.idle();
    expect(runtime.calls('reopenContainerLog')).toEqual([['c-1']]);
    expect(readdirSync(dir)).toEqual(['0.log']);
  });

  it("asks for a container's log path once, again only when its file is gone, and forgets it once the container stops", async () => {
    files({ '0.log': 'short', '1.log': 'short' });
    container('c-0', '0.log');
    container('c-1', '1.log');
    const m = manager();
    const pass = async () => {
      await m.rotateLogs();
      await m.idle();
    };
    await pass();
    await pass();
    expect(runtime.calls('containerStatus').map(([id]) => id)).toEqual(['c-0', 'c-1']);

    // A log moved away under it: the runtime is asked again, then to reopen it.
    rmSync(join(dir, '1.log'));
    await pass();
    expect(runtime.calls('containerStatus').map(([id]) => id)).toEqual(['c-0', 'c-1', 'c-1']);
    expect(runtime.calls('reopenContainerLog')).toEqual([['c-1']]);

    // Stopped, then running again (as no container does): a pass in between forgot its path.
    runtime.containers.get('c-0')!.status.state = 'CONTAINER_EXITED';
    await pass();
    runtime.containers.get('c-0')!.status.state = 'CONTAINER_RUNNING';
    await pass();
    expect(runtime.calls('containerStatus').map(([id]) => id)).toEqual(['c-0', 'c-1', 'c-1', 'c-0']);
  });

  it("takes the PLEG's running containers when it has seen the runtime, and lists them before", async () => {
    files({ '0.log': 'more than ten bytes', '1.log': 'more than ten bytes' });
    container('c-0', '0.log');
    container('c-1', '1.log');
    let pods: RunningPod[] | undefined = undefined;
    const m = manager(undefined, undefined, () => runningContainersOf(pods));
    // Before the PLEG's first relist: the runtime's list, both rotated.
    await m.rotateLogs();
    await m.idle();
    expect(runtime.calls('listContainers')).toHaveLength(1);
    // Ten workers: the two logs are rotated at once, in either order.
    expect(
      runtime
        .calls('reopenContainerLog')
        .map(([id]) => id)
        .sort(),
    ).toEqual(['c-0', 'c-1']);

    files({ '0.log': 'more than ten bytes', '1.log': 'more than ten bytes' });
    const running = { id: 'c-1', name: 'web', state: 'running' as const, createdAt: 0, hash: '', sandboxId: 'sb-1' };
    pods = [
      { uid: 'uid-2', name: 'api', namespace: 'prod', sandboxes: [], containers: [running, { ...running, id: 'c-0', state: 'exited' }] },
    ];
    runtime.injectError('reopenContainerLog', new CriError('ReopenContainerLog', GrpcCode.UNIMPLEMENTED, 'not implemented'));
    await m.rotateLogs();
    await m.idle();
    // No list: only what the PLEG holds running, named as it names it.
    expect(runtime.calls('listContainers')).toHaveLength(1);
    expect(
      runtime
        .calls('reopenContainerLog')
        .map(([id]) => id)
        .slice(2),
    ).toEqual(['c-1']);
    const failed = events.filter((e) => e.type === 'ContainerLogRotationFailed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ pod: 'prod/api', uid: 'uid-2', container: 'web' });
  });

  it('runs a pass at start and every monitor interval on its clock, until stopped; a negative max size never starts', async () => {
    files({ '0.log': 'short' });
    container('c-1', '0.log');
    const m = manager();
    m.start();
    await clock.advance(0);
    await m.idle();
    expect(runtime.calls('listContainers')).toHaveLength(1);
    await clock.advance(9_999);
    expect(runtime.calls('listContainers')).toHaveLength(1);
    await clock.advance(1);
    expect(runtime.calls('listContainers')).toHaveLength(2);
    await m.stop();
    expect(clock.pending).toBe(0);

    const off = manager({ maxSize: -1, maxFiles: 5 });
    off.start();
    await clock.advance(60_000);
    expect(runtime.calls('listContainers')).toHaveLength(2);
  });

  it('says why a pass failed when the runtime cannot list containers', async () => {
    runtime.injectError('listContainers', new CriError('ListContainers', GrpcCode.UNAVAILABLE, 'connection refused'));
    const m = manager();
    m.start();
    await m.stop();
    expect(events.map((e) => [e.type, e.message])).toEqual([
      ['ContainerLogRotationFailed', 'failed to rotate container logs: ListContainers: UNAVAILABLE: connection refused'],
    ]);
  });

  it('rotates one log at a time with one worker', async () => {
    files({ 'a.log': 'more than ten bytes', 'b.log': 'more than ten bytes' });
    container('c-1', 'a.log');
    container('c-2', 'b.log');
    let running = 0;
    let most = 0;
    runtime.beforeCall('containerStatus', async () => {
      most = Math.max(most, ++running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
    });
    const m = manager({ maxSize: 10, maxFiles: 3 }, 1);
    await m.rotateLogs();
    await m.idle();
    expect(most).toBe(1);
    expect(runtime.calls('reopenContainerLog')).toHaveLength(2);
  });
});

describe('rotationTimestamp', () => {
  it("writes local time as Go's 20060102-150405", () => {
    expect(rotationTimestamp(new Date(2026, 0, 2, 3, 4, 5))).toBe('20260102-030405');
    expect(rotationTimestamp(new Date(2026, 11, 31, 23, 59, 59))).toBe('20261231-235959');
  });
});
