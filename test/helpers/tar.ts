// Hand-made tar archives for the unpacking tests: entries that real tools
// refuse to write (`../x`, absolute names, links out) are the point.
import { gzipSync } from 'node:zlib';

export interface TarSpec {
  path: string;
  type?: 'file' | 'dir' | 'symlink' | 'hardlink' | 'char' | 'fifo';
  content?: string | Buffer;
  linkPath?: string;
  mode?: number;
  uid?: number;
  gid?: number;
  mtime?: number;
  /** POSIX ustar's name prefix (Go's archive/tar splits long names this way). */
  prefix?: string;
}

const FLAGS = { file: '0', hardlink: '1', symlink: '2', char: '3', dir: '5', fifo: '6' } as const;

function header(name: string, flag: string, size: number, spec: TarSpec, linkPath = ''): Buffer {
  const block = Buffer.alloc(512);
  const put = (text: string, at: number, len: number) => block.write(text, at, Math.min(len, Buffer.byteLength(text)), 'utf8');
  const octal = (n: number, at: number, len: number) => put(`${n.toString(8).padStart(len - 1, '0')}\0`, at, len);
  put(name, 0, 100);
  octal(spec.mode ?? (spec.type === 'dir' ? 0o755 : 0o644), 100, 8);
  octal(spec.uid ?? 0, 108, 8);
  octal(spec.gid ?? 0, 116, 8);
  octal(size, 124, 12);
  octal(spec.mtime ?? 1_700_000_000, 136, 12);
  block.write(flag, 156, 'latin1');
  put(linkPath, 157, 100);
  put('ustar\x0000', 257, 8);
  if (spec.prefix) put(spec.prefix, 345, 155);
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of block) sum += b;
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return block;
}

function padded(data: Buffer): Buffer {
  const pad = (512 - (data.length % 512)) % 512;
  return Buffer.concat([data, Buffer.alloc(pad)]);
}

/** A ustar archive; names or links over 100 bytes get a pax header, as GNU tar and Go write them. */
export function makeTar(entries: TarSpec[]): Buffer {
  const blocks: Buffer[] = [];
  for (const spec of entries) {
    const type = spec.type ?? 'file';
    const content = type === 'file' ? Buffer.from(spec.content ?? '') : Buffer.alloc(0);
    const linkPath = spec.linkPath ?? '';
    const name = type === 'dir' && !spec.path.endsWith('/') ? `${spec.path}/` : spec.path;
    if (Buffer.byteLength(name) > 100 || Buffer.byteLength(linkPath) > 100) {
      const record = (k: string, v: string) => {
        const body = ` ${k}=${v}\n`;
        let len = Buffer.byteLength(body);
        len += String(len).length;
        if (String(len).length !== String(len - String(len).length).length) len++;
        return `${len}${body}`;
      };
      const pax = Buffer.from(record('path', name) + (linkPath ? record('linkpath', linkPath) : ''));
      blocks.push(header('PaxHeaders/x', 'x', pax.length, { path: '' }), padded(pax));
    }
    blocks.push(header(name.slice(0, 100), FLAGS[type], content.length, spec, linkPath.slice(0, 100)));
    if (content.length) blocks.push(padded(content));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

export function makeTarGz(entries: TarSpec[]): Buffer {
  return gzipSync(makeTar(entries));
}

/** A source the unpacker reads, in chunks of `size` bytes (small chunks cross every block boundary). */
export async function* chunks(data: Buffer, size = 700): AsyncGenerator<Buffer> {
  for (let at = 0; at < data.length; at += size) yield data.subarray(at, at + size);
}
