import { mkdirSync, rmSync } from 'node:fs';
import { rootPaths } from '../util/paths.js';
import { claimPidFile, isRuntimeServe } from '../util/pid-file.js';
import { socketAnswers } from '../util/socket.js';
import { EmbeddedRuntime } from './runtime.js';
import type { SandboxSetting } from './sandbox/image-sandboxes.js';
import { serveRuntime } from './server.js';

export interface ServeOptions {
  rootDir: string;
  /** Socket path; defaults to `<root-dir>/run/runtime.sock`. */
  socketPath?: string;
  /** Seconds a running container gets to stop when the runtime shuts down. */
  shutdownGraceSeconds?: number;
  /** Bubblewrap sandboxes for containers of real images: `auto` (default) or `off`. */
  sandbox?: SandboxSetting;
  /** The CNI network configuration pods off the host's network get; `<root-dir>/cni/net.d` by default. */
  cniConfDir?: string;
  /** Where CNI plugins are looked for. */
  cniBinDirs?: string[];
  log: (message: string) => void;
}

export interface ServingRuntime {
  socketPath: string;
  runtime: EmbeddedRuntime;
  /** Stops the server, then every container, and removes the socket and pid file. */
  stop(): Promise<void>;
}

/**
 * Starts the embedded runtime in this process. Refuses to start a second
 * runtime on a socket that already answers.
 */
export async function startEmbeddedRuntime(options: ServeOptions): Promise<ServingRuntime> {
  const paths = rootPaths(options.rootDir);
  const socketPath = options.socketPath ?? paths.runtimeSocket;
  mkdirSync(paths.run, { recursive: true, mode: 0o700 });
  mkdirSync(paths.runtimeDir, { recursive: true });
  // The pid file is the lock: two runtimes started at once (a `knode run` and a `knode status`)
  // would otherwise both bind the socket, and the pods of the one that lost it would be lost to view.
  const pidFile = socketPath === paths.runtimeSocket ? paths.runtimePidFile : `${socketPath}.pid`;
  const claim = claimPidFile(pidFile, isRuntimeServe);
  if (!claim.held) {
    throw new Error(`a runtime already serves ${socketPath} (pid ${claim.by}); stop it first (knode runtime stop)`);
  }
  if (await socketAnswers(socketPath)) {
    rmSync(pidFile, { force: true });
    throw new Error(`a runtime already serves ${socketPath}; stop it first (knode runtime stop)`);
  }
  let runtime: EmbeddedRuntime;
  let served: Awaited<ReturnType<typeof serveRuntime>>;
  try {
    runtime = await EmbeddedRuntime.start({
      dir: paths.runtimeDir,
      warn: options.log,
      registryConfig: paths.registryConfig,
      sandbox: options.sandbox,
      cniConfDir: options.cniConfDir ?? paths.cniConfDir,
      cniBinDirs: options.cniBinDirs,
    });
    served = await serveRuntime(runtime, socketPath, options.log);
  } catch (err) {
    rmSync(pidFile, { force: true });
    throw err;
  }
  const hosted = `host processes, ${runtime.pidNamespaces.available ? 'each in its PID namespace' : 'without isolation'}`;
  options.log(
    `embedded runtime serving unix://${socketPath} (pid ${process.pid}); containers ` +
      (runtime.imageSandboxes.enabled
        ? `of real images run in ${runtime.imageSandboxes.describe()}; others as ${hosted}`
        : `run as ${hosted} (${runtime.imageSandboxes.describe()})`),
  );
  options.log(
    runtime.images.kind === 'registry'
      ? `images: pulled from registries as ${paths.registryConfig} says`
      : `images: records (no ${paths.registryConfig}: a pull records the name and fetches nothing)`,
  );
  options.log(`network: ${runtime.networkCondition().message}`);
  let stopping: Promise<void> | undefined;
  return {
    socketPath,
    runtime,
    stop: () =>
      (stopping ??= (async () => {
        // Once the server is closed, nothing else keeps the process alive while it waits for its containers to
        // exit: their exits come over the spawner's channel, which is unref'd. Without this, node exited (13,
        // an unsettled await) mid-shutdown, before the mounts were undone and the pid file removed.
        const alive = setInterval(() => {}, 1_000);
        try {
          await served.close();
          await runtime.shutdown(options.shutdownGraceSeconds ?? 10);
          rmSync(socketPath, { force: true });
          rmSync(pidFile, { force: true });
        } finally {
          clearInterval(alive);
        }
      })()),
  };
}
