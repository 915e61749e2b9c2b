// apply --replace beside a node: the given objects paired with the static
// dir's documents of the same kind, namespace and name, the files rewritten
// in place (the other documents byte for byte), and the refusals named.
import { lstatSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { locateObjects, planReplacement, writeAtomically } from '../../../src/cli/static-manifests.js';

const pod = (name: string, image: string, extra = '') =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n${extra}spec:\n  containers:\n    - name: app\n      image: ${image}\n`;

function plan(given: Record<string, string>, existing: Record<string, string>) {
  const texts = new Map(Object.entries(existing));
  const located = (files: Record<string, string>) => Object.entries(files).flatMap(([file, text]) => locateObjects(file, text));
  return planReplacement(located(given), located(existing), texts, '/static');
}

describe('locateObjects', () => {
  it('names each object with its document, List items with their index, and skips what has no name', () => {
    const text = `${pod('a', 'busybox')}---\n# a comment\n${pod('b', 'nginx', '  namespace: other\n')}---\nkind: PodList\napiVersion: v1\nitems:\n  - metadata: {name: c}\n    spec: {containers: []}\n---\nkind: Pod\n---\n: [\n`;
    const found = locateObjects('/f.yaml', text);
    expect(found.map((l) => [l.ref.kind, l.ref.namespace, l.ref.name, l.document, l.item])).toEqual([
      ['Pod', 'default', 'a', 0, undefined],
      ['Pod', 'other', 'b', 1, undefined],
      ['Pod', 'default', 'c', 2, 0],
    ]);
    expect(found[1].text).toBe(pod('b', 'nginx', '  namespace: other\n'));
  });
});

describe('planReplacement', () => {
  it("rewrites the pod's document in place, keeping the other documents and comments byte for byte", () => {
    const before = `# my pods\n${pod('web', 'nginx:1')}---\n# keep me\n${pod('db', 'redis')}`;
    const { files, replacements, errors } = plan({ '/in.yaml': pod('web', 'nginx:2') }, { '/static/all.yaml': before });
    expect(errors).toEqual([]);
    expect(replacements.map((r) => [r.target.file, r.target.document, r.unchanged])).toEqual([['/static/all.yaml', 0, false]]);
    expect(files.get('/static/all.yaml')).toBe(`# my pods\n${pod('web', 'nginx:2')}---\n# keep me\n${pod('db', 'redis')}`);
  });

  it('replaces a later document of a file, and two of one file at once', () => {
    const before = `${pod('a', 'x:1')}---\n${pod('b', 'y:1')}---\n${pod('c', 'z:1')}`;
    const given = `${pod('c', 'z:2')}---\n${pod('a', 'x:2')}`;
    const { files, errors } = plan({ '/in.yaml': given }, { '/static/p.yaml': before });
    expect(errors).toEqual([]);
    expect(files.get('/static/p.yaml')).toBe(`${pod('a', 'x:2')}---\n${pod('b', 'y:1')}---\n${pod('c', 'z:2')}`);
  });

  it('writes nothing for an unchanged object, and says so', () => {
    const { files, replacements } = plan(
      { '/in.yaml': `# other comments\n${pod('web', 'nginx')}` },
      { '/static/w.yaml': pod('web', 'nginx') },
    );
    expect(replacements[0].unchanged).toBe(true);
    expect(files.size).toBe(0);
  });

  it('keeps a JSON file JSON, and serializes a List item given into a YAML file', () => {
    const json = JSON.stringify(parse(pod('web', 'nginx:1')));
    const { files } = plan({ '/in.yaml': pod('web', 'nginx:2') }, { '/static/w.json': json });
    expect(JSON.parse(files.get('/static/w.json')!)).toEqual(parse(pod('web', 'nginx:2')));
    const list = `apiVersion: v1\nkind: List\nitems:\n  - ${pod('web', 'nginx:3').trimEnd().replaceAll('\n', '\n    ')}\n`;
    const fromList = plan({ '/in.yaml': list }, { '/static/w.yaml': pod('web', 'nginx:1') });
    expect(parse(fromList.files.get('/static/w.yaml')!)).toEqual(parse(pod('web', 'nginx:3')));
  });

  it('refuses, naming the given file, document, pod and field, a pod the static dir does not hold, and writes nothing', () => {
    const { files, errors } = plan(
      { '/in.yaml': `${pod('web', 'nginx:2')}---\n${pod('missing', 'x', '  namespace: other\n')}` },
      { '/static/w.yaml': pod('web', 'nginx:1') },
    );
    expect(errors).toEqual([
      `/in.yaml, document 1, pod "other/missing": metadata.name: not found in the node's --static-dir (/static): no manifest there holds a Pod of this name in namespace other`,
    ]);
    expect(files.size).toBe(0);
  });

  it('refuses a pod found twice, or an item of a List among others', () => {
    const twice = plan({ '/in.yaml': pod('web', 'n:2') }, { '/static/a.yaml': pod('web', 'n:1'), '/static/b.yaml': pod('web', 'n:1') });
    expect(twice.errors).toEqual([
      `/in.yaml, document 0, pod "web": found 2 times in the node's --static-dir (/static/a.yaml, document 0; /static/b.yaml, document 0): replace needs one`,
    ]);
    const list = `kind: PodList\napiVersion: v1\nitems:\n  - metadata: {name: web}\n  - metadata: {name: db}\n`;
    const item = plan({ '/in.yaml': pod('web', 'n:2') }, { '/static/l.yaml': list });
    expect(item.errors).toEqual([
      `/in.yaml, document 0, pod "web": /static/l.yaml, document 0: items[0]: it is an item of a List of 2; replace rewrites whole documents: give it a document of its own there`,
    ]);
  });
});

describe('writeAtomically', () => {
  it('renames a hidden file over the old one, keeping its mode, and follows a symlink to the file it names', () => {
    const dir = mkdtempSync(join(tmpdir(), 'knode-atomic-'));
    const real = join(dir, 'real.yaml');
    writeFileSync(real, 'old\n', { mode: 0o640 });
    const link = join(dir, 'link.yaml');
    symlinkSync(real, link);
    const inode = statSync(real).ino;
    writeAtomically(link, 'new\n');
    expect(readFileSync(real, 'utf8')).toBe('new\n');
    expect(statSync(real).mode & 0o777).toBe(0o640);
    expect(statSync(real).ino).not.toBe(inode);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['link.yaml', 'real.yaml']);
  });
});
