// Go's %v and %q, for messages that must read as the kubelet's do.

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;
const ESCAPES: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 34: '\\"', 92: '\\\\' };
const strict = new TextDecoder('utf-8', { fatal: true });

/**
 * Go's strconv.Quote (`%q`): double quotes; \n, \t, \" ... escaped; other
 * control and unprintable characters as \x, \u or \U; printable Unicode kept;
 * each byte that is not valid UTF-8 as \xNN.
 */
export function goQuote(value: string | Uint8Array): string {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  let out = '"';
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i];
    const size = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    let char: string | undefined;
    if (size > 0 && i + size <= bytes.length) {
      try {
        char = strict.decode(bytes.subarray(i, i + size));
      } catch {
        char = undefined;
      }
    }
    if (char === undefined) {
      out += `\\x${hex(b, 2)}`;
      i++;
      continue;
    }
    const code = char.codePointAt(0)!;
    if (ESCAPES[code]) out += ESCAPES[code];
    else if (code === 0x20 || PRINTABLE.test(char)) out += char;
    else if (code < 0x80) out += `\\x${hex(code, 2)}`;
    else if (code <= 0xffff) out += `\\u${hex(code, 4)}`;
    else out += `\\U${hex(code, 8)}`;
    i += size;
  }
  return `${out}"`;
}

/** A []string as Go's %v prints it: `[sh -c exit 1]`. */
export function goStringList(values: readonly string[]): string {
  return `[${values.join(' ')}]`;
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}
