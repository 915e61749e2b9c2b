// GetContainerEvents under a backlog: the embedded runtime's server in this
// process, a real gRPC client over its unix socket. Events published together
// must reach the client together, not one per turn of the event loop (which
// a burst of pods makes long: a 1,000-pod burst once queued them for 19 s).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CriClient } from '../../src/cri/client.js';
import { startEmbeddedRuntime, type ServingRuntime } from '../../src/runtime/serve.js';
import { containerConfig, ensureImage, runContainer, sandboxConfig } from '../helpers/cri.js';
import { eventually } from '../helpers/runtimes.js';

const EVENTS = 200;

describe('the embedded runtime event stream', () => {
  let served: ServingRuntime | undefined;
  let cri: CriClient | undefined;
  let root: string | undefined;

  afterEach(async () => {
    cri?.close();
    await served?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
    served = cri = root = undefined;
  });

  it('sends a backlog of events in a few turns of its event loop, in order', async () => {
    root = mkdtempSync(join(tmpdir(), 'knode-events-'));
    served = await startEmbeddedRuntime({ rootDir: root, sandbox: 'off', log: () => {} });
    cri = new CriClient(`unix://${served.socketPath}`);
    const abort = new AbortController();
    const got: string[] = [];
    const reading = (async () => {
      for await (const e of cri!.getContainerEvents(abort.signal)) got.push(e.containerId);
    })();
    await eventually(() => served!.runtime.events.subscribers === 1, 'the stream to subscribe');

    for (let i = 0; i < EVENTS; i++) {
      served.runtime.events.publish({
        containerId: `c${i}`,
        containerEventType: 'CONTAINER_CREATED_EVENT',
        createdAt: i,
        podSandboxStatus: null,
        containersStatuses: [],
      });
    }
    let turns = 0;
    while (got.length < EVENTS && turns < 10 * EVENTS) {
      await new Promise((resolve) => setImmediate(resolve));
      turns++;
    }
    abort.abort();
    await reading;

    expect(got).toEqual(Array.from({ length: EVENTS }, (_, i) => `c${i}`));
    // Through grpc-js's Writable, one message at a time, these 200 took 101 turns; written straight, 2.
    expect(turns).toBeLessThan(EVENTS / 5);
  });

  it('shuts down while a client watches and its containers stop, their events going nowhere', async () => {
    root = mkdtempSync(join(tmpdir(), 'knode-events-'));
    served = await startEmbeddedRuntime({ rootDir: root, sandbox: 'off', shutdownGraceSeconds: 1, log: () => {} });
    cri = new CriClient(`unix://${served.socketPath}`);
    await ensureImage(cri);
    const config = sandboxConfig('watched');
    const sandbox = await cri.runPodSandbox(config);
    const id = await runContainer(cri, sandbox, config, containerConfig('long', ['sleep', '300']));
    const abort = new AbortController();
    const seen: string[] = [];
    const reading = (async () => {
      for await (const e of cri!.getContainerEvents(abort.signal)) seen.push(`${e.containerId}:${e.containerEventType}`);
    })().catch((err: Error) => seen.push(`error: ${err.message}`));
    await eventually(() => served!.runtime.events.subscribers === 1, 'the stream to subscribe');

    // The server ends the stream, then the shutdown stops the container: its stop event has no subscriber left.
    await served.stop();
    await reading;
    expect(served.runtime.events.subscribers).toBe(0);
    expect(served.runtime.containers.get(id).state).toBe('CONTAINER_EXITED');
    expect(seen.filter((s) => s.startsWith('error'))).toEqual([]);
    served = undefined;
  });
});
