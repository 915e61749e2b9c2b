// What a container's process is started from: its argv, wrapper, environment, log and set-up.

/** A container's process as ContainerProcess.start takes it. */
export interface ProcessSpec {
  argv: string[];
  /**
   * A command that runs argv in a PID namespace (unshare, nsenter). The
   * program is then its child, and the stop signal goes to the program alone.
   */
  wrapper?: string[];
  /**
   * Files opened for the wrapper, at fds 4, 5 ... (a namespace to join).
   * They are closed in knode once the process has them.
   */
  files?: string[];
  /**
   * What goes before the wrapper when this process (or one of its spares)
   * forks it rather than the spawner, which ends what it started when it
   * ends: it makes the wrapper die with its parent, as the program under
   * it does.
   */
  orphanGuard?: string[];
  /** Finds the program under its wrapper (default: the wrapper's first child). */
  programOf?: (wrapperPid: number) => number | undefined;
  /**
   * When fd 3 is open, the wrapper reads a go-ahead line from it, and once
   * the container is set up (its mounts made) writes there the pid its
   * program will have: a start through the spawner gives it a socket there
   * and waits for that line rather than looking for the program.
   */
  reportsSetUp?: boolean;
  /**
   * Host work the wrapper's set-up needs done before it goes on (a mount
   * table to write): with reportsSetUp, done while the spawner starts the
   * wrapper, which waits for its go-ahead on fd 3; before the start
   * otherwise. hasProgram is asked once it is done.
   */
  prepare?: () => Promise<void>;
  /**
   * What the set-up also waits for, a run the spawner was given under `key`
   * (the mount of the container's root file system): the spawner holds the
   * go-ahead until it has ended well, and the start fails with `done`'s
   * error when it fails. Awaited before the start without a spawner.
   */
  awaits?: { key: string; done: Promise<void> };
  /** How long the program may take to appear under its wrapper (default 2 s). */
  programTimeoutMs?: number;
  /**
   * Where argv[0] is checked before the start (a program that is missing is
   * a start error, not an exit code): the host (default), or a function that
   * says whether it exists, e.g. inside an image's root file system.
   */
  hasProgram?: (command: string) => boolean;
  env: Record<string, string>;
  cwd: string;
  /**
   * Made by CreateContainer (ContainerProcess.hold): the wrapper sets the
   * container up and waits; the program is executed at release().
   */
  held?: boolean;
  /** Keep stdin open (a pipe nobody writes) instead of /dev/null. */
  stdin: boolean;
  logPath: string;
  /** Told when the log file starts refusing output (a full disk); the output is dropped until it takes it again. */
  onLogError?: (err: Error) => void;
  /**
   * Called with the pid before the container's program runs (it waits in a
   * shell for the go-ahead), so limits apply to every process it will start.
   */
  beforeExec?: (pid: number) => void;
}
