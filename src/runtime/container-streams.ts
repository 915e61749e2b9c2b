import { closeSync, fstatSync, openSync, readSync, statSync, watch, type FSWatcher } from 'node:fs';
import { whichSystem } from './executables.js';
import type { ContainerService } from './containers.js';
import { invalid, precondition } from './errors.js';
import { lookup } from './ids.js';
import { podNetns } from './records.js';
import type { RuntimeState } from './state.js';
import { runAttached, type StreamIo } from './streaming/attached-process.js';
import type { CommandOutcome, StreamOptions } from './streaming/remote-command.js';
import { StreamingServer } from './streaming/server.js';

interface StreamFlags {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/**
 * Exec, Attach and PortForward of the embedded runtime: each call checks its
 * request and answers with a URL of the streaming server, where the client's
 * connection runs the command, attaches to the container or forwards ports.
 * An attach reads the container's output from its CRI log as it is written,
 * and writes to its stdin when the container was created with one.
 */
export class ContainerStreams {
  readonly server: StreamingServer;
  private readonly nsenter = whichSystem('nsenter');

  constructor(
    private readonly state: RuntimeState,
    private readonly containers: ContainerService,
    log: (message: string) => void,
  ) {
    this.server = new StreamingServer(
      {
        exec: (id, cmd, io, abort) => this.exec(id, cmd, io, abort),
        attach: (id, io, abort) => this.attach(id, io, abort),
        portForwardTarget: (id) => {
          const sandbox = this.state.sandboxes.get(id);
          const describe = sandbox ? `pod sandbox ${id} (${sandbox.metadata.namespace}/${sandbox.metadata.name})` : `pod sandbox ${id}`;
          // A pod on a pod network has its own loopback: the dial is made inside its namespace.
          const path = sandbox && podNetns(sandbox);
          return { host: '127.0.0.1', describe, netns: path ? { path, nsenter: this.nsenter ?? 'nsenter' } : undefined };
        },
      },
      log,
    );
  }

  execUrl(containerId: string, cmd: string[], flags: StreamFlags): string {
    const c = lookup(this.state.containers, containerId, 'container');
    if (cmd.length === 0) throw invalid('exec command is empty');
    const options = checkFlags(flags);
    if (c.state !== 'CONTAINER_RUNNING') throw precondition(`container ${c.id} is not running`);
    return this.server.url({ kind: 'exec', containerId: c.id, cmd, options });
  }

  attachUrl(containerId: string, flags: StreamFlags): string {
    const c = lookup(this.state.containers, containerId, 'container');
    const options = checkFlags(flags);
    if (c.state !== 'CONTAINER_RUNNING') throw precondition(`container ${c.id} is not running`);
    return this.server.url({ kind: 'attach', containerId: c.id, options });
  }

  portForwardUrl(podSandboxId: string): string {
    const sandbox = lookup(this.state.sandboxes, podSandboxId, 'pod sandbox');
    if (sandbox.state !== 'SANDBOX_READY') throw precondition(`pod sandbox ${sandbox.id} is not ready`);
    return this.server.url({ kind: 'portforward', podSandboxId: sandbox.id });
  }

  private async exec(id: string, cmd: string[], io: StreamIo, abort: AbortSignal): Promise<CommandOutcome> {
    const command = await this.containers.execCommand(id, cmd);
    return { exitCode: await runAttached(command, io, abort) };
  }

  /**
   * Streams the container's output from now on (as the runtime reads it from
   * the program; from its CRI log when the spawner reads it), and what the
   * client types to its stdin. Ends when the container exits, when the client goes, or
   * when the client closes its stdin: the container's stdin is then closed
   * too if it is a stdinOnce container (which goes on until it exits),
   * and left open otherwise, as containerd does.
   */
  private attach(id: string, io: StreamIo, abort: AbortSignal): Promise<CommandOutcome> {
    const { container, stdin, output, exited } = this.containers.attachable(id);
    const write = (stream: string, data: string | Buffer) => (stream === 'stderr' && !io.tty ? io.stderr : io.stdout)?.write(data);
    const follower = output ? { read: () => {}, close: output.listen(write) } : new LogFollower(container.logPath, write);
    return new Promise((resolve) => {
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        follower.close();
        if (stdin) io.stdin?.unpipe(stdin);
        resolve({ exitCode: 0 });
      };
      void exited.then(() => {
        follower.read();
        end();
      });
      abort.addEventListener('abort', end, { once: true });
      if (!io.stdin) return;
      if (stdin) io.stdin.pipe(stdin, { end: false });
      else io.stdin.resume();
      io.stdin.once('end', () => {
        if (container.stdinOnce && !io.tty) stdin?.end();
        else end();
      });
    });
  }
}

function checkFlags(flags: StreamFlags): StreamOptions {
  if (!flags.stdin && !flags.stdout && !flags.stderr) throw invalid('one of stdin, stdout, or stderr must be set');
  if (flags.tty && flags.stderr) throw invalid('tty and stderr cannot both be true');
  return { stdin: flags.stdin, stdout: flags.stdout, stderr: flags.stderr, tty: flags.tty };
}

/**
 * Follows a CRI log file from its current end: each entry's text (with its
 * newline when the entry is a full line) is passed on as it is written. It
 * holds the file open: after a rotation (a new file at the path, once the log
 * is reopened) it reads the old file to its end, then the new one from its start.
 */
class LogFollower {
  private fd: number | undefined;
  private inode = 0;
  private offset = 0;
  private rest = '';
  private readonly watcher: FSWatcher | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly path: string,
    private readonly onOutput: (stream: string, data: string) => void,
  ) {
    this.openAt(true);
    try {
      this.watcher = watch(path, () => this.read());
    } catch {
      this.watcher = undefined;
    }
    // inotify misses nothing on a local file, but a rotated log is a new file: look again now and then.
    this.timer = setInterval(() => this.read(), 500);
  }

  read(): void {
    if (this.fd === undefined) {
      this.openAt(false);
      if (this.fd === undefined) return;
    }
    this.drain();
    const atPath = inodeOf(this.path);
    if (atPath !== undefined && atPath !== this.inode) {
      this.drain();
      closeSync(this.fd);
      this.openAt(false);
      if (this.fd !== undefined) this.drain();
    }
  }

  close(): void {
    this.watcher?.close();
    clearInterval(this.timer);
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** Opens the file at the path, from its end (the attach's start) or its start (a rotation's new file). */
  private openAt(fromEnd: boolean): void {
    this.fd = undefined;
    try {
      this.fd = openSync(this.path, 'r');
    } catch {
      return;
    }
    const info = fstatSync(this.fd);
    this.inode = info.ino;
    this.offset = fromEnd ? info.size : 0;
  }

  /** Reads the open file to its end. */
  private drain(): void {
    const size = fstatSync(this.fd!).size;
    if (size < this.offset) this.offset = 0; // truncated in place
    if (size === this.offset) return;
    const buffer = Buffer.alloc(size - this.offset);
    const n = readSync(this.fd!, buffer, 0, buffer.length, this.offset);
    this.offset += n;
    this.take(buffer.subarray(0, n).toString('utf8'));
  }

  private take(text: string): void {
    const lines = (this.rest + text).split('\n');
    this.rest = lines.pop() ?? '';
    for (const line of lines) {
      const match = /^\S+ (stdout|stderr) ([FP]) (.*)$/s.exec(line);
      if (match) this.onOutput(match[1], match[2] === 'F' ? `${match[3]}\n` : match[3]);
    }
  }
}

function inodeOf(path: string): number | undefined {
  try {
    return statSync(path).ino;
  } catch {
    return undefined;
  }
}
