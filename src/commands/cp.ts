import { Args, Flags } from '@oclif/core';
import { statSync } from 'node:fs';
import { posix } from 'node:path';
import { PassThrough, Writable, type Readable } from 'node:stream';
import { parseFileSpec, archivePrefix, type FileSpec } from '../cli/copy-paths.js';
import { ArchiveEnd, resumableTar } from '../cli/copy-retries.js';
import { entryBaseName, packTree, untarAll } from '../cli/copy-tar.js';
import { KubectlError, pickContainer } from '../cli/pod-target.js';
import { namespaceFlag, StreamingCommand } from '../cli/streaming-command.js';
import type { CriClient } from '../cri/client.js';
import type { Container } from '../cri/types.js';
import { runRemoteCommand, type RemoteOutcome } from '../cri/streaming/remote-command.js';

/** How long kubectl waits for `test -d` on the destination before taking it for a file. */
const DESTINATION_CHECK_MS = 3_000;

export default class Cp extends StreamingCommand {
  static override summary = 'Copy files and directories to and from containers, as kubectl cp does.';
  static override description = `Runs tar in the container through exec, so the image needs a tar binary. Entries of the pod's archive that would land outside the local destination, and symlinks, are skipped with a warning. See docs/cli.md.`;
  static override examples = [
    '<%= config.bin %> cp /tmp/foo_dir web:/tmp/bar_dir',
    '<%= config.bin %> cp /tmp/foo web:/tmp/bar -c app',
    '<%= config.bin %> cp /tmp/foo other/web:/tmp/bar',
    '<%= config.bin %> cp other/web:/tmp/foo /tmp/bar',
  ];
  static override strict = false;
  static override args = {
    source: Args.string({ description: 'LOCAL_PATH or [NAMESPACE/]POD:PATH', ignoreStdin: true }),
    destination: Args.string({ description: 'LOCAL_PATH or [NAMESPACE/]POD:PATH', ignoreStdin: true }),
  };
  static override flags = {
    container: Flags.string({
      char: 'c',
      description: 'Container name (default: the kubectl.kubernetes.io/default-container annotation, else the first)',
    }),
    'no-preserve': Flags.boolean({
      description: "The copied file/directory's ownership and permissions will not be preserved",
      default: false,
    }),
    retries: Flags.integer({
      description:
        'Set number of retries to complete a copy operation from a container. Specify 0 to disable or any negative value for infinite retrying. The default is 0 (no retry).',
      default: 0,
    }),
    namespace: namespaceFlag,
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Cp);
    if (argv.length !== 2) throw new KubectlError('error: source and destination are required');
    const [source, destination] = (argv as string[]).map(parseFileSpec);
    if (source.pod !== undefined && destination.pod !== undefined)
      throw new KubectlError('error: one of src or dest must be a local file specification');
    if (source.file === '' || destination.file === '') throw new KubectlError('error: filepath can not be empty');
    if (source.pod === undefined && destination.pod === undefined)
      throw new KubectlError('error: one of src or dest must be a remote file specification');
    const remote = (source.pod !== undefined ? source : destination) as Required<Pick<FileSpec, 'pod'>> & FileSpec;
    if (remote === destination) {
      try {
        statSync(source.file);
      } catch {
        throw new KubectlError(`error: ${source.file} doesn't exist in local filesystem`);
      }
    }
    const podArg = remote.namespace ? `${remote.namespace}/${remote.pod}` : remote.pod;
    await this.withPod(flags, podArg, async (client, found) => {
      const container = pickContainer(found, flags.container, (m) => this.logToStderr(m));
      if (remote === source)
        await this.copyFromPod(client, container, found, { source: source.file, destination: destination.file }, flags);
      else await this.copyToPod(client, container, source.file, destination.file, flags['no-preserve']);
    });
  }

  /**
   * kubectl's copyFromPod: `tar cf - SRC` in the container, its archive written under DEST here; tar's stderr goes
   * to stdout, as kubectl sends it. With --retries, an archive cut short is asked for again from where it stopped.
   */
  private async copyFromPod(
    client: CriClient,
    container: Container,
    pod: { namespace: string; name: string },
    paths: { source: string; destination: string },
    flags: { 'no-preserve': boolean; retries: number },
  ): Promise<void> {
    const { source, destination } = paths;
    const archive = new PassThrough();
    const abort = new AbortController();
    let failure: unknown;
    const untar = untarAll(archive, {
      prefix: archivePrefix(source),
      destination,
      preserve: !flags['no-preserve'],
      warn: (m) => this.logToStderr(m),
      symlinkHint: `${this.config.bin} exec -n ${JSON.stringify(pod.namespace)} ${JSON.stringify(pod.name)} -- tar cf - ${JSON.stringify(source)} | tar xf -`,
    }).catch((err: unknown) => {
      failure = err;
      abort.abort();
    });
    const end = new ArchiveEnd();
    let read = 0;
    const maxTries = flags.retries;
    for (let retries = 0; ;) {
      const command = maxTries === 0 ? ['tar', 'cf', '-', source] : resumableTar(source, read + (retries > 0 ? 1 : 0));
      const counted = new Writable({
        write: (chunk: Buffer, _encoding, done) => {
          read += chunk.length;
          end.push(chunk);
          archive.write(chunk, done);
        },
      });
      const outcome = await this.execIn(client, container, command, { stdout: counted, stderr: process.stdout }, abort.signal);
      // What this run sent is all counted (writes wait behind the unpacking) before the next asks for the rest.
      await new Promise<void>((resolve) => counted.end(resolve));
      if (failure) throw failure;
      this.endWith(outcome);
      if (maxTries === 0 || end.reached) break;
      if (maxTries > 0 && retries >= maxTries) {
        this.log(`Dropping out copy after ${retries} retries`);
        break;
      }
      retries++;
      this.log(`Resuming copy at ${read} bytes, retry ${retries}/${maxTries}`);
    }
    archive.end();
    await untar;
    if (failure) throw failure;
  }

  /** kubectl's copyToPod: into DEST/basename(SRC) when DEST is a directory in the container, else as DEST; the archive unpacked by `tar -xmf -`. */
  private async copyToPod(
    client: CriClient,
    container: Container,
    source: string,
    destination: string,
    noPreserve: boolean,
  ): Promise<void> {
    let target = destination;
    if (await this.isDirectoryThere(client, container, destination)) target = posix.join(destination, entryBaseName(source));
    const archive = packTree(source, entryBaseName(target));
    const abort = new AbortController();
    let failure: unknown;
    archive.on('error', (err: Error) => {
      failure = err instanceof KubectlError ? err : new KubectlError(`error: ${err.message}`);
      abort.abort();
    });
    const command = noPreserve ? ['tar', '--no-same-permissions', '--no-same-owner', '-xmf', '-'] : ['tar', '-xmf', '-'];
    command.push('-C', posix.dirname(posix.normalize(target)));
    const outcome = await this.execIn(
      client,
      container,
      command,
      { stdin: archive, stdout: process.stdout, stderr: process.stderr },
      abort.signal,
    );
    if (failure) throw failure;
    this.endWith(outcome);
  }

  /** kubectl's checkDestinationIsDir: `test -d DEST` in the container, its output dropped, given 3 s. */
  private async isDirectoryThere(client: CriClient, container: Container, path: string): Promise<boolean> {
    const drop = () => new Writable({ write: (_chunk, _encoding, done) => done() });
    const signal = AbortSignal.timeout(DESTINATION_CHECK_MS);
    const outcome = await this.execIn(client, container, ['test', '-d', path], { stdout: drop(), stderr: drop() }, signal).catch(
      () => undefined,
    );
    return !signal.aborted && outcome !== undefined && 'exitCode' in outcome && outcome.exitCode === 0;
  }

  private async execIn(
    client: CriClient,
    container: Container,
    cmd: string[],
    io: { stdin?: Readable; stdout: Writable; stderr: Writable },
    signal: AbortSignal,
  ): Promise<RemoteOutcome> {
    const url = await client
      .exec({ containerId: container.id, cmd, stdin: io.stdin !== undefined, stdout: true, stderr: true, tty: false })
      .catch((err: Error) => {
        throw new KubectlError(`error: unable to upgrade connection: ${err.message}`);
      });
    return runRemoteCommand(url, { ...io, tty: false }, signal);
  }

  /** A failed remote command ends cp as it ends kubectl: its exit code, after `command terminated with exit code N`. */
  private endWith(outcome: RemoteOutcome): void {
    if ('error' in outcome) throw new KubectlError(`error: ${outcome.error}`);
    if (outcome.exitCode !== 0) {
      this.logToStderr(`command terminated with exit code ${outcome.exitCode}`);
      this.exit(outcome.exitCode);
    }
  }
}
