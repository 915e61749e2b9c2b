/**
 * The protobuf wire format, read for the one-pass coders that
 * scripts/gen-plain-coders.js writes (src/cri/gen/plain.ts; their writer is
 * wire-writer.ts). They decode
 * straight into the plain objects @grpc/proto-loader gives (decode, then
 * toObject) and encode straight from them (fromObject, then encode), in the
 * same bytes. The node runs without TurboFan (src/cli/boot.ts), where every
 * interpreted step over bytes costs: the usual shapes (one-byte varints, a
 * map entry of a short key and value, a short string) take the fewest steps.
 */

export type Utf8Buffer = Buffer & { utf8Slice(start: number, end: number): string; utf8Write(text: string, offset: number): number };

export const TWO_32 = 4294967296;

/** Low and high 32 bits of an int64 or uint64, as protobufjs's LongBits#toNumber reads them. */
function longToNumber(lo: number, hi: number, unsigned: boolean): number {
  if (!unsigned && hi >>> 31) {
    const nlo = (~lo + 1) >>> 0;
    let nhi = ~hi >>> 0;
    if (!nlo) nhi = (nhi + 1) >>> 0;
    return -(nlo + nhi * TWO_32);
  }
  return (lo >>> 0) + (hi >>> 0) * TWO_32;
}

export class Reader {
  pos = 0;
  readonly buf: Buffer;
  readonly slice: (start: number, end: number) => string;

  constructor(bytes: Uint8Array) {
    const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.buf = buf;
    // Buffer's own slice decoder where Node has one: toString's checks cost as much as decoding a short string.
    const own = (buf as Partial<Utf8Buffer>).utf8Slice;
    this.slice = own ? own.bind(buf) : (start, end) => buf.toString('utf8', start, end);
  }

  /** A varint's low 32 bits, unsigned: tags, lengths, uint32, and (with `| 0`) int32 and enums. */
  varint(): number {
    // Most are one byte: tags, and lengths under 128.
    const b = this.buf[this.pos];
    if (b < 0x80) {
      this.pos++;
      return b;
    }
    return this.longVarint();
  }

  private longVarint(): number {
    const buf = this.buf;
    let result = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= buf.length) throw new RangeError('index out of range');
      const b = buf[this.pos++];
      if (i < 5) result |= (b & 0x7f) << (7 * i);
      if (b < 0x80) return result >>> 0;
    }
    throw new Error('invalid varint encoding');
  }

  /** An enum's name, by NAMES; a number the proto does not name stays a number, as toObject leaves it. */
  enumName(names: Map<number, string>): string | number {
    const n = this.varint() | 0;
    const name = names.get(n);
    return name === undefined ? n : name;
  }

  /** An int64 (or, UNSIGNED, a uint64) as a number, as protobufjs with `longs: Number` gives it. */
  int64(unsigned: boolean): number {
    const buf = this.buf;
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= buf.length) throw new RangeError('index out of range');
      const b = buf[this.pos++];
      const bits = b & 0x7f;
      if (i < 4) lo |= bits << (7 * i);
      else if (i === 4) {
        lo |= bits << 28;
        hi |= bits >>> 4;
      } else hi |= bits << (7 * i - 32);
      if (b < 0x80) return hi >= 0 ? (lo >>> 0) + hi * TWO_32 : longToNumber(lo, hi, unsigned);
    }
    throw new Error('invalid varint encoding');
  }

  double(): number {
    if (this.pos + 8 > this.buf.length) throw new RangeError('index out of range');
    const value = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return value;
  }

  float(): number {
    if (this.pos + 4 > this.buf.length) throw new RangeError('index out of range');
    const value = this.buf.readFloatLE(this.pos);
    this.pos += 4;
    return value;
  }

  /** A length prefix, read: where the field it prefixes ends. */
  end(): number {
    const len = this.varint();
    const end = this.pos + len;
    if (end > this.buf.length) throw new RangeError('index out of range');
    return end;
  }

  string(): string {
    const end = this.end();
    const start = this.pos;
    this.pos = end;
    return this.slice(start, end);
  }

  /** A bytes field: a view of the message's buffer, as protobufjs gives it. */
  bytes(): Buffer {
    const end = this.end();
    const start = this.pos;
    this.pos = end;
    return this.buf.subarray(start, end);
  }

  /** Fails unless the message or field just read ended where its length said. */
  done(end: number): void {
    if (this.pos !== end) throw new RangeError('index out of range');
  }

  skip(wireType: number): void {
    switch (wireType) {
      case 0:
        this.longVarint();
        return;
      case 1:
        this.pos += 8;
        break;
      case 2:
        this.pos = this.end();
        return;
      case 3:
        for (;;) {
          const tag = this.varint();
          if ((tag & 7) === 4) return;
          this.skip(tag & 7);
        }
      case 5:
        this.pos += 4;
        break;
      default:
        throw new Error(`invalid wire type ${wireType} at offset ${this.pos}`);
    }
    if (this.pos > this.buf.length) throw new RangeError('index out of range');
  }

  /** One map<string, string> entry into OUT. */
  mapEntry(out: Record<string, string>): void {
    const end = this.end();
    // The usual entry, read straight from its bytes: the key (field 1), then the value (field 2), each under 128 bytes.
    const buf = this.buf;
    const start = this.pos;
    let key = '';
    let value = '';
    if (buf[start] === 10 && buf[start + 1] < 0x80 && buf[start + 2 + buf[start + 1]] === 18) {
      const keyEnd = start + 2 + buf[start + 1];
      if (keyEnd + 2 + buf[keyEnd + 1] === end) {
        key = this.slice(start + 2, keyEnd);
        value = this.slice(keyEnd + 2, end);
        this.pos = end;
      }
    }
    if (this.pos !== end) {
      while (this.pos < end) {
        const tag = this.varint();
        if (tag === 10) key = this.string();
        else if (tag === 18) value = this.string();
        else this.skip(tag & 7);
      }
      this.done(end);
    }
    if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    else out[key] = value;
  }
}
