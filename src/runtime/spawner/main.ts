// The embedded runtime's spawner: a child of the runtime (child_process.fork)
// that starts container processes when asked over the IPC channel and
// follows them (output to the CRI log, exit reported back). A fork copies
// the forking process's page tables, so it costs this small process less
// than the runtime, and it costs the runtime's thread nothing: a burst of
// starts no longer stops every other call. It ends with the runtime.
import { spawn, type ChildProcess } from 'node:child_process';
import { followChild } from '../follow-child.js';
import { CriLogWriter } from '../log-writer.js';
import type { SpawnerReply, SpawnerRequest, StartRequest } from './protocol.js';

const logs = new Map<number, CriLogWriter>();

function send(reply: SpawnerReply): void {
  if (process.connected) process.send!(reply);
}

function start(req: StartRequest): void {
  let log: CriLogWriter;
  try {
    log = new CriLogWriter(req.logPath, undefined, (err) => send({ type: 'logError', seq: req.seq, message: err.message }));
  } catch (err) {
    send({ type: 'failed', seq: req.seq, stage: 'log', message: (err as Error).message });
    return;
  }
  let child: ChildProcess;
  try {
    child = spawn(req.file, req.args, { cwd: req.cwd, env: req.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    // Refused before any fork (a NUL in argv or env): the start fails, the spawner and its other containers go on.
    log.end();
    send({ type: 'failed', seq: req.seq, stage: 'exec', code: (err as NodeJS.ErrnoException).code, message: (err as Error).message });
    return;
  }
  if (child.pid === undefined) {
    child.once('error', (err: NodeJS.ErrnoException) => {
      log.end();
      send({ type: 'failed', seq: req.seq, stage: 'exec', code: err.code, message: err.message });
    });
    return;
  }
  logs.set(req.seq, log);
  send({ type: 'started', seq: req.seq, pid: child.pid });
  void followChild(child, log).then((exit) => {
    logs.delete(req.seq);
    send({ type: 'exited', seq: req.seq, exitCode: exit.exitCode, signal: exit.signal, finishedAt: exit.finishedAt.getTime() });
  });
}

function reopen(seq: number, ask: number): void {
  const log = logs.get(seq);
  try {
    if (!log) throw new Error('the container is not running');
    log.reopen();
    send({ type: 'reopened', ask });
  } catch (err) {
    send({ type: 'reopened', ask, error: (err as Error).message });
  }
}

process.on('message', (req: SpawnerRequest) => {
  if (req.type === 'start') start(req);
  else if (req.type === 'reopen') reopen(req.seq, req.ask);
});
// The runtime is gone: so is the reader of every container's output, as when it held the pipes itself.
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
