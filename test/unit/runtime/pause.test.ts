import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { HOLDER_LOOP } from '../../../src/runtime/pause.js';

describe("a holder's loop", () => {
  it('ends when its pause program is gone (its runtime directory deleted) rather than start it again and again', () => {
    const res = spawnSync('/bin/sh', ['-c', HOLDER_LOOP, 'holder', '/nonexistent/knode/bin/pause'], { timeout: 10_000 });
    expect(res.error).toBeUndefined();
    expect(res.status).toBe(0);
  });
});
