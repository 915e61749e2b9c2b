// ReopenContainerLog through real gRPC, the way the container log manager
// uses it: the log renamed aside, then reopened, while the container writes
// as fast as it can. Every runtime must lose no line, split none across
// the switch, and keep the P/F tags of lines longer than an entry.
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CriClient } from '../../src/cri/client.js';
import { CriError, GrpcCode } from '../../src/cri/errors.js';
import { containerConfig, ensureImage, logPathOf, runContainer, sandboxConfig } from '../helpers/cri.js';
import { eventually, runtimesUnderTest } from '../helpers/runtimes.js';

const ENTRY = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d) (stdout|stderr) (F|P) (.*)$/;
const LINES = 3000;
const LONG = 40_000;

/** The lines the container writes: numbered ones, and every 100th a line longer than two CRI entries. */
function expectedLines(): string[] {
  const out: string[] = [];
  for (let i = 1; i <= LINES; i++) {
    out.push(`line ${i}`);
    if (i % 100 === 0) out.push(`${'x'.repeat(LONG)} long ${i}`);
  }
  return out;
}

const WRITER = [
  'sh',
  '-c',
  `i=0; while [ $i -lt ${LINES} ]; do i=$((i+1)); echo "line $i"; ` +
    `if [ $((i % 100)) -eq 0 ]; then head -c ${LONG} /dev/zero | tr '\\0' x; echo " long $i"; fi; ` +
    `if [ $((i % 10)) -eq 0 ]; then sleep 0.01; fi; done`,
];

describe.each(runtimesUnderTest())('ReopenContainerLog on the $name runtime', (runtime) => {
  let client: CriClient;
  let cleanup: () => Promise<void>;
  const sandboxes: string[] = [];

  beforeAll(async () => {
    const started = await runtime.start();
    cleanup = started.cleanup;
    client = new CriClient(started.endpoint);
    await ensureImage(client);
  });

  afterAll(async () => {
    for (const id of sandboxes) await client.removePodSandbox(id).catch(() => {});
    client.close();
    await cleanup();
  });

  it('loses no line and splits none across many rotations of a fast writer; long lines keep their P and F entries', async () => {
    const config = sandboxConfig('rotation');
    const sandboxId = await client.runPodSandbox(config);
    sandboxes.push(sandboxId);
    const c = containerConfig('writer', WRITER);
    const id = await runContainer(client, sandboxId, config, c);
    const path = logPathOf(config, c);
    const rotated: string[] = [];
    const running = async () => (await client.containerStatus(id)).status?.state === 'CONTAINER_RUNNING';
    // Rotate as the log manager does, as often as the writer gives us something new, until it ends.
    while (await running()) {
      if (existsSync(path) && readFileSync(path).length > 0) {
        const aside = `${path}.${String(rotated.length).padStart(4, '0')}`;
        renameSync(path, aside);
        rotated.push(aside);
        await client.reopenContainerLog(id).catch((err: CriError) => {
          // The container may end between our look and the call: that is the only failure allowed.
          if (err.code !== GrpcCode.FAILED_PRECONDITION && err.code !== GrpcCode.UNKNOWN) throw err;
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await eventually(async () => !(await running()), 'the writer to end');

    const files = [...rotated, path].filter(existsSync);
    const entries = files.flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const m = ENTRY.exec(line);
          expect(m, `a CRI log entry in ${f}: ${line.slice(0, 80)}`).not.toBeNull();
          return { tag: m![4], text: m![5] };
        }),
    );
    // Joined as a reader joins them, in the order of the files: exactly what the container wrote.
    const lines: string[] = [];
    let partial = '';
    for (const e of entries) {
      partial += e.text;
      if (e.tag === 'F') {
        lines.push(partial);
        partial = '';
      }
    }
    expect(partial).toBe('');
    const expected = expectedLines();
    expect(lines.length).toBe(expected.length);
    expect(lines).toEqual(expected);
    // Each 40 000-character line is more than two 16 KiB entries: P, P, then F (containerd may cut one more
    // where its reads end; the embedded runtime cuts at the 16 KiB mark only).
    const partials = entries.filter((e) => e.tag === 'P').length;
    if (runtime.kind === 'embedded') expect(partials).toBe((LINES / 100) * 2);
    else expect(partials).toBeGreaterThanOrEqual((LINES / 100) * 2);
    // The rotations happened while it wrote (many files hold lines), not after.
    expect(files.filter((f) => readFileSync(f).length > 0).length).toBeGreaterThan(5);
  }, 60_000);

  it('refuses to reopen the log of a container that is not running', async () => {
    const config = sandboxConfig('rotation-stopped');
    const sandboxId = await client.runPodSandbox(config);
    sandboxes.push(sandboxId);
    const c = containerConfig('done', ['sh', '-c', 'echo done']);
    const id = await runContainer(client, sandboxId, config, c);
    await eventually(async () => (await client.containerStatus(id)).status?.state === 'CONTAINER_EXITED', 'the container to exit');
    const err = await client.reopenContainerLog(id).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CriError);
    // Difference: containerd answers UNKNOWN ("container is not running"); the embedded runtime FAILED_PRECONDITION.
    expect((err as CriError).code).toBe(runtime.kind === 'embedded' ? GrpcCode.FAILED_PRECONDITION : GrpcCode.UNKNOWN);
    expect((err as CriError).message).toContain('not running');
  });
});
