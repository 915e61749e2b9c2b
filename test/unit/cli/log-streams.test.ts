// kubectl logs' options as knode checks and defaults them, and several logs
// printed one after the other or, followed, side by side with their prefixes.
import { describe, expect, it } from 'vitest';
import { logRequest, printLogs, type LogSource } from '../../../src/cli/log-streams.js';

const base = { follow: false, previous: false, timestamps: false };

describe('logRequest', () => {
  it("takes kubectl's options: since rounded to seconds, a selector's tail of 10 unless given", () => {
    expect(logRequest({ ...base, since: '1m30s', 'limit-bytes': 100 }, false)).toEqual({ ...base, sinceSeconds: 90, limitBytes: 100 });
    expect(logRequest({ ...base, since: '1500ms' }, false).sinceSeconds).toBe(2);
    expect(logRequest(base, true).tailLines).toBe(10);
    expect(logRequest({ ...base, tail: -1 }, true).tailLines).toBeUndefined();
    expect(logRequest({ ...base, tail: 3 }, true).tailLines).toBe(3);
    expect(logRequest({ ...base, 'since-time': '2026-12-07T10:00:00Z' }, false).sinceTime).toBe('2026-12-07T10:00:00Z');
  });

  it('refuses what kubectl refuses, in its words', () => {
    const refusal = (flags: Parameters<typeof logRequest>[0]) => {
      try {
        logRequest(flags, false);
      } catch (err) {
        return (err as Error).message;
      }
      return 'none';
    };
    expect(refusal({ ...base, since: '5s', 'since-time': '2026-12-07T10:00:00Z' })).toBe(
      'error: at most one of `sinceTime` or `sinceSeconds` may be specified',
    );
    expect(refusal({ ...base, 'limit-bytes': 0 })).toBe('error: --limit-bytes must be greater than 0');
    expect(refusal({ ...base, since: '100ms' })).toBe('error: --since must be greater than 0');
    expect(refusal({ ...base, tail: -2 })).toBe('error: --tail must be greater than or equal to -1');
    expect(refusal({ ...base, since: 'soon' })).toContain('invalid argument "soon" for "--since" flag');
    expect(refusal({ ...base, 'since-time': 'yesterday' })).toContain('parsing time "yesterday"');
  });
});

describe('printLogs', () => {
  /** A log that gives CHUNKS, each after the previous one was taken. */
  const source = (prefix: string, chunks: string[]): LogSource => ({
    prefix,
    async *open() {
      for (const chunk of chunks) {
        await new Promise((r) => setImmediate(r));
        yield Buffer.from(chunk);
      }
    },
  });
  const print = async (sources: LogSource[], options: { follow: boolean; prefix: boolean; maxRequests?: number }) => {
    const out: string[] = [];
    await printLogs(sources, { maxRequests: 5, ...options }, new AbortController().signal, (chunk) => out.push(chunk.toString()));
    return out;
  };

  it('prints logs one after the other, each line after its prefix when asked, a line cut across chunks whole', async () => {
    const out = await print([source('[pod/a/c] ', ['one\ntw', 'o\n']), source('[pod/b/c] ', ['three'])], { follow: false, prefix: true });
    expect(out).toEqual(['[pod/a/c] one\n', '[pod/a/c] two\n', '[pod/b/c] three']);
    expect((await print([source('[pod/a/c] ', ['one\ntw', 'o\n'])], { follow: false, prefix: false })).join('')).toBe('one\ntwo\n');
  });

  it('follows several side by side, whole lines each, and at most --max-log-requests of them', async () => {
    const out = await print([source('', ['a1\n', 'a2\n']), source('', ['b1\n', 'b2\n'])], { follow: true, prefix: false });
    expect(out).toEqual(['a1\n', 'b1\n', 'a2\n', 'b2\n']);
    await expect(print([source('', []), source('', [])], { follow: true, prefix: false, maxRequests: 1 })).rejects.toThrow(
      'error: you are attempting to follow 2 log streams, but maximum allowed concurrency is 1, use --max-log-requests to increase the limit',
    );
  });
});
