// Writes a disk refuses: files are written whole or not at all, and the
// embedded runtime's state keeps what is true while the disk says no. A
// directory standing where the temp file goes makes the write fail (EISDIR)
// without a full disk, as root too.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RuntimeState } from '../../../src/runtime/state.js';
import type { SandboxRecord } from '../../../src/runtime/records.js';
import { fileError, writeFileAtomic } from '../../../src/util/atomic-file.js';
import { CriLogWriter } from '../../../src/runtime/log-writer.js';

const scratch = () => mkdtempSync(join(tmpdir(), 'knode-refused-'));

function sandbox(id: string): SandboxRecord {
  return {
    id,
    metadata: { name: 'p', uid: 'u', namespace: 'default', attempt: 0 },
    state: 'SANDBOX_READY',
    createdAt: 1,
    hostname: 'p',
    logDirectory: '',
    runtimeHandler: '',
    labels: {},
    annotations: {},
    namespaces: { network: 'NODE', pid: 'POD', ipc: 'POD' },
    ip: '',
  };
}

/** Makes the next write of `file` fail until the returned function is called. */
function refuse(file: string): () => void {
  mkdirSync(`${file}.tmp`);
  return () => rmdirSync(`${file}.tmp`);
}

describe('writeFileAtomic', () => {
  it('replaces a file whole, or leaves the old one and names the path and the code', () => {
    const file = join(scratch(), 'etc-hosts');
    writeFileAtomic(file, 'first\n', 0o644);
    expect(readFileSync(file, 'utf8')).toBe('first\n');
    const allow = refuse(file);
    let error: NodeJS.ErrnoException | undefined;
    try {
      writeFileAtomic(file, 'second\n');
    } catch (err) {
      error = err as NodeJS.ErrnoException;
    }
    expect(error?.message).toBe(`writing ${file}: EISDIR: illegal operation on a directory`);
    expect(error?.code).toBe('EISDIR');
    expect(readFileSync(file, 'utf8')).toBe('first\n');
    allow();
    writeFileAtomic(file, 'second\n');
    expect(readFileSync(file, 'utf8')).toBe('second\n');
    expect(readdirSync(join(file, '..'))).toEqual(['etc-hosts']);
  });

  it('keeps a message that is not in the fs shape as it is', () => {
    expect(fileError('reading x', new Error('odd')).message).toBe('reading x: odd');
  });
});

describe('RuntimeState when the disk refuses a write', () => {
  it('does not take a new record it cannot write', () => {
    const dir = scratch();
    const state = new RuntimeState(dir, () => {});
    refuse(join(dir, 'sandboxes', 'new.json'));
    expect(() => state.saveSandbox(sandbox('new'))).toThrow(/writing .*sandboxes\/new\.json: EISDIR/);
    expect(state.sandboxes.has('new')).toBe(false);
  });

  it('keeps a change to a known record in memory, says so once, and writes it when the disk takes it', () => {
    const dir = scratch();
    const told: string[] = [];
    const state = new RuntimeState(
      dir,
      () => {},
      (err) => told.push(err.message),
    );
    const record = sandbox('known');
    state.saveSandbox(record);
    const allow = refuse(join(dir, 'sandboxes', 'known.json'));

    // A change that fits in the record's file is written over it, which a full disk does not refuse: this one outgrows it.
    record.state = 'SANDBOX_NOTREADY';
    record.annotations = { note: 'x'.repeat(2000) };
    state.saveSandbox(record);
    state.saveSandbox(record);
    expect(state.sandboxes.get('known')?.state).toBe('SANDBOX_NOTREADY');
    expect(told).toEqual([`writing ${join(dir, 'sandboxes', 'known.json')}: EISDIR: illegal operation on a directory`]);
    expect(state.unsavedCount).toBe(1);
    expect(state.flush()).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, 'sandboxes', 'known.json'), 'utf8')).state).toBe('SANDBOX_READY');

    allow();
    // Any later write that succeeds brings the others along.
    state.saveSandbox(sandbox('other'));
    expect(state.unsavedCount).toBe(0);
    expect(new RuntimeState(dir, () => {}).sandboxes.get('known')?.state).toBe('SANDBOX_NOTREADY');
  });

  it('forgets an unsaved change of a record that is deleted', async () => {
    const dir = scratch();
    const state = new RuntimeState(dir, () => {});
    state.saveSandbox(sandbox('gone'));
    const allow = refuse(join(dir, 'sandboxes', 'gone.json'));
    state.saveSandbox({ ...sandbox('gone'), annotations: { note: 'x'.repeat(2000) } });
    await state.deleteSandbox('gone');
    allow();
    expect(state.flush()).toBe(true);
    expect(existsSync(join(dir, 'sandboxes', 'gone.json'))).toBe(false);
  });
});

describe('RuntimeState record files', () => {
  it('writes a change that fits over the record, whole, and one that does not anew', async () => {
    const dir = scratch();
    const state = new RuntimeState(dir, () => {});
    const file = join(dir, 'sandboxes', 'r.json');
    const record = sandbox('r');
    state.saveSandbox(record);
    const made = statSync(file);
    expect(made.size).toBeGreaterThan(JSON.stringify(record).length);

    record.state = 'SANDBOX_NOTREADY';
    state.saveSandbox(record);
    expect(statSync(file).ino).toBe(made.ino);
    expect(statSync(file).size).toBe(made.size);
    expect(new RuntimeState(dir, () => {}).sandboxes.get('r')?.state).toBe('SANDBOX_NOTREADY');

    // Shorter again: what is left of the longer one is blanks, not JSON.
    record.labels = { a: 'y'.repeat(300) };
    state.saveSandbox(record);
    record.labels = {};
    state.saveSandbox(record);
    expect(statSync(file).ino).toBe(made.ino);
    expect(new RuntimeState(dir, () => {}).sandboxes.get('r')?.labels).toEqual({});

    record.annotations = { note: 'z'.repeat(2000) };
    state.saveSandbox(record);
    expect(statSync(file).ino).not.toBe(made.ino);
    expect(new RuntimeState(dir, () => {}).sandboxes.get('r')?.annotations.note).toHaveLength(2000);
    expect(readdirSync(join(dir, 'sandboxes'))).toEqual(['r.json']);

    await state.deleteSandbox('r');
    // A record deleted twice is not an error.
    await state.deleteSandbox('r');
    expect(readdirSync(join(dir, 'sandboxes'))).toEqual([]);
  });
});

describe('CriLogWriter when the disk refuses output', () => {
  it('drops what the file refuses and says so once, without throwing', () => {
    // /dev/full answers every write with ENOSPC, as a full disk does.
    const told: string[] = [];
    const log = new CriLogWriter(
      '/dev/full',
      () => new Date('2026-11-23T10:00:00Z'),
      (err) => told.push(err.message),
    );
    log.write('stdout', Buffer.from('lost 1\nlost 2\n'));
    log.write('stderr', Buffer.from('lost 3\n'));
    log.end();
    expect(told).toEqual(['writing /dev/full: ENOSPC: no space left on device']);
    expect(log.writeError?.message).toBe(told[0]);
  });
});
