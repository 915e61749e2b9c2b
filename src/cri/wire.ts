import protobuf from 'protobufjs/minimal.js';

/**
 * The protobuf wire format, read and written for the one-pass coders that
 * scripts/gen-plain-coders.js writes (src/cri/gen/plain.ts). They decode
 * straight into the plain objects @grpc/proto-loader gives (decode, then
 * toObject) and encode straight from them (fromObject, then encode), in the
 * same bytes. The node runs without TurboFan (src/cli/boot.ts), where every
 * interpreted step over bytes costs: the usual shapes (one-byte varints, a
 * map entry of a short key and value, a short string) take the fewest steps.
 */

type Utf8Buffer = Buffer & { utf8Slice(start: number, end: number): string; utf8Write(text: string, offset: number): number };

const TWO_32 = 4294967296;

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

/** A field's tag (its number and wire type) as a varint, in bytes. */
export function tagBytes(tag: number): number[] {
  const out: number[] = [];
  while (tag >= 0x80) {
    out.push((tag & 0x7f) | 0x80);
    tag >>>= 7;
  }
  out.push(tag);
  return out;
}

/** Bytes written into one growing buffer; a length-prefixed field reserves one byte and moves its body when the length needs more. */
export class Writer {
  buf: Utf8Buffer = Buffer.allocUnsafe(256) as Utf8Buffer;
  pos = 0;

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n)) as Utf8Buffer;
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** A tag of one byte or more (field numbers from 16 on take two). */
  tag(tag: number): void {
    if (tag < 0x80) {
      this.room(1);
      this.buf[this.pos++] = tag;
    } else this.varint(tag);
  }

  varint(value: number): void {
    this.room(5);
    const buf = this.buf;
    value >>>= 0;
    while (value >= 0x80) {
      buf[this.pos++] = (value & 0x7f) | 0x80;
      value >>>= 7;
    }
    buf[this.pos++] = value;
  }

  private varint64(lo: number, hi: number): void {
    this.room(10);
    const buf = this.buf;
    while (hi) {
      buf[this.pos++] = (lo & 0x7f) | 0x80;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    while (lo > 0x7f) {
      buf[this.pos++] = (lo & 0x7f) | 0x80;
      lo >>>= 7;
    }
    buf[this.pos++] = lo;
  }

  /** An int32 or enum number: a negative one takes ten bytes, sign-extended, as protobufjs writes it. */
  int32(value: number): void {
    if (value < 0) this.negative(value);
    else this.varint(value);
  }

  /** protobufjs's LongBits.fromNumber of a negative number, written. */
  private negative(value: number): void {
    value = -value;
    let lo = value >>> 0;
    let hi = ((value - lo) / TWO_32) >>> 0;
    hi = ~hi >>> 0;
    lo = ~lo >>> 0;
    if (++lo > 0xffffffff) {
      lo = 0;
      if (++hi > 0xffffffff) hi = 0;
    }
    this.varint64(lo, hi);
  }

  /** An int64 or uint64 given as a number, a decimal string or a Long, converted as protobufjs's fromObject converts it. */
  int64(value: unknown, unsigned: boolean): void {
    if (typeof value === 'number' && value >= 0 && value < TWO_32 && value % 1 === 0) {
      this.varint(value);
      return;
    }
    // As fromObject converts it: with long.js where protobufjs found it, else as its LongBits read a number, a decimal string or {low, high}.
    const Long = protobuf.util.Long as unknown as
      { fromValue(value: unknown, unsigned: boolean): { low: number; high: number } } | undefined;
    if (Long) {
      const long = Long.fromValue(value, unsigned);
      this.varint64(long.low >>> 0, long.high >>> 0);
    } else {
      const bits = protobuf.util.LongBits.from(typeof value === 'string' ? parseInt(value, 10) : (value as number));
      this.varint64(bits.lo >>> 0, bits.hi >>> 0);
    }
  }

  bool(value: boolean): void {
    this.room(1);
    this.buf[this.pos++] = value ? 1 : 0;
  }

  double(value: number): void {
    this.room(8);
    this.pos = this.buf.writeDoubleLE(value, this.pos);
  }

  float(value: number): void {
    this.room(4);
    this.pos = this.buf.writeFloatLE(value, this.pos);
  }

  string(text: string): void {
    const n = text.length;
    if (n === 0) {
      this.room(1);
      this.buf[this.pos++] = 0;
      return;
    }
    // Under 43 UTF-16 units the UTF-8 is under 128 bytes: its length fits the byte reserved before it.
    if (n < 43) {
      this.room(1 + 3 * n);
      const written = this.buf.utf8Write(text, this.pos + 1);
      this.buf[this.pos] = written;
      this.pos += 1 + written;
      return;
    }
    const len = Buffer.byteLength(text);
    this.varint(len);
    this.room(len);
    this.pos += this.buf.utf8Write(text, this.pos);
  }

  /** Bytes given as a Buffer, a Uint8Array, an array of numbers or base64 text, as fromObject takes them. */
  bytes(value: Uint8Array | number[] | string): void {
    const bytes = typeof value === 'string' ? base64(value) : value;
    const len = bytes.length >>> 0;
    this.varint(len);
    this.room(len);
    for (let i = 0; i < len; i++) this.buf[this.pos + i] = bytes[i];
    this.pos += len;
  }

  /** Reserves the length byte of a field about to be written; `ldelim` fills it in. */
  fork(): number {
    this.room(1);
    return this.pos++;
  }

  ldelim(at: number): void {
    const len = this.pos - at - 1;
    if (len < 0x80) {
      this.buf[at] = len;
      return;
    }
    let extra = 0;
    for (let v = len >>> 7; v; v >>>= 7) extra++;
    this.room(extra);
    this.buf.copy(this.buf, at + 1 + extra, at + 1, this.pos);
    this.pos += extra;
    let v = len;
    let i = at;
    while (v >= 0x80) {
      this.buf[i++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[i] = v;
  }

  /** A string field: TAG, then TEXT; a one-byte tag and a short text written in one step. */
  stringField(tag: number, text: string): void {
    if (tag < 0x80 && text.length < 43) {
      this.room(2 + 3 * text.length);
      const buf = this.buf;
      const at = this.pos;
      buf[at] = tag;
      const written = buf.utf8Write(text, at + 2);
      buf[at + 1] = written;
      this.pos = at + 2 + written;
      return;
    }
    this.tag(tag);
    this.string(text);
  }

  /** One map<string, string> entry under TAG: key (field 1), value (field 2); a short key and value written in one step. */
  mapEntry(tag: number, key: string, value: string): void {
    if (tag < 0x80 && key.length < 43 && value.length < 43) {
      this.room(6 + 3 * (key.length + value.length));
      const buf = this.buf;
      const at = this.pos + 1;
      buf[at - 1] = tag;
      let p = at + 1;
      buf[p] = 10;
      const keyBytes = buf.utf8Write(key, p + 2);
      buf[p + 1] = keyBytes;
      p += 2 + keyBytes;
      buf[p] = 18;
      const valueBytes = buf.utf8Write(value, p + 2);
      buf[p + 1] = valueBytes;
      this.pos = p + 2 + valueBytes;
      this.ldelim(at);
      return;
    }
    this.tag(tag);
    const at = this.fork();
    this.stringField(10, key);
    this.stringField(18, value);
    this.ldelim(at);
  }

  finish(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

/** Base64 text as protobufjs's fromObject decodes it into bytes. */
function base64(text: string): Uint8Array {
  const out = new Uint8Array(protobuf.util.base64.length(text));
  protobuf.util.base64.decode(text, out, 0);
  return out;
}

/** The error protobufjs's fromObject throws for a value of the wrong shape: `.runtime.v1.Mount.hostPath: object expected`. */
export function shapeError(where: string, expected: 'object' | 'array'): TypeError {
  return new TypeError(`${where}: ${expected} expected`);
}

export { longToNumber };
