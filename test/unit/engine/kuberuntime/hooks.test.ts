import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CriError, GrpcCode } from '../../../../src/cri/errors.js';
import type { Container, LifecycleHandler, Pod } from '../../../../src/engine/api/v1.js';
import { HookRunner } from '../../../../src/engine/kuberuntime/hooks.js';
import { FakeClock } from '../../../../src/util/clock.js';
import { goQuote, goStringList } from '../../../../src/util/go-format.js';
import { FakeRuntimeService } from '../../../helpers/fake-runtime-service.js';

const UID = '0b6c1f7e-4f2a-4d7e-9a51-7c3e2f1d9b10';
const pod: Pod = {
  metadata: { name: 'poststart-fail-diffnode', namespace: 'default', uid: UID },
  spec: { containers: [{ name: 'main', image: 'busybox:1.36' }] },
};
const main: Container = pod.spec.containers[0];

/** A hook runner whose ExecSync answers `answer` (or fails with it). */
function runner(answer: { exitCode: number; stdout?: string; stderr?: string } | Error) {
  const runtime = new FakeRuntimeService();
  runtime.respond('execSync', () => {
    if (answer instanceof Error) throw answer;
    return { exitCode: answer.exitCode, stdout: Buffer.from(answer.stdout ?? ''), stderr: Buffer.from(answer.stderr ?? '') };
  });
  return new HookRunner(runtime, new FakeClock());
}

const exec = (...command: string[]): LifecycleHandler => ({ exec: { command } });

describe('HookRunner: failures worded as the kubelet words them (lifecycle/handlers.go, the PostStartHookError message)', () => {
  it('an exec hook that exits 1 with no output: exactly the kubelet text', async () => {
    const got = await runner({ exitCode: 1 }).run('c-1', main, pod, exec('sh', '-c', 'exit 1'), '10.88.0.5');
    expect(got).toBe(
      `Exec lifecycle hook ([sh -c exit 1]) for Container "main" in Pod "poststart-fail-diffnode_default(${UID})" failed - error: command 'sh -c exit 1' exited with 1: , message: ""`,
    );
  });

  it('an exec hook with output: stderr in the error (CRI client), stdout and stderr in the message, %q-quoted', async () => {
    const got = await runner({ exitCode: 7, stdout: 'tried\n', stderr: 'not today\n' }).run(
      'c-1',
      main,
      pod,
      exec('sh', '-c', 'echo tried; echo not today >&2; exit 7'),
      '',
    );
    expect(got).toBe(
      `Exec lifecycle hook ([sh -c echo tried; echo not today >&2; exit 7]) for Container "main" in Pod "poststart-fail-diffnode_default(${UID})" failed - error: command 'sh -c echo tried; echo not today >&2; exit 7' exited with 7: not today\n, message: "tried\\nnot today\\n"`,
    );
  });

  it('an exec hook the runtime cannot run: the gRPC error as the Go client prints it', async () => {
    const got = await runner(new CriError('ExecSync', GrpcCode.NOT_FOUND, 'container "c-1" not found')).run(
      'c-1',
      main,
      pod,
      exec('true'),
      '',
    );
    expect(got).toBe(
      `Exec lifecycle hook ([true]) for Container "main" in Pod "poststart-fail-diffnode_default(${UID})" failed - error: rpc error: code = NotFound desc = container "c-1" not found, message: ""`,
    );
  });

  it('an exec hook that succeeds: no message', async () => {
    expect(await runner({ exitCode: 0, stdout: 'fine' }).run('c-1', main, pod, exec('true'), '')).toBeUndefined();
  });

  it('an httpGet hook answered with 500 succeeds, as the kubelet checks no status', async () => {
    const server = createHttpServer((_req, res) => res.writeHead(500).end('broken'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      expect(await runner({ exitCode: 0 }).run('c-1', main, pod, { httpGet: { path: '/started', port } }, '127.0.0.1')).toBeUndefined();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('an httpGet hook nobody answers: the HTTP format, with the request error as Go words it', async () => {
    const port = await closedPort();
    const got = await runner({ exitCode: 0 }).run('c-1', main, pod, { httpGet: { path: '/started', port } }, '127.0.0.1');
    expect(got).toBe(
      `HTTP lifecycle hook (/started) for Container "main" in Pod "poststart-fail-diffnode_default(${UID})" failed - error: Get "http://127.0.0.1:${port}/started": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    );
  });
});

describe("Go's %q and %v", () => {
  it.each([
    ['', '""'],
    ['plain text', '"plain text"'],
    ['tab\tnew\nline\r', '"tab\\tnew\\nline\\r"'],
    ['say "hi" \\ bye', '"say \\"hi\\" \\\\ bye"'],
    ['\x00\x1b\x7f', '"\\x00\\x1b\\x7f"'],
    ['héllo — ✓ 日本', '"héllo — ✓ 日本"'],
    ['\u200b', '"\\u200b"'],
  ])('%j is %s', (input, want) => {
    expect(goQuote(input)).toBe(want);
  });

  it('quotes bytes that are not UTF-8 one by one', () => {
    expect(goQuote(Buffer.from([0x61, 0xff, 0xc3]))).toBe('"a\\xff\\xc3"');
  });

  it('prints a string list as Go prints a []string', () => {
    expect(goStringList(['sh', '-c', 'exit 1'])).toBe('[sh -c exit 1]');
  });
});

/** A local port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
