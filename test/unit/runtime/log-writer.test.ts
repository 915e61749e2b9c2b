import { mkdtempSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CriLogWriter, MAX_LOG_LINE } from '../../../src/runtime/log-writer.js';

const fixed = () => new Date('2026-11-22T10:00:00.123Z');

function writer() {
  const path = join(mkdtempSync(join(tmpdir(), 'knode-log-')), 'c', '0.log');
  return { path, log: new CriLogWriter(path, fixed) };
}

describe('CriLogWriter', () => {
  it('writes one F entry per line, per stream, with the time first', () => {
    const { path, log } = writer();
    log.write('stdout', Buffer.from('hello\nworld\n'));
    log.write('stderr', Buffer.from('oops\n'));
    log.end();
    expect(readFileSync(path, 'utf8')).toBe(
      '2026-11-22T10:00:00.123Z stdout F hello\n2026-11-22T10:00:00.123Z stdout F world\n2026-11-22T10:00:00.123Z stderr F oops\n',
    );
  });

  it('joins a line that arrives in pieces, and keeps streams apart', () => {
    const { path, log } = writer();
    log.write('stdout', Buffer.from('hel'));
    log.write('stderr', Buffer.from('err\n'));
    log.write('stdout', Buffer.from('lo\n'));
    log.end();
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(lines).toEqual(['2026-11-22T10:00:00.123Z stderr F err', '2026-11-22T10:00:00.123Z stdout F hello']);
  });

  it('splits lines longer than the maximum into P entries', () => {
    const { path, log } = writer();
    log.write('stdout', Buffer.from(`${'x'.repeat(MAX_LOG_LINE + 10)}\n`));
    log.end();
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(`2026-11-22T10:00:00.123Z stdout P ${'x'.repeat(MAX_LOG_LINE)}`);
    expect(lines[1]).toBe(`2026-11-22T10:00:00.123Z stdout F ${'x'.repeat(10)}`);
  });

  it('flushes an unterminated last line as P when the output ends', () => {
    const { path, log } = writer();
    log.write('stdout', Buffer.from('no newline'));
    log.end();
    expect(readFileSync(path, 'utf8')).toBe('2026-11-22T10:00:00.123Z stdout P no newline\n');
  });

  it('keeps an empty line as an empty F entry', () => {
    const { path, log } = writer();
    log.write('stdout', Buffer.from('\n'));
    log.end();
    expect(readFileSync(path, 'utf8')).toBe('2026-11-22T10:00:00.123Z stdout F \n');
  });

  it('writes to a fresh file after reopen, as log rotation needs', () => {
    const { path, log } = writer();
    log.write('stdout', Buffer.from('before\n'));
    renameSync(path, `${path}.1`);
    log.reopen();
    log.write('stdout', Buffer.from('after\n'));
    log.end();
    expect(readFileSync(`${path}.1`, 'utf8')).toContain('before');
    expect(readFileSync(path, 'utf8')).toBe('2026-11-22T10:00:00.123Z stdout F after\n');
  });

  it('discards output when the path is empty', () => {
    const log = new CriLogWriter('', fixed);
    log.write('stdout', Buffer.from('nowhere\n'));
    log.end();
    expect(log.writeError).toBeUndefined();
  });
});
