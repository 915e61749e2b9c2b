import { createInflate, constants as zlib, type Inflate } from 'node:zlib';

/** SPDY/3.1 header blocks (shared by the runtime's streaming server and knode's streaming client). */

/** SPDY/3's header compression dictionary: these words, each after its length as a 32-bit number, then the text below. */
const DICTIONARY_WORDS = [
  ...'options head post put delete trace accept accept-charset accept-encoding accept-language accept-ranges age allow'.split(' '),
  ...'authorization cache-control connection content-base content-encoding content-language content-length content-location'.split(' '),
  ...'content-md5 content-range content-type date etag expect expires from host if-match if-modified-since if-none-match'.split(' '),
  ...'if-range if-unmodified-since last-modified location max-forwards pragma proxy-authenticate proxy-authorization range'.split(' '),
  ...'referer retry-after server te trailer transfer-encoding upgrade user-agent vary via warning www-authenticate method get'.split(' '),
  'status',
  '200 OK',
  'version',
  'HTTP/1.1',
  'url',
  'public',
  'set-cookie',
  'keep-alive',
  'origin',
];
const DICTIONARY_TEXT =
  '100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505' +
  '203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized403 Forbidden' +
  '404 Not Found500 Internal Server Error501 Not Implemented503 Service Unavailable' +
  'Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT' +
  'chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,text/javascript,' +
  'publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.';

export const HEADER_DICTIONARY: Buffer = Buffer.concat([
  ...DICTIONARY_WORDS.flatMap((word) => [uint32(word.length), Buffer.from(word, 'latin1')]),
  Buffer.from(DICTIONARY_TEXT, 'latin1'),
]);

export function uint32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

/** A decoded header block: lower-case names, values split at NUL. */
export type SpdyHeaders = Map<string, string[]>;

export function decodeHeaderBlock(block: Buffer): SpdyHeaders {
  const headers: SpdyHeaders = new Map();
  let at = 0;
  const take = (): Buffer => {
    if (at + 4 > block.length) throw new Error('header block cut short');
    const n = block.readUInt32BE(at);
    at += 4;
    if (at + n > block.length) throw new Error('header block cut short');
    const piece = block.subarray(at, at + n);
    at += n;
    return piece;
  };
  if (block.length < 4) throw new Error('header block cut short');
  const pairs = block.readUInt32BE(0);
  at = 4;
  for (let i = 0; i < pairs; i++) {
    const name = take().toString('latin1').toLowerCase();
    const values = take().toString('utf8').split('\0');
    headers.set(name, [...(headers.get(name) ?? []), ...values]);
  }
  return headers;
}

export function encodeHeaderBlock(headers: Record<string, string>): Buffer {
  const entries = Object.entries(headers);
  return Buffer.concat([
    uint32(entries.length),
    ...entries.flatMap(([k, v]) => [
      uint32(Buffer.byteLength(k)),
      Buffer.from(k.toLowerCase()),
      uint32(Buffer.byteLength(v)),
      Buffer.from(v),
    ]),
  ]);
}

function adler32(data: Buffer): number {
  let a = 1;
  let b = 0;
  for (const byte of data) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/**
 * Header blocks sent on one connection form one zlib stream with the SPDY
 * dictionary. They are written as stored (uncompressed) deflate blocks: a
 * valid continuation for any inflater, and made without an asynchronous
 * compressor. The first carries the zlib header naming the dictionary.
 */
export class HeaderWriter {
  private started = false;
  encode(block: Buffer): Buffer {
    const parts: Buffer[] = [];
    if (!this.started) {
      // CMF 0x78 (deflate, 32 KiB window), FLG 0x20 (FDICT; 0x7820 is a multiple of 31), then the dictionary's Adler-32.
      parts.push(Buffer.from([0x78, 0x20]), uint32(adler32(HEADER_DICTIONARY)));
      this.started = true;
    }
    for (let at = 0; at < block.length; at += 0xffff) parts.push(storedBlock(block.subarray(at, at + 0xffff)));
    // An empty stored block ends each header block, as a zlib sync flush does: an inflater hands out what it has when it reaches one.
    parts.push(storedBlock(Buffer.alloc(0)));
    return Buffer.concat(parts);
  }
}

/** A non-final stored deflate block: its header byte, LEN and NLEN, and the bytes as they are. */
function storedBlock(data: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt16LE(data.length, 1);
  head.writeUInt16LE(~data.length & 0xffff, 3);
  return Buffer.concat([head, data]);
}

/** The peer's header blocks: one zlib stream, inflated block by block (in frame order, as the connection handles frames). */
export class HeaderReader {
  private readonly inflater: Inflate = createInflate({ dictionary: HEADER_DICTIONARY });
  private out: Buffer[] = [];
  private failure: Error | undefined;
  constructor() {
    this.inflater.on('data', (chunk: Buffer) => this.out.push(chunk));
    this.inflater.on('error', (err) => (this.failure = err));
  }
  read(block: Buffer): Promise<SpdyHeaders> {
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      this.inflater.write(block);
      this.inflater.flush(zlib.Z_SYNC_FLUSH, () => {
        if (this.failure) return reject(this.failure);
        const raw = Buffer.concat(this.out);
        this.out = [];
        try {
          resolve(decodeHeaderBlock(raw));
        } catch (err) {
          reject(err as Error);
        }
      });
    });
  }
  close(): void {
    this.inflater.close();
  }
}
