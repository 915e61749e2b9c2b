import { describe, expect, it } from 'vitest';
import { unknownCommand } from '../../../src/cli/unknown-command.js';

const IDS = ['apply', 'status', 'get', 'logs', 'rollout:status', 'rollout:history', 'image:ls', 'image:pull', 'describe', 'describe:pod'];

describe('an unknown command', () => {
  it("is told in kubectl's words, for knode or for the topic it is under", () => {
    expect(unknownCommand('frob', IDS)).toEqual({ message: 'unknown command "frob" for "knode"', hint: 'knode --help lists the commands' });
    expect(unknownCommand('rollout:frob:deploy/web', IDS)).toEqual({
      message: 'unknown command "frob" for "knode rollout"',
      hint: 'knode rollout takes history, status',
    });
  });

  it("points kubectl's spec-changing verbs to the manifest, which owns the spec", () => {
    for (const id of ['edit:deploy/web', 'rollout:undo:deploy/web', 'rollout:pause', 'patch', 'label:pod/web']) {
      expect(unknownCommand(id, IDS).hint).toMatch(/^the manifests own the spec on a knode node: edit the manifest/);
    }
    expect(unknownCommand('version', IDS).hint).toBe('knode --version');
  });

  it('names the commands a mistyped word is near: two edits away, or beginning with it', () => {
    expect(unknownCommand('stauts', IDS).hint).toBe('did you mean knode status?');
    expect(unknownCommand('log', IDS).hint).toBe('did you mean knode logs?');
    expect(unknownCommand('gets', [...IDS, 'sets']).hint).toBe('did you mean knode get, knode sets?');
    expect(unknownCommand('image:lss', IDS).hint).toBe('did you mean knode image ls?');
    expect(unknownCommand('rollout:hist', IDS).hint).toBe('did you mean knode rollout history?');
  });
});
