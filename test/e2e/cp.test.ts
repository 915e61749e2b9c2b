// knode cp as a user meets it: a `knode run` child process with a static pod on
// the embedded runtime (host processes, so the container's files are the
// host's and can be checked here), trees copied both ways through tar over
// exec, kubectl's errors, and a container whose `tar` answers with a hostile
// archive (entries climbing out, absolute names, symlinks out).
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knode, startKnodeRun, stopKnodeRun, type RunningNode } from '../helpers/cli.js';
import { eventually } from '../helpers/runtimes.js';
import { makeTar } from '../helpers/tar.js';

const root = mkdtempSync(join(tmpdir(), 'knode-cp-'));
const pods = join(root, 'manifests');
const box = join(root, 'box');
const fakeBin = join(root, 'fakebin');
const evil = join(root, 'evil.tar');
const cuts = join(root, 'cuts');
const at = ['--root-dir', root];
let node: RunningNode;

const mode = (path: string) => lstatSync(path).mode & 0o777;

/** A tree with modes worth keeping: an executable, a private file, a group-only directory, an empty one, a symlink. */
function makeTree(dir: string): void {
  mkdirSync(join(dir, 'sub', 'deeper'), { recursive: true });
  mkdirSync(join(dir, 'empty'));
  writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\necho run\n');
  chmodSync(join(dir, 'run.sh'), 0o755);
  writeFileSync(join(dir, 'sub', 'secret'), 'secret\n');
  chmodSync(join(dir, 'sub', 'secret'), 0o600);
  writeFileSync(join(dir, 'sub', 'deeper', 'big'), 'x'.repeat(300_000));
  chmodSync(join(dir, 'sub'), 0o750);
  symlinkSync('run.sh', join(dir, 'link'));
}

beforeAll(async () => {
  mkdirSync(pods, { recursive: true });
  mkdirSync(box);
  mkdirSync(fakeBin);
  // The "hostile" container's tar: `tar cf - …` answers with a crafted archive, anything else is the real tar.
  // With a count in `cuts`, that many `tar cf` give their archive cut after 100000 bytes (a connection broken mid-copy).
  writeFileSync(
    join(fakeBin, 'tar'),
    `#!/bin/sh
if [ "$1" = cf ] && [ -e '${evil}' ]; then exec cat '${evil}'; fi
if [ "$1" = cf ] && [ -e '${cuts}' ]; then
  n=$(cat '${cuts}'); if [ "$n" -le 1 ]; then rm -f '${cuts}'; else echo $((n - 1)) > '${cuts}'; fi
  /usr/bin/tar "$@" | head -c 100000; exit 0
fi
exec /usr/bin/tar "$@"
`,
    { mode: 0o755 },
  );
  writeFileSync(
    join(pods, 'files.yaml'),
    `apiVersion: v1
kind: Pod
metadata:
  name: files
spec:
  containers:
    - name: main
      image: busybox:1.36
      command: ["sleep", "3600"]
    - name: hostile
      image: busybox:1.36
      command: ["sleep", "3600"]
      env:
        - name: PATH
          value: "${fakeBin}:/usr/bin:/bin"
`,
  );
  node = startKnodeRun(pods, root, ['--output', 'plain']);
  await eventually(
    () => /PodRunning +default\/files-e2e/.test(node.output()),
    () => `the pod to run (node output: ${node.output()})`,
    60_000,
  );
}, 90_000);

afterAll(() => stopKnodeRun(node, at), 60_000);

describe('knode cp', () => {
  it('copies a directory tree into the pod and back, modes kept, symlinks skipped on the way back', async () => {
    const local = join(root, 'tree');
    makeTree(local);
    const there = join(box, 'copied');
    const up = await knode(['cp', local, `files-e2e:${there}`, '-c', 'main', ...at]);
    expect(up).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(join(there, 'run.sh'), 'utf8')).toBe('#!/bin/sh\necho run\n');
    expect(mode(join(there, 'run.sh'))).toBe(0o755);
    expect(mode(join(there, 'sub', 'secret'))).toBe(0o600);
    expect(mode(join(there, 'sub'))).toBe(0o750);
    expect(readFileSync(join(there, 'sub', 'deeper', 'big'), 'utf8')).toHaveLength(300_000);
    expect(lstatSync(join(there, 'empty')).isDirectory()).toBe(true);
    expect(readlinkSync(join(there, 'link'))).toBe('run.sh');

    // Into a directory that exists: the source goes in under its own name, as kubectl does.
    const again = await knode(['cp', local, `default/files-e2e:${box}`, '-c', 'main', ...at]);
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(join(box, 'tree', 'sub', 'secret'), 'utf8')).toBe('secret\n');

    const back = join(root, 'back');
    const down = await knode(['cp', `files-e2e:${there}`, back, '-c', 'main', ...at]);
    expect(down.code, down.stderr).toBe(0);
    expect(down.stdout).toBe("tar: Removing leading `/' from member names\n");
    expect(down.stderr).toBe(
      `warning: skipping symlink: "${back}/link" -> "run.sh" (consider using "knode exec -n "default" "files-e2e" -- tar cf - "${there}" | tar xf -")\n`,
    );
    expect(readdirSync(back).sort()).toEqual(['empty', 'run.sh', 'sub']);
    expect(mode(join(back, 'run.sh'))).toBe(0o755);
    expect(mode(join(back, 'sub', 'secret'))).toBe(0o600);
    expect(mode(join(back, 'sub'))).toBe(0o750);
    expect(readFileSync(join(back, 'sub', 'deeper', 'big'), 'utf8')).toBe('x'.repeat(300_000));
  });

  it('copies a single file both ways; the default container is told, as kubectl tells it', async () => {
    const file = join(root, 'note.txt');
    writeFileSync(file, 'a note\n');
    const up = await knode(['cp', file, `files-e2e:${box}/note-in-pod.txt`, ...at]);
    expect(up).toEqual({ code: 0, stdout: '', stderr: 'Defaulted container "main" out of: main, hostile\n' });
    expect(readFileSync(join(box, 'note-in-pod.txt'), 'utf8')).toBe('a note\n');
    const local = join(root, 'note-back.txt');
    const down = await knode(['cp', `files-e2e:${box}/note-in-pod.txt`, local, '-c', 'main', ...at]);
    expect(down.code, down.stderr).toBe(0);
    expect(readFileSync(local, 'utf8')).toBe('a note\n');
  });

  it('--no-preserve leaves the modes to the container', async () => {
    const file = join(root, 'private.txt');
    writeFileSync(file, 'p\n');
    chmodSync(file, 0o640);
    const up = await knode(['cp', '--no-preserve', file, `files-e2e:${box}/loose.txt`, '-c', 'main', ...at]);
    expect(up.code, up.stderr).toBe(0);
    expect(mode(join(box, 'loose.txt'))).toBe(0o640 & ~0o022);
  });

  it("tells bad specs, missing files, unknown pods and containers in kubectl's words and exit codes", async () => {
    const missing = await knode(['cp', `files-e2e:${box}/nope`, join(root, 'x'), '-c', 'main', ...at]);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toContain(`${box.slice(1)}/nope: Cannot stat: No such file or directory`);
    expect(missing.stderr).toBe('command terminated with exit code 2\n');
    expect(existsSync(join(root, 'x'))).toBe(false);
    const cases: [string[], string][] = [
      [[join(root, 'none'), 'files-e2e:/tmp/x'], `error: ${join(root, 'none')} doesn't exist in local filesystem\n`],
      [['a', 'b'], 'error: one of src or dest must be a remote file specification\n'],
      [['p:/a', 'q:/b'], 'error: one of src or dest must be a local file specification\n'],
      [['files-e2e:', 'b'], 'error: filepath can not be empty\n'],
      [[':/a', 'b'], 'error: filespec must match the canonical format: [[namespace/]pod:]file/path\n'],
      [['only-one'], 'error: source and destination are required\n'],
      [['nope:/a', join(root, 'y')], 'Error from server (NotFound): pods "nope" not found\n'],
      [['files-e2e:/a', join(root, 'y'), '-c', 'zz'], 'error: container zz is not valid for pod files-e2e out of: main, hostile\n'],
    ];
    for (const [args, stderr] of cases) {
      const res = await knode(['cp', ...args, ...at]);
      expect({ args, ...res }).toEqual({ args, code: 1, stdout: '', stderr });
    }
  });

  it('refuses the entries of a hostile archive that escape the destination', async () => {
    writeFileSync(
      evil,
      makeTar([
        { path: 'data/ok.txt', content: 'fine' },
        { path: 'data/../escaped.txt', content: 'bad' },
        { path: 'data/sub/../../../../far.txt', content: 'bad' },
        { path: 'data/out', type: 'symlink', linkPath: '/etc' },
        { path: 'data/out/passwd', content: 'through the link' },
      ]),
    );
    const parent = join(root, 'landing');
    mkdirSync(parent);
    const destination = join(parent, 'dest');
    const res = await knode(['cp', 'files-e2e:/data', destination, '-c', 'hostile', ...at]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toBe(
      [
        `warning: file "${parent}/escaped.txt" is outside target destination, skipping`,
        `warning: file "${join(parent, '../../far.txt')}" is outside target destination, skipping`,
        `warning: skipping symlink: "${destination}/out" -> "/etc" (consider using "knode exec -n "default" "files-e2e" -- tar cf - "/data" | tar xf -")`,
        '',
      ].join('\n'),
    );
    expect(readdirSync(parent)).toEqual(['dest']);
    expect(existsSync(join(parent, '../../far.txt'))).toBe(false);
    expect(readFileSync(join(destination, 'ok.txt'), 'utf8')).toBe('fine');
    // The symlink was not made, so the file "through" it is a plain file under the destination.
    expect(lstatSync(join(destination, 'out')).isDirectory()).toBe(true);

    writeFileSync(
      evil,
      makeTar([
        { path: 'data/ok.txt', content: 'fine' },
        { path: '/etc/cron.d/evil', content: 'bad' },
      ]),
    );
    const absolute = await knode(['cp', 'files-e2e:/data', join(root, 'abs'), '-c', 'hostile', ...at]);
    expect(absolute).toMatchObject({ code: 1, stderr: 'error: tar contents corrupted\n' });
  });
  it('--retries asks again for an archive cut short, from where it stopped, as kubectl cp does', async () => {
    rmSync(evil, { force: true });
    const tree = join(root, 'flaky-tree');
    makeTree(tree);
    const notTar = (out: string) => out.split('\n').filter((l) => !/^(\S*\/)?tar: /.test(l));
    writeFileSync(cuts, '1');
    const back = join(root, 'flaky-back');
    const resumed = await knode(['cp', `files-e2e:${tree}`, back, '-c', 'hostile', '--retries', '3', ...at]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(notTar(resumed.stdout)).toEqual(['Resuming copy at 100000 bytes, retry 1/3', '']);
    expect(readFileSync(join(back, 'sub', 'deeper', 'big'), 'utf8')).toBe('x'.repeat(300_000));
    expect(mode(join(back, 'sub', 'secret'))).toBe(0o600);
    expect(mode(join(back, 'run.sh'))).toBe(0o755);

    // Without --retries the copy fails on the cut archive, as Go's tar reader fails it.
    writeFileSync(cuts, '1');
    const once = await knode(['cp', `files-e2e:${tree}`, join(root, 'flaky-once'), '-c', 'hostile', ...at]);
    expect(once).toMatchObject({ code: 1, stderr: expect.stringMatching(/\nerror: unexpected EOF\n$/) });

    // Cut every time: it gives up after its retries.
    writeFileSync(cuts, '10');
    const gave = await knode(['cp', `files-e2e:${tree}`, join(root, 'flaky-never'), '-c', 'hostile', '--retries', '2', ...at]);
    expect(gave).toMatchObject({ code: 1, stderr: expect.stringMatching(/\nerror: unexpected EOF\n$/) });
    expect(notTar(gave.stdout)).toEqual([
      'Resuming copy at 100000 bytes, retry 1/2',
      'Resuming copy at 100000 bytes, retry 2/2',
      'Dropping out copy after 2 retries',
      '',
    ]);
    rmSync(cuts, { force: true });
  });
});
