/**
 * The documents of a manifest in the plain block style most pod manifests
 * are written in, read in one pass over its lines; or undefined, and the
 * caller reads it with the `yaml` library. The library's parser, interpreted
 * (the node runs without TurboFan), cost a millisecond a small manifest, the
 * largest share of a static pod's own CPU in a burst of new manifests.
 *
 * Only what reads the same in YAML 1.1 and to the library, as knode
 * configures it, is taken here: block mappings and sequences, `[...]` lists
 * of scalars, `{}`, full-line comments, `---` between documents, and scalars
 * whose type is plain: quoted strings with simple escapes, plain strings that
 * no YAML 1.1 rule reads as anything else, `true`, `false`, and decimal
 * integers. Anything else (anchors, tags, block scalars, trailing comments,
 * floats, YAML 1.1's `yes`/`on`, a repeated key, tabs...) gives undefined, so
 * every error and every odd case is the library's.
 */

type Value = string | number | boolean | null | Value[] | { [key: string]: Value };

/** Thrown inside, caught at the top: the text is not in the subset. */
const NOT_SIMPLE = Symbol('not simple');

interface Line {
  indent: number;
  text: string;
}

/** Words YAML 1.1 reads as booleans or null, in any of their spellings: never a plain string here. */
const KEYWORDS = new Set(
  ['y', 'yes', 'n', 'no', 'true', 'false', 'on', 'off', 'null', '~'].flatMap((w) => [w, w.toUpperCase(), w[0].toUpperCase() + w.slice(1)]),
);
const PLAIN_KEY = /^[A-Za-z][A-Za-z0-9._/-]*$/;
// A plain string: starts with a letter or a slash, and holds none of YAML's indicators; no ": " and no " #" inside.
const PLAIN_STRING = /^[A-Za-z/][A-Za-z0-9 ._/:=+@$()^;-]*$/;
const INTEGER = /^(?:0|-?[1-9][0-9]{0,14})$/;
// A Kubernetes quantity such as 10m or 128Mi: no YAML 1.1 number has a letter after its digits.
const QUANTITY = /^[0-9]+(?:m|k|Ki|M|Mi|G|Gi|T|Ti)$/;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', n: '\n', t: '\t', '/': '/' };

export function parseSimpleYaml(text: string): Value[] | undefined {
  if (text.includes('\t') || text.includes('\r')) return undefined;
  try {
    const docs: Value[] = [];
    let lines: Line[] = [];
    let separators = 0;
    for (const raw of text.split('\n')) {
      if (raw === '---') {
        separators++;
        docs.push(documentOf(lines));
        lines = [];
        continue;
      }
      const trimmed = raw.trimStart();
      if (trimmed === '' || trimmed.startsWith('#')) continue;
      if (raw.startsWith('---') || raw.startsWith('...') || raw.startsWith('%')) return undefined;
      lines.push({ indent: raw.length - trimmed.length, text: trimmed.trimEnd() });
    }
    // A text of nothing but comments holds no document at all.
    if (separators === 0 && lines.length === 0) return [];
    docs.push(documentOf(lines));
    // A leading `---` opens the first document: nothing before it is a document of its own.
    if (text.startsWith('---') && docs[0] === null) docs.shift();
    return docs;
  } catch (err) {
    if (err === NOT_SIMPLE) return undefined;
    throw err;
  }
}

function documentOf(lines: Line[]): Value {
  if (lines.length === 0) return null;
  const [value, next] = block(lines, 0, lines[0].indent);
  if (next !== lines.length) throw NOT_SIMPLE;
  return value;
}

/** The block at line I, indented by INDENT: a sequence or a mapping. */
function block(lines: Line[], i: number, indent: number): [Value, number] {
  return isItem(lines[i].text) ? sequence(lines, i, indent) : mapping(lines, i, indent, lines[i].text);
}

const isItem = (text: string) => text === '-' || text.startsWith('- ');

function sequence(lines: Line[], i: number, indent: number): [Value[], number] {
  const out: Value[] = [];
  while (i < lines.length && lines[i].indent === indent && isItem(lines[i].text)) {
    const rest = lines[i].text.slice(1).trimStart();
    const column = indent + lines[i].text.length - rest.length;
    if (rest === '') {
      const [value, next] = nested(lines, i + 1, indent, false);
      out.push(value);
      i = next;
    } else if (keyOf(rest) !== undefined) {
      // `- key: value`: a mapping whose first line starts after the dash, the rest at that column.
      const [value, next] = mapping(lines, i, column, rest);
      out.push(value);
      i = next;
    } else {
      out.push(inline(rest));
      i++;
    }
  }
  if (i < lines.length && lines[i].indent > indent) throw NOT_SIMPLE;
  return [out, i];
}

/** A mapping at column INDENT whose first line (line I) reads FIRST; the lines after it at that indent. */
function mapping(lines: Line[], i: number, indent: number, first: string): [{ [key: string]: Value }, number] {
  const out: { [key: string]: Value } = {};
  let text = first;
  for (;;) {
    const entry = keyOf(text);
    if (entry === undefined || Object.hasOwn(out, entry.key) || entry.key === '__proto__') throw NOT_SIMPLE;
    if (entry.rest === '') {
      const [value, next] = nested(lines, i + 1, indent, true);
      out[entry.key] = value;
      i = next;
    } else {
      out[entry.key] = inline(entry.rest);
      i++;
    }
    if (i >= lines.length || lines[i].indent < indent) return [out, i];
    if (lines[i].indent > indent || isItem(lines[i].text)) throw NOT_SIMPLE;
    text = lines[i].text;
  }
}

/** What follows `key:` or `-` with nothing after it: a deeper block, a sequence at a KEY's own indent, or null. */
function nested(lines: Line[], i: number, indent: number, key: boolean): [Value, number] {
  if (i < lines.length && lines[i].indent > indent) return block(lines, i, lines[i].indent);
  if (key && i < lines.length && lines[i].indent === indent && isItem(lines[i].text)) return sequence(lines, i, indent);
  return [null, i];
}

/** `key: rest` or `key:`, with a plain or quoted key; undefined when TEXT is not that. */
function keyOf(text: string): { key: string; rest: string } | undefined {
  let key: string;
  let after: number;
  if (text[0] === '"' || text[0] === "'") {
    const [value, end] = quoted(text, 0);
    key = value;
    after = end;
  } else {
    after = text.indexOf(':');
    if (after < 0) return undefined;
    key = text.slice(0, after);
    if (!PLAIN_KEY.test(key) || KEYWORDS.has(key)) {
      if (PLAIN_STRING.test(text)) return undefined; // a plain string with a colon in it (busybox:1.36), not a key
      throw NOT_SIMPLE;
    }
  }
  if (text[after] !== ':') return undefined;
  if (after + 1 === text.length) return { key, rest: '' };
  if (text[after + 1] !== ' ') return undefined;
  return { key, rest: text.slice(after + 2).trimStart() };
}

/** A value on the line of its key or dash: a scalar, `[...]`, `[]` or `{}`. */
function inline(text: string): Value {
  if (text === '{}') return {};
  if (text[0] === '[') return flowList(text);
  if (text[0] === '"' || text[0] === "'") {
    const [value, end] = quoted(text, 0);
    if (end !== text.length) throw NOT_SIMPLE;
    return value;
  }
  return plain(text);
}

function plain(text: string): Value {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (INTEGER.test(text)) return Number(text);
  if (QUANTITY.test(text)) return text;
  if (KEYWORDS.has(text) || !PLAIN_STRING.test(text) || text.includes(': ') || text.endsWith(':')) throw NOT_SIMPLE;
  return text;
}

/** `[a, "b", 3]`: scalars only, one line. */
function flowList(text: string): Value[] {
  if (!text.endsWith(']')) throw NOT_SIMPLE;
  const out: Value[] = [];
  let i = 1;
  const skipSpaces = () => {
    while (text[i] === ' ') i++;
  };
  skipSpaces();
  if (text[i] === ']' && i === text.length - 1) return out;
  for (;;) {
    skipSpaces();
    let item: Value;
    if (text[i] === '"' || text[i] === "'") {
      const [value, end] = quoted(text, i);
      item = value;
      i = end;
    } else {
      let end = i;
      while (end < text.length && text[end] !== ',' && text[end] !== ']') end++;
      const word = text.slice(i, end).trimEnd();
      if (word === '' || word.includes(':') || /[[\]{}]/.test(word)) throw NOT_SIMPLE;
      item = plain(word);
      i = end;
    }
    out.push(item);
    skipSpaces();
    if (text[i] === ']') {
      if (i !== text.length - 1) throw NOT_SIMPLE;
      return out;
    }
    if (text[i] !== ',') throw NOT_SIMPLE;
    i++;
  }
}

/** A quoted scalar starting at I, on one line: its value and where it ends. */
function quoted(text: string, i: number): [string, number] {
  const quote = text[i];
  let out = '';
  let j = i + 1;
  for (;;) {
    if (j >= text.length) throw NOT_SIMPLE;
    const c = text[j];
    if (c === quote) {
      // 'it''s': a doubled single quote is one.
      if (quote === "'" && text[j + 1] === "'") {
        out += "'";
        j += 2;
        continue;
      }
      return [out, j + 1];
    }
    if (c === '\\' && quote === '"') {
      const escaped = ESCAPES[text[j + 1]];
      if (escaped === undefined) throw NOT_SIMPLE;
      out += escaped;
      j += 2;
      continue;
    }
    out += c;
    j++;
  }
}
