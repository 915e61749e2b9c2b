import { describe, expect, it } from 'vitest';
import { BatchedLines } from '../../../src/cli/batched-lines.js';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

function sink() {
  const writes: string[] = [];
  return { writes, out: { write: (chunk: string) => writes.push(chunk) } };
}

describe('BatchedLines', () => {
  it('writes the lines of one turn in one write, in order, and the next turn in another', async () => {
    const { writes, out } = sink();
    const lines = new BatchedLines(out);
    lines.push('a');
    lines.push('b');
    lines.push('c');
    expect(writes).toEqual([]);
    await turn();
    expect(writes).toEqual(['a\nb\nc\n']);
    lines.push('d');
    await turn();
    expect(writes).toEqual(['a\nb\nc\n', 'd\n']);
    lines.close();
  });

  it('writes what waits at the process exit and on close, and leaves the exit alone once closed', () => {
    const { writes, out } = sink();
    const before = new Set(process.listeners('exit'));
    const lines = new BatchedLines(out);
    const atExit = process.listeners('exit').filter((l) => !before.has(l));
    expect(atExit).toHaveLength(1);
    lines.push('x');
    atExit[0](0);
    expect(writes).toEqual(['x\n']);
    lines.push('y');
    lines.close();
    expect(writes).toEqual(['x\n', 'y\n']);
    expect(process.listeners('exit')).not.toContain(atExit[0]);
  });
});
