import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Pod } from '../../../../src/engine/api/v1.js';
import { FileSource } from '../../../../src/engine/config/file-source.js';
import type { ManifestError } from '../../../../src/engine/config/manifest.js';
import { FakeClock } from '../../../../src/util/clock.js';

// The file system is real; only fs.watch is replaced, so a test decides when
// the "file changed" notification arrives instead of the OS.
const watchers = vi.hoisted(() => [] as { path: string; notify: (event?: string, filename?: string) => void; closed: boolean }[]);
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const { EventEmitter } = await import('node:events');
  const watch = (path: string, listener: (event?: string, filename?: string) => void) => {
    if (!actual.existsSync(path)) throw Object.assign(new Error(`ENOENT: no such file or directory, watch '${path}'`), { code: 'ENOENT' });
    const entry = { path, notify: listener, closed: false };
    watchers.push(entry);
    return Object.assign(new EventEmitter(), { close: () => (entry.closed = true) });
  };
  return { ...actual, watch };
});

// open counts its calls (a manifest is read through an opened handle), so a
// test can tell a poll that read a file from one that only looked at it.
const reads = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const open = ((...args: Parameters<typeof actual.open>) => {
    reads.count++;
    return actual.open(...args);
  }) as typeof actual.open;
  return { ...actual, open };
});

const NODE = 'node1';
const PERIOD = 20_000;

function podYaml(name: string, image = 'busybox:1.36'): string {
  return `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  containers:\n  - name: main\n    image: ${image}\n`;
}

class RecordingSink {
  readonly snapshots: Pod[][] = [];
  readonly errors: ManifestError[] = [];
  snapshot(pods: Pod[]): void {
    this.snapshots.push(pods);
  }
  error(error: ManifestError): void {
    this.errors.push(error);
  }
  /** Pod names of the latest snapshot. */
  get last(): string[] {
    return (this.snapshots.at(-1) ?? []).map((p) => p.metadata.name!);
  }
}

let dir: string;
let clock: FakeClock;
let sink: RecordingSink;
const sources: FileSource[] = [];

function fileSource(path: string, watchForChanges = false): FileSource {
  const source = new FileSource(path, NODE, clock, PERIOD, sink, watchForChanges);
  sources.push(source);
  return source;
}

/** A started source over a directory whose p.yaml holds the pod web: the file, the source and that pod as first read. */
async function startedOnWeb(): Promise<{ file: string; source: FileSource; good: Pod }> {
  const file = join(dir, 'p.yaml');
  writeFileSync(file, podYaml('web'));
  const source = fileSource(dir);
  await source.start();
  return { file, source, good: sink.snapshots[0][0] };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'knode-file-source-'));
  clock = new FakeClock();
  sink = new RecordingSink();
  watchers.length = 0;
});

afterEach(() => {
  for (const s of sources.splice(0)) s.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('FileSource', () => {
  it('sends a snapshot of every manifest at start, defaulted as static pods', async () => {
    writeFileSync(
      join(dir, 'b.json'),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'from-json' },
        spec: { containers: [{ name: 'c', image: 'x:1' }] },
      }),
    );
    writeFileSync(join(dir, 'a.yaml'), `${podYaml('first')}---\n${podYaml('second')}`);

    await fileSource(dir).start();

    expect(sink.snapshots).toHaveLength(1);
    expect(sink.errors).toEqual([]);
    expect(sink.last).toEqual(['first-node1', 'second-node1', 'from-json-node1']);
    const [first] = sink.snapshots[0];
    expect(first.spec.nodeName).toBe(NODE);
    expect(first.metadata.annotations).toMatchObject({
      'kubernetes.io/config.source': 'file',
      'kubernetes.io/config.seen': new Date(clock.now()).toISOString(),
    });
    expect(first.metadata.uid).toMatch(/^[0-9a-f]{32}$/);
  });

  it('ignores hidden files, other extensions and directories', async () => {
    writeFileSync(join(dir, '.hidden.yaml'), podYaml('hidden'));
    writeFileSync(join(dir, 'notes.txt'), podYaml('txt'));
    writeFileSync(join(dir, 'pod.yaml.swp'), podYaml('swp'));
    writeFileSync(join(dir, 'noext'), podYaml('noext'));
    mkdirSync(join(dir, 'sub.yaml'));
    writeFileSync(join(dir, 'sub.yaml', 'inner.yaml'), podYaml('inner'));
    writeFileSync(join(dir, 'upper.YML'), podYaml('upper'));
    writeFileSync(join(dir, 'ok.yml'), podYaml('ok'));

    const source = fileSource(dir);
    await source.start();

    expect(sink.last).toEqual(['ok-node1', 'upper-node1']);
    // The visible files it does not read are named once each (the kubelet would read them); hidden ones are not.
    // A directory with a manifest's name is named once too, as the kubelet logs it, and not read.
    const ignored = (files: string[]) =>
      files.map((f) => ({
        source: join(dir, f),
        document: 0,
        message: expect.stringMatching(/^ignored: only \.yaml, \.yml and \.json files/),
      }));
    const skippedDir = {
      source: join(dir, 'sub.yaml'),
      document: 0,
      message: 'skipped: a directory (not read recursively, as in the kubelet), not a regular file',
    };
    expect(sink.errors).toEqual([...ignored(['noext', 'notes.txt', 'pod.yaml.swp']), skippedDir]);
    await clock.advance(PERIOD);
    await source.read();
    expect(sink.errors).toHaveLength(4);
    // Removed and written again: named again.
    rmSync(join(dir, 'noext'));
    await source.read();
    writeFileSync(join(dir, 'noext'), podYaml('noext'));
    await source.read();
    expect(sink.errors.slice(4)).toEqual(ignored(['noext']));
  });

  it('reads a single file when the path is one', async () => {
    const file = join(dir, 'notes.txt');
    writeFileSync(file, podYaml('single'));
    await fileSource(file).start();
    expect(sink.last).toEqual(['single-node1']);
  });

  it('sends an empty snapshot and one error for a missing directory, and finds it once it exists', async () => {
    const missing = join(dir, 'manifests');
    const source = fileSource(missing);
    await source.start();
    await source.read();

    expect(sink.snapshots).toEqual([[], []]);
    expect(sink.errors).toEqual([{ source: missing, document: 0, message: 'path does not exist; watching for it' }]);

    mkdirSync(missing);
    writeFileSync(join(missing, 'p.yaml'), podYaml('late'));
    await source.read();
    expect(sink.last).toEqual(['late-node1']);

    rmSync(missing, { recursive: true });
    await source.read();
    expect(sink.last).toEqual([]);
    expect(sink.errors).toHaveLength(2);
  });

  it('keeps the last good pods of a file that stops parsing, and reports the error', async () => {
    const { file, source, good } = await startedOnWeb();

    writeFileSync(file, 'apiVersion: v1\nkind: Pod\nmetadata: {name: web\n'); // caught mid-write
    await source.read();

    expect(sink.snapshots).toHaveLength(2);
    expect(sink.snapshots[1]).toEqual([good]);
    expect(sink.errors).toHaveLength(1);
    expect(sink.errors[0]).toMatchObject({ source: file, document: 0 });
    expect(sink.errors[0].message).toMatch(/^YAML: /);

    writeFileSync(file, podYaml('web', 'busybox:1.37'));
    await source.read();
    expect(sink.snapshots[2].map((p) => p.spec.containers[0].image)).toEqual(['busybox:1.37']);
  });

  it('reports a file that becomes unparseable once, however often it is read, and keeps its last good pod', async () => {
    const { file, source, good } = await startedOnWeb();

    writeFileSync(file, 'apiVersion: v1\nkind: Pod\nmetadata: {name: web\n');
    await source.read();
    await source.read();
    await source.read();

    expect(sink.errors).toHaveLength(1);
    expect(sink.snapshots.at(-1)).toEqual([good]);
  });

  it('keeps the last good pod of a document that no longer validates, and reports why', async () => {
    const { file, source, good } = await startedOnWeb();

    writeFileSync(file, 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: main\n'); // cut short
    await source.read();

    expect(sink.snapshots.at(-1)).toEqual([good]);
    expect(sink.errors).toEqual([{ source: file, document: 0, pod: 'web', field: 'spec.containers[0].image', message: 'Required value' }]);
  });

  it('applies the good documents of a file whose other document never validated', async () => {
    const file = join(dir, 'p.yaml');
    writeFileSync(file, `${podYaml('web')}---\n${podYaml('Bad')}`);
    const source = fileSource(dir);
    await source.start();
    expect(sink.last).toEqual(['web-node1']);

    writeFileSync(file, `${podYaml('web', 'busybox:1.37')}---\n${podYaml('Bad')}`);
    await source.read();
    expect(sink.snapshots.at(-1)!.map((p) => p.spec.containers[0].image)).toEqual(['busybox:1.37']);
  });

  it('keeps the pods of a broken document beside a good one, in document order, and drops a document that is gone', async () => {
    const file = join(dir, 'p.yaml');
    writeFileSync(file, `${podYaml('a')}---\n${podYaml('b')}---\n${podYaml('c')}`);
    const source = fileSource(dir);
    await source.start();
    const [a, , c] = sink.snapshots[0];

    writeFileSync(file, `${podYaml('a', 'busybox:1.37')}---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: b\n`);
    await source.read();
    expect(sink.last).toEqual(['a-node1', 'b-node1']);
    expect(sink.snapshots.at(-1)![0]).not.toBe(a);
    expect(sink.snapshots.at(-1)).not.toContain(c);
  });

  it('keeps the pods of a file caught empty, as a write that truncates first leaves it, and says so once', async () => {
    const { file, source, good } = await startedOnWeb();

    writeFileSync(file, '');
    await source.read();
    await source.read();
    expect(sink.snapshots.at(-1)).toEqual([good]);
    expect(sink.errors.map((e) => e.message)).toEqual(['the file is empty (caught mid-write?); remove it to remove its pods']);

    writeFileSync(file, podYaml('web', 'busybox:1.37'));
    await source.read();
    expect(sink.snapshots.at(-1)!.map((p) => p.spec.containers[0].image)).toEqual(['busybox:1.37']);
  });

  it('does not decode an unchanged file again: same pods, same seen time, no repeated errors', async () => {
    writeFileSync(join(dir, 'mixed.yaml'), `${podYaml('good')}---\n${podYaml('Bad')}`);
    const source = fileSource(dir);
    await source.start();
    expect(sink.errors).toHaveLength(1);
    expect(sink.errors[0]).toMatchObject({ document: 1, pod: 'Bad', field: 'metadata.name' });

    await clock.advance(5_000);
    await source.read();

    expect(sink.errors).toHaveLength(1);
    expect(sink.snapshots).toHaveLength(2);
    expect(sink.snapshots[1][0]).toBe(sink.snapshots[0][0]);
    expect(sink.snapshots[1][0].metadata.annotations?.['kubernetes.io/config.seen']).toBe(new Date(clock.now() - 5_000).toISOString());
  });

  it('reads a changed file again, with a new seen time', async () => {
    const file = join(dir, 'p.yaml');
    writeFileSync(file, podYaml('web'));
    const source = fileSource(dir);
    await source.start();
    await clock.advance(5_000);
    writeFileSync(file, podYaml('web', 'busybox:1.37'));
    await source.read();
    expect(sink.snapshots[1][0].metadata.annotations?.['kubernetes.io/config.seen']).toBe(new Date(clock.now()).toISOString());
    expect(sink.snapshots[1][0].metadata.uid).not.toBe(sink.snapshots[0][0].metadata.uid);
  });

  it('drops the pods of a deleted file', async () => {
    writeFileSync(join(dir, 'a.yaml'), podYaml('a'));
    writeFileSync(join(dir, 'b.yaml'), podYaml('b'));
    const source = fileSource(dir);
    await source.start();
    rmSync(join(dir, 'a.yaml'));
    await source.read();
    expect(sink.last).toEqual(['b-node1']);
  });

  it('folds a read asked for during a read into one more read', async () => {
    writeFileSync(join(dir, 'a.yaml'), podYaml('a'));
    const source = fileSource(dir);
    const first = source.read();
    const second = source.read();
    const third = source.read();
    expect(second).toBe(first);
    expect(third).toBe(first);
    await first;
    expect(sink.snapshots).toHaveLength(2);
  });

  it('picks up a new file on the periodic poll', async () => {
    writeFileSync(join(dir, 'a.yaml'), podYaml('a'));
    const source = fileSource(dir, true);
    await source.start();
    const read = vi.spyOn(source, 'pollRead');
    writeFileSync(join(dir, 'b.yaml'), podYaml('b'));

    await clock.advance(PERIOD - 1);
    expect(read).not.toHaveBeenCalled();

    await clock.advance(1);
    expect(read).toHaveBeenCalledTimes(1);
    await read.mock.results[0].value;
    expect(sink.last).toEqual(['a-node1', 'b-node1']);
  });

  it('polls a settled file with a stat alone, and reads it again when its stamp changes', async () => {
    const file = join(dir, 'a.yaml');
    writeFileSync(file, podYaml('a'));
    const past = new Date(Date.now() - 10_000);
    utimesSync(file, past, past);
    const source = fileSource(dir);
    await source.start();
    reads.count = 0;

    await source.pollRead();
    expect(reads.count).toBe(0);
    expect(sink.last).toEqual(['a-node1']);

    // Rewritten: a new stamp, read at once; and a read the watch asks for always reads.
    writeFileSync(file, podYaml('b'));
    await source.pollRead();
    expect(reads.count).toBe(1);
    expect(sink.last).toEqual(['b-node1']);
    await source.read(['a.yaml']);
    expect(reads.count).toBe(2);
  });

  it('reads again on the poll a file written too recently for its stamp to be trusted', async () => {
    writeFileSync(join(dir, 'a.yaml'), podYaml('a'));
    const source = fileSource(dir);
    await source.start();
    reads.count = 0;
    await source.pollRead();
    expect(reads.count).toBe(1);
  });

  it('reads once, after a quiet time, for a burst of change notifications', async () => {
    const source = fileSource(dir, true);
    await source.start();
    expect(watchers.map((w) => w.path)).toEqual([dir]);
    const read = vi.spyOn(source, 'read');
    writeFileSync(join(dir, 'a.yaml'), podYaml('a'));

    // Notifications 3 ms apart (under the 5 ms quiet time) fold into one read, 5 ms after the last.
    watchers[0].notify();
    await clock.advance(3);
    watchers[0].notify();
    await clock.advance(3);
    watchers[0].notify();
    await clock.advance(4);
    expect(read).not.toHaveBeenCalled();

    await clock.advance(1);
    expect(read).toHaveBeenCalledTimes(1);
    await read.mock.results[0].value;
    expect(sink.last).toEqual(['a-node1']);
  });

  describe('a change the file system names', () => {
    /** Starts a watching source on a.yaml and b.yaml, and returns a function that sends notifications and waits for the read they cause. */
    async function watching(): Promise<(...names: (string | undefined)[]) => Promise<void>> {
      writeFileSync(join(dir, 'a.yaml'), podYaml('a'));
      writeFileSync(join(dir, 'b.yaml'), podYaml('b'));
      const source = fileSource(dir, true);
      await source.start();
      const read = vi.spyOn(source, 'read');
      return async (...names) => {
        read.mockClear();
        for (const name of names) watchers[0].notify('rename', name);
        await clock.advance(50);
        expect(read).toHaveBeenCalledTimes(1);
        await read.mock.results[0].value;
      };
    }

    it('reads only the named files; the others wait for the poll', async () => {
      const notify = await watching();
      writeFileSync(join(dir, 'c.yaml'), podYaml('c'));
      writeFileSync(join(dir, 'd.yaml'), podYaml('d'));
      writeFileSync(join(dir, 'a.yaml'), podYaml('a', 'busybox:1.37'));
      await notify('c.yaml', 'a.yaml', 'c.yaml');
      expect(sink.last).toEqual(['a-node1', 'b-node1', 'c-node1']);
      expect(sink.snapshots.at(-1)![0].spec.containers[0].image).toBe('busybox:1.37');

      await clock.advance(PERIOD);
      await vi.waitFor(() => expect(sink.last).toEqual(['a-node1', 'b-node1', 'c-node1', 'd-node1']));
    });

    it('drops the pods of a named file that is gone or is no longer a file', async () => {
      const notify = await watching();
      rmSync(join(dir, 'a.yaml'));
      rmSync(join(dir, 'b.yaml'));
      mkdirSync(join(dir, 'b.yaml'));
      await notify('a.yaml', 'b.yaml');
      expect(sink.last).toEqual([]);
      expect(sink.errors).toEqual([
        {
          source: join(dir, 'b.yaml'),
          document: 0,
          message: 'skipped: a directory (not read recursively, as in the kubelet), not a regular file',
        },
      ]);
    });

    it('reads everything when a notification names no file', async () => {
      const notify = await watching();
      rmSync(join(dir, 'a.yaml'));
      writeFileSync(join(dir, 'c.yaml'), podYaml('c'));
      await notify('b.yaml', undefined);
      expect(sink.last).toEqual(['b-node1', 'c-node1']);
    });

    it('reports a named file of another extension once, and reads no hidden file', async () => {
      const notify = await watching();
      writeFileSync(join(dir, 'notes.txt'), 'not a manifest');
      writeFileSync(join(dir, '.draft.yaml'), podYaml('draft'));
      await notify('notes.txt', '.draft.yaml');
      await notify('notes.txt');
      expect(sink.last).toEqual(['a-node1', 'b-node1']);
      expect(sink.errors.map((e) => [e.source, e.message.split(':')[0]])).toEqual([[join(dir, 'notes.txt'), 'ignored']]);
    });

    it('reads the whole path when the directory itself is gone', async () => {
      const notify = await watching();
      rmSync(dir, { recursive: true });
      await notify('a.yaml');
      expect(sink.last).toEqual([]);
      expect(sink.errors.map((e) => e.message)).toEqual(['path does not exist; watching for it']);
    });
  });

  it('starts watching a directory that appears later', async () => {
    const late = join(dir, 'manifests');
    const source = fileSource(late, true);
    await source.start();
    expect(watchers).toEqual([]);
    mkdirSync(late);
    await source.read();
    expect(watchers.map((w) => w.path)).toEqual([late]);
  });

  it('looks for a removed directory after a second, then less and less often, and watches it again once it is back', async () => {
    writeFileSync(join(dir, 'a.yaml'), podYaml('a'));
    const source = fileSource(dir, true);
    await source.start();
    const read = vi.spyOn(source, 'read');
    rmSync(dir, { recursive: true });
    watchers[0].notify('rename', basename(dir));
    await clock.advance(50);
    await read.mock.results[0].value;
    expect(sink.last).toEqual([]);
    expect(watchers[0].closed).toBe(true);

    read.mockClear();
    await clock.advance(999);
    expect(read).not.toHaveBeenCalled();
    await clock.advance(1);
    expect(read).toHaveBeenCalledTimes(1);
    await read.mock.results[0].value;
    await clock.advance(1_999);
    expect(read).toHaveBeenCalledTimes(1);

    mkdirSync(dir);
    writeFileSync(join(dir, 'b.yaml'), podYaml('b'));
    await clock.advance(1);
    expect(read).toHaveBeenCalledTimes(2);
    await read.mock.results[1].value;
    expect(sink.last).toEqual(['b-node1']);
    expect(watchers.map((w) => [w.path, w.closed])).toEqual([
      [dir, true],
      [dir, false],
    ]);
  });

  it('watches a directory made again under the same name, however quickly', async () => {
    writeFileSync(join(dir, 'a.yaml'), podYaml('a'));
    const source = fileSource(dir, true);
    await source.start();
    const read = vi.spyOn(source, 'read');
    rmSync(dir, { recursive: true });
    mkdirSync(dir);
    writeFileSync(join(dir, 'b.yaml'), podYaml('b'));
    // The old watcher hears the directory go, and will hear nothing of the new one.
    watchers[0].notify('rename', basename(dir));
    await clock.advance(50);
    await read.mock.results[0].value;

    expect(sink.last).toEqual(['b-node1']);
    expect(watchers.map((w) => w.closed)).toEqual([true, false]);
  });

  it('stops polling and watching on stop', async () => {
    const source = fileSource(dir, true);
    await source.start();
    const read = vi.spyOn(source, 'read');
    watchers[0].notify();
    source.stop();

    await clock.advance(PERIOD * 3);

    expect(read).not.toHaveBeenCalled();
    expect(watchers[0].closed).toBe(true);
    expect(clock.pending).toBe(0);
  });

  it('does not watch or poll when watching is off', async () => {
    const source = fileSource(dir, false);
    await source.start();
    const read = vi.spyOn(source, 'read');
    await clock.advance(PERIOD * 2);
    expect(read).not.toHaveBeenCalled();
    expect(watchers).toEqual([]);
  });
});
