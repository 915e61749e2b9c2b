import protobuf from 'protobufjs/minimal.js';
import { TWO_32, type Utf8Buffer } from './wire.js';

/**
 * The writer of the one-pass encoders (src/cri/gen/plain.ts), which give the
 * bytes protobufjs's fromObject and encode give for the same object. Bytes go
 * into one growing buffer; a length-prefixed field reserves one byte and moves
 * its body when the length needs more.
 */
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
