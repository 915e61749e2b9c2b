// One agent (the real kubelet or knode) through the node-lifetime differential
// on a fresh containerd 2: its container log rotation, then its container
// garbage collection, looked at from outside (the pod log directory, the
// runtime over CRI, the agent's /pods and /containerLogs). Each look polls
// with a deadline. Started and stopped with the kubelet differential's harness.
import { existsSync, mkdirSync, mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CriClient } from '../../../src/cri/client.js';
import type { Pod, PodList } from '../../../src/engine/api/v1.js';
import { startAgent, tail, unmountUnder, type AgentName, type StartedAgent } from '../agent-start.js';
import { containerdDown, containerdUp, fileOf, writeManifest } from '../harness.js';
import { gcSnapshot, logLook, type LogLook } from './looks.js';
import { CRASHER, GC_PERIOD_MS, KNODE_ARGS, KUBELET_CONFIG, LOGGER } from './scenarios.js';

export interface AgentResult {
  agent: AgentName;
  /** Checkpoint name → text (the same function for both agents). */
  checkpoints: Map<string, string>;
  /** Numbers and times of this run, for the report; not compared. */
  facts: string[];
  error?: string;
  logTail: string;
}

/** The UID of a pod neither agent knows: its log directory goes at each GC pass (evictPodLogsDirectories), which makes a pass seen. */
const MARKER_UID = '0000feed-0000-4000-8000-00000000c0de';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Calls LOOK once a second until it returns something, or undefined at the deadline. */
async function poll<T>(deadline: number, look: () => Promise<T | undefined> | T | undefined): Promise<T | undefined> {
  for (;;) {
    const found = await look();
    if (found !== undefined) return found;
    if (Date.now() >= deadline) return undefined;
    await sleep(1000);
  }
}

async function podsOf(a: StartedAgent): Promise<Pod[]> {
  try {
    return ((await (await fetch(a.podsUrl, { signal: AbortSignal.timeout(5000) })).json()) as PodList).items ?? [];
  } catch {
    return [];
  }
}

/** GET URL's body: https with the kubelet's self-signed certificate, or plain http. */
function getText(url: string): Promise<string> {
  if (url.startsWith('http:')) return fetch(url, { signal: AbortSignal.timeout(5000) }).then((r) => r.text());
  return new Promise((resolve, reject) => {
    const req = get(url, { rejectUnauthorized: false, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve(body));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} in 5 s`)));
    req.on('error', reject);
  });
}

/** Runs AGENT through both parts on a fresh containerd 2 and cleans everything up. */
export async function runAgent(agent: AgentName, node: string, log: (line: string) => void = () => {}): Promise<AgentResult> {
  const base = mkdtempSync(join(tmpdir(), `knode-lifediff-${agent}-`));
  const ctdDir = join(base, 'containerd');
  const result: AgentResult = { agent, checkpoints: new Map(), facts: [], logTail: '' };
  const fact = (line: string) => {
    result.facts.push(line);
    log(`${agent}: ${line}`);
  };
  let endpoint: string | undefined;
  let started: StartedAgent | undefined;
  let cri: CriClient | undefined;
  // The crasher's dead instances, most at once (a look a second until the GC part).
  let maxDead = 0;
  let sampling = false;
  let sampler: Promise<void> | undefined;
  // When the agent's GC passes came, seen by the marker log directory they remove; the crasher's manifest removed.
  const passes: number[] = [];
  let removed = false;
  try {
    endpoint = await containerdUp(ctdDir);
    // The agent's garbage collector passes at its start and every GC_PERIOD_MS: t0 is just before it starts.
    const t0 = Date.now();
    started = await startAgent(agent, join(base, agent), endpoint, node, { kubeletConfig: KUBELET_CONFIG, knodeArgs: KNODE_ARGS });
    const a = started;
    const since = () => `${((Date.now() - t0) / 1000).toFixed(0)} s`;
    fact(`up after ${since()}`);
    cri = new CriClient(endpoint, { requestTimeoutMs: 10_000 });
    for (const s of [LOGGER, CRASHER]) writeManifest(a.podsDir, s, s.spec);
    // Once a second until the end: whether a GC pass came (it removed the marker), and the crasher's dead instances.
    sampling = true;
    sampler = (async () => {
      const marker = join(a.podLogsDir, `default_gc-marker_${MARKER_UID}`);
      let made = false;
      while (sampling) {
        if (made && !existsSync(marker)) passes.push(Date.now());
        mkdirSync(marker, { recursive: true });
        made = true;
        const p = (await podsOf(a)).find((x) => x.metadata.name === `${CRASHER.name}-${node}`);
        if (p?.metadata.uid && !removed) {
          const s = await gcSnapshot(cri!, p.metadata.uid, '/nonexistent').catch(() => undefined);
          maxDead = Math.max(maxDead, s?.deadByContainer.crash ?? 0);
        }
        await sleep(1000);
      }
    })();
    const podNamed = async (name: string) => (await podsOf(a)).find((p) => p.metadata.name === `${name}-${node}`);
    const running = (p: Pod | undefined) => p?.status?.containerStatuses?.some((c) => c.state?.running) ?? false;
    const logger = await poll(Date.now() + 60_000, async () => {
      const p = await podNamed(LOGGER.name);
      return running(p) ? p : undefined;
    });
    if (!logger) throw new Error(`${LOGGER.name} did not run within 60 s`);
    fact(`${LOGGER.name} running at ${since()}`);

    // a) log rotation: about 40 s of writing, then the container's log directory.
    const logDir = join(a.podLogsDir, `default_${LOGGER.name}-${node}_${logger.metadata.uid}`, 'writer');
    const look: LogLook = await logLook(
      logDir,
      Date.now(),
      (line) => fact(line),
      (tailLines) => getText(`${a.apiUrl}/containerLogs/default/${LOGGER.name}-${node}/writer?tailLines=${tailLines}`),
    );
    for (const [k, v] of look.checkpoints) result.checkpoints.set(`log rotation: ${k}`, v);

    // b) container GC: the first pass a minute after start (the one at start comes before any pod is known), with dead instances made by then.
    const at = (t: number) => `${((t - t0) / 1000).toFixed(0)} s`;
    const first = await poll(t0 + 2 * GC_PERIOD_MS + 10_000, () => passes.find((t) => t >= t0 + GC_PERIOD_MS / 2));
    if (!first) throw new Error(`no GC pass removed the marker in ${a.podLogsDir} within ${(2 * GC_PERIOD_MS + 10_000) / 1000} s`);
    fact(`GC pass seen at ${at(first)}`);
    const crasher = await poll(first + 30_000, async () => {
      const p = await podNamed(CRASHER.name);
      return (p?.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 2 ? p : undefined;
    });
    if (!crasher) throw new Error(`${CRASHER.name} did not restart twice by 30 s after the first GC pass`);
    const uid = crasher.metadata.uid!;
    const crashLogs = join(a.podLogsDir, `default_${CRASHER.name}-${node}_${uid}`);
    const snap = () => gcSnapshot(cri!, uid, crashLogs);
    // The dead instances kept: the newest only (MaxPerPodContainer 1), once a restart in progress settles.
    const kept =
      (await poll(Date.now() + 15_000, async () => {
        const s = await snap();
        return (s.deadByContainer.crash ?? 0) <= 1 ? s : undefined;
      })) ?? (await snap());
    fact(`${CRASHER.name} after the pass (${since()}): ${kept.text}`);
    result.checkpoints.set('container gc: dead instances after a pass', kept.deadText);
    result.checkpoints.set('container gc: sandboxes of a running pod', kept.sandboxText);
    removed = true;
    fact(`${CRASHER.name}: most dead instances of its container seen at once ${maxDead}`);

    // Then the manifest goes: what is left once the agent no longer lists the pod, and after the next pass.
    unlinkSync(join(a.podsDir, fileOf(CRASHER)));
    const removedAt = Date.now();
    const gone = await poll(removedAt + 30_000, async () => ((await podNamed(CRASHER.name)) ? undefined : true));
    fact(`${CRASHER.name} manifest removed at ${at(removedAt)}; ${gone ? `no longer listed at ${since()}` : 'still listed 30 s later'}`);
    // Once its sandbox is stopped: what stays for the collector. Not the dead containers: the
    // kubelet's deletor removes them at once or leaves them to the pass, by the order of its
    // relist and the pod's termination (README, L1).
    const before =
      (await poll(Date.now() + 10_000, async () => {
        const s = await snap();
        return s.live === 0 && s.readySandboxes === 0 ? s : undefined;
      })) ?? (await snap());
    const early = passes.filter((t) => t > first);
    fact(`${CRASHER.name} at ${since()}${early.length ? ` (a pass came at ${at(early[0])}: too late a look)` : ''}: ${before.text}`);
    result.checkpoints.set(
      'container gc: removed pod before the next pass',
      early.length
        ? 'looked after a pass'
        : `live containers: ${before.live}; ${before.sandboxText}; log directory: ${before.logDir ? 'there' : 'gone'}`,
    );
    const next = await poll(first + GC_PERIOD_MS + 30_000, () => passes.find((t) => t > first));
    fact(next ? `next GC pass seen at ${at(next)}, ${((next - first) / 1000).toFixed(0)} s after the first` : 'no next GC pass seen');
    result.checkpoints.set(
      'container gc: passes',
      next ? `a minute apart: ${Math.abs(next - first - GC_PERIOD_MS) <= 5000 ? 'yes' : 'no'}` : 'no second pass',
    );
    const after =
      (await poll(Date.now() + 5_000, async () => {
        const s = await snap();
        return s.empty ? s : undefined;
      })) ?? (await snap());
    fact(`${CRASHER.name} at ${since()}: ${after.text}`);
    result.checkpoints.set('container gc: removed pod after the next pass', after.text);
  } catch (err) {
    result.error = err instanceof Error ? err.message : String(err);
  } finally {
    sampling = false;
    await sampler;
    cri?.close();
    const t = Date.now();
    if (started) result.logTail = tail(started.log, 200);
    await started?.stop();
    await containerdDown(ctdDir, endpoint, log);
    await unmountUnder(base);
    if (process.env.KNODE_DIFF_KEEP === '1') log(`${agent}: kept ${base} (KNODE_DIFF_KEEP=1)`);
    else rmSync(base, { recursive: true, force: true });
    log(`${agent}: cleaned up in ${Date.now() - t} ms`);
  }
  return result;
}
