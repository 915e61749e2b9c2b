import { statSync } from 'node:fs';
import { posix } from 'node:path';
import { PassThrough, Writable, type Readable } from 'node:stream';
import type { CriClient } from '../cri/client.js';
import { runRemoteCommand, type RemoteOutcome } from '../cri/streaming/remote-command.js';
import type { Container } from '../cri/types.js';
import { archivePrefix, parseFileSpec, type FileSpec } from './copy-paths.js';
import { ArchiveEnd, resumableTar } from './copy-retries.js';
import { entryBaseName, packTree, untarAll } from './copy-tar.js';
import { KubectlError } from '../util/user-error.js';

/** How long kubectl waits for `test -d` on the destination before taking it for a file. */
const DESTINATION_CHECK_MS = 3_000;

/** What a copy tells and how it ends: stdout and stderr lines, and the exit with a remote command's code. */
export interface CopyOutput {
  log: (line: string) => void;
  warn: (line: string) => void;
  exit: (code: number) => never;
}

/** The container a copy runs tar in, and how it speaks. */
export interface CopyTarget extends CopyOutput {
  client: CriClient;
  container: Container;
}

/** `cp`'s two arguments read and checked as kubectl checks them: which side is the pod's, with kubectl's errors. */
export function copySides(argv: string[]): { source: FileSpec; destination: FileSpec; remote: FileSpec & { pod: string } } {
  if (argv.length !== 2) throw new KubectlError('error: source and destination are required');
  const [source, destination] = argv.map(parseFileSpec);
  if (source.pod !== undefined && destination.pod !== undefined)
    throw new KubectlError('error: one of src or dest must be a local file specification');
  if (source.file === '' || destination.file === '') throw new KubectlError('error: filepath can not be empty');
  if (source.pod === undefined && destination.pod === undefined)
    throw new KubectlError('error: one of src or dest must be a remote file specification');
  const remote = (source.pod !== undefined ? source : destination) as FileSpec & { pod: string };
  if (remote === destination) {
    try {
      statSync(source.file);
    } catch {
      throw new KubectlError(`error: ${source.file} doesn't exist in local filesystem`);
    }
  }
  return { source, destination, remote };
}

/**
 * kubectl's copyFromPod: `tar cf - SRC` in the container, its archive written under DEST here; tar's stderr goes
 * to stdout, as kubectl sends it. With --retries, an archive cut short is asked for again from where it stopped.
 */
export async function copyFromPod(
  target: CopyTarget,
  paths: { source: string; destination: string; symlinkHint: string },
  options: { preserve: boolean; retries: number },
): Promise<void> {
  const { source, destination } = paths;
  const archive = new PassThrough();
  const abort = new AbortController();
  let failure: unknown;
  const untar = untarAll(archive, {
    prefix: archivePrefix(source),
    destination,
    preserve: options.preserve,
    warn: target.warn,
    symlinkHint: paths.symlinkHint,
  }).catch((err: unknown) => {
    failure = err;
    abort.abort();
  });
  const end = new ArchiveEnd();
  let read = 0;
  const maxTries = options.retries;
  for (let retries = 0; ;) {
    const command = maxTries === 0 ? ['tar', 'cf', '-', source] : resumableTar(source, read + (retries > 0 ? 1 : 0));
    const counted = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        read += chunk.length;
        end.push(chunk);
        archive.write(chunk, done);
      },
    });
    const outcome = await execIn(target, command, { stdout: counted, stderr: process.stdout }, abort.signal);
    // What this run sent is all counted (writes wait behind the unpacking) before the next asks for the rest.
    await new Promise<void>((resolve) => counted.end(resolve));
    if (failure) throw failure;
    endWith(target, outcome);
    if (maxTries === 0 || end.reached) break;
    if (maxTries > 0 && retries >= maxTries) {
      target.log(`Dropping out copy after ${retries} retries`);
      break;
    }
    retries++;
    target.log(`Resuming copy at ${read} bytes, retry ${retries}/${maxTries}`);
  }
  archive.end();
  await untar;
  if (failure) throw failure;
}

/** kubectl's copyToPod: into DEST/basename(SRC) when DEST is a directory in the container, else as DEST; the archive unpacked by `tar -xmf -`. */
export async function copyToPod(target: CopyTarget, source: string, destination: string, noPreserve: boolean): Promise<void> {
  let into = destination;
  if (await isDirectoryThere(target, destination)) into = posix.join(destination, entryBaseName(source));
  const archive = packTree(source, entryBaseName(into));
  const abort = new AbortController();
  let failure: unknown;
  archive.on('error', (err: Error) => {
    failure = err instanceof KubectlError ? err : new KubectlError(`error: ${err.message}`);
    abort.abort();
  });
  const command = noPreserve ? ['tar', '--no-same-permissions', '--no-same-owner', '-xmf', '-'] : ['tar', '-xmf', '-'];
  command.push('-C', posix.dirname(posix.normalize(into)));
  const outcome = await execIn(target, command, { stdin: archive, stdout: process.stdout, stderr: process.stderr }, abort.signal);
  if (failure) throw failure;
  endWith(target, outcome);
}

/** kubectl's checkDestinationIsDir: `test -d DEST` in the container, its output dropped, given 3 s. */
async function isDirectoryThere(target: CopyTarget, path: string): Promise<boolean> {
  const drop = () => new Writable({ write: (_chunk, _encoding, done) => done() });
  const signal = AbortSignal.timeout(DESTINATION_CHECK_MS);
  const outcome = await execIn(target, ['test', '-d', path], { stdout: drop(), stderr: drop() }, signal).catch(() => undefined);
  return !signal.aborted && outcome !== undefined && 'exitCode' in outcome && outcome.exitCode === 0;
}

async function execIn(
  target: CopyTarget,
  cmd: string[],
  io: { stdin?: Readable; stdout: Writable; stderr: Writable },
  signal: AbortSignal,
): Promise<RemoteOutcome> {
  const url = await target.client
    .exec({ containerId: target.container.id, cmd, stdin: io.stdin !== undefined, stdout: true, stderr: true, tty: false })
    .catch((err: Error) => {
      throw new KubectlError(`error: unable to upgrade connection: ${err.message}`);
    });
  return runRemoteCommand(url, { ...io, tty: false }, signal);
}

/** A failed remote command ends cp as it ends kubectl: its exit code, after `command terminated with exit code N`. */
function endWith(target: CopyOutput, outcome: RemoteOutcome): void {
  if ('error' in outcome) throw new KubectlError(`error: ${outcome.error}`);
  if (outcome.exitCode !== 0) {
    target.warn(`command terminated with exit code ${outcome.exitCode}`);
    target.exit(outcome.exitCode);
  }
}
