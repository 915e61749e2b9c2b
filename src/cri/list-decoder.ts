import type { Container__Output } from './gen/runtime/v1/Container.js';
import type { PodSandbox__Output } from './gen/runtime/v1/PodSandbox.js';

/**
 * Decoders for the two list answers a node reads most (ListContainers and
 * ListPodSandbox: every relist, every housekeeping pass), written for their
 * messages alone. They give what @grpc/proto-loader gives with knode's
 * loader options (every field present, enums as names, int64 as numbers)
 * in less time: an answer is mostly short strings (the kubelet's labels),
 * over which the generic decoder makes two passes, decode and then toObject
 * (bench/notes/cri-and-startup.md).
 * Fields they do not know are skipped, as any protobuf reader skips them.
 * The node runs without TurboFan (src/cli/boot.ts), where every step of a
 * loop over bytes costs: the usual shapes (one-byte varints, a map entry of
 * a short key and value) are read with as few steps as can be.
 */

const CONTAINER_STATES = ['CONTAINER_CREATED', 'CONTAINER_RUNNING', 'CONTAINER_EXITED', 'CONTAINER_UNKNOWN'] as const;
const SANDBOX_STATES = ['SANDBOX_READY', 'SANDBOX_NOTREADY'] as const;

type Utf8Slicing = Buffer & { utf8Slice(start: number, end: number): string };

/** BUF's own slice decoder, bound to it, where Node has one (toString's checks cost as much as decoding a short string); else toString. */
function utf8Of(buf: Buffer): (start: number, end: number) => string {
  const own = (buf as Partial<Utf8Slicing>).utf8Slice;
  return own ? own.bind(buf) : (start, end) => buf.toString('utf8', start, end);
}

class Reader {
  pos = 0;
  readonly slice: (start: number, end: number) => string;

  constructor(readonly buf: Buffer) {
    this.slice = utf8Of(buf);
  }

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
    let shift = 0;
    for (;;) {
      if (this.pos >= buf.length) throw new RangeError('protobuf: truncated varint');
      const b = buf[this.pos++];
      if (shift < 28) result |= (b & 0x7f) << shift;
      else result += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return shift < 28 ? result >>> 0 : result;
      shift += 7;
      if (shift > 63) throw new RangeError('protobuf: varint too long');
    }
  }

  /** An int64 as a number (as Long#toNumber gives it): its low and high 32 bits, the high ones signed. */
  int64(): number {
    const buf = this.buf;
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= buf.length) throw new RangeError('protobuf: truncated varint');
      const b = buf[this.pos++];
      const bits = b & 0x7f;
      if (i < 4) lo |= bits << (7 * i);
      else if (i === 4) {
        lo |= bits << 28;
        hi |= bits >>> 4;
      } else hi |= bits << (7 * i - 32);
      if (b < 0x80) return (hi | 0) * 4294967296 + (lo >>> 0);
    }
    throw new RangeError('protobuf: varint too long');
  }

  end(): number {
    const len = this.varint();
    const end = this.pos + len;
    if (end > this.buf.length) throw new RangeError('protobuf: length past the end');
    return end;
  }

  string(): string {
    const end = this.end();
    const start = this.pos;
    this.pos = end;
    return this.slice(start, end);
  }

  skip(wireType: number): void {
    switch (wireType) {
      case 0:
        this.varint();
        return;
      case 1:
        this.pos += 8;
        return;
      case 2:
        this.pos = this.end();
        return;
      case 5:
        this.pos += 4;
        return;
      default:
        throw new RangeError(`protobuf: wire type ${wireType} cannot be skipped`);
    }
  }

  /** One map<string, string> entry into OUT. */
  mapEntry(out: Record<string, string>): void {
    const end = this.end();
    // The usual entry, read straight from its bytes: the key (field 1), then the value (field 2), each under 128 bytes.
    const buf = this.buf;
    const start = this.pos;
    if (buf[start] === 10 && buf[start + 1] < 0x80) {
      const keyEnd = start + 2 + buf[start + 1];
      if (buf[keyEnd] === 18 && keyEnd + 2 + buf[keyEnd + 1] === end) {
        out[this.slice(start + 2, keyEnd)] = this.slice(keyEnd + 2, end);
        this.pos = end;
        return;
      }
    }
    let key = '';
    let value = '';
    while (this.pos < end) {
      const tag = this.varint();
      if (tag === 10) key = this.string();
      else if (tag === 18) value = this.string();
      else this.skip(tag & 7);
    }
    out[key] = value;
  }
}

function containerMetadata(r: Reader): Container__Output['metadata'] {
  const end = r.end();
  const m = { name: '', attempt: 0 };
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === 10) m.name = r.string();
    else if (tag === 16) m.attempt = r.int64() >>> 0;
    else r.skip(tag & 7);
  }
  return m;
}

function imageSpec(r: Reader): Container__Output['image'] {
  const end = r.end();
  const spec = { image: '', annotations: {} as Record<string, string>, userSpecifiedImage: '', runtimeHandler: '', imageRef: '' };
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === 10) spec.image = r.string();
    else if (tag === 18) r.mapEntry(spec.annotations);
    else if (tag === 146) spec.userSpecifiedImage = r.string();
    else if (tag === 154) spec.runtimeHandler = r.string();
    else if (tag === 162) spec.imageRef = r.string();
    else r.skip(tag & 7);
  }
  return spec;
}

function container(r: Reader): Container__Output {
  const end = r.end();
  const c: Container__Output = {
    id: '',
    podSandboxId: '',
    metadata: null,
    image: null,
    imageRef: '',
    state: 'CONTAINER_CREATED',
    createdAt: 0,
    labels: {},
    annotations: {},
    imageId: '',
  };
  while (r.pos < end) {
    const tag = r.varint();
    switch (tag) {
      case 10:
        c.id = r.string();
        break;
      case 18:
        c.podSandboxId = r.string();
        break;
      case 26:
        c.metadata = containerMetadata(r);
        break;
      case 34:
        c.image = imageSpec(r);
        break;
      case 42:
        c.imageRef = r.string();
        break;
      case 48:
        c.state = enumName(CONTAINER_STATES, r.int64() | 0) as Container__Output['state'];
        break;
      case 56:
        c.createdAt = r.int64();
        break;
      case 66:
        r.mapEntry(c.labels);
        break;
      case 74:
        r.mapEntry(c.annotations);
        break;
      case 82:
        c.imageId = r.string();
        break;
      default:
        r.skip(tag & 7);
    }
  }
  return c;
}

function sandboxMetadata(r: Reader): PodSandbox__Output['metadata'] {
  const end = r.end();
  const m = { name: '', uid: '', namespace: '', attempt: 0 };
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === 10) m.name = r.string();
    else if (tag === 18) m.uid = r.string();
    else if (tag === 26) m.namespace = r.string();
    else if (tag === 32) m.attempt = r.int64() >>> 0;
    else r.skip(tag & 7);
  }
  return m;
}

function sandbox(r: Reader): PodSandbox__Output {
  const end = r.end();
  const s: PodSandbox__Output = {
    id: '',
    metadata: null,
    state: 'SANDBOX_READY',
    createdAt: 0,
    labels: {},
    annotations: {},
    runtimeHandler: '',
  };
  while (r.pos < end) {
    const tag = r.varint();
    switch (tag) {
      case 10:
        s.id = r.string();
        break;
      case 18:
        s.metadata = sandboxMetadata(r);
        break;
      case 24:
        s.state = enumName(SANDBOX_STATES, r.int64() | 0) as PodSandbox__Output['state'];
        break;
      case 32:
        s.createdAt = r.int64();
        break;
      case 42:
        r.mapEntry(s.labels);
        break;
      case 50:
        r.mapEntry(s.annotations);
        break;
      case 58:
        s.runtimeHandler = r.string();
        break;
      default:
        r.skip(tag & 7);
    }
  }
  return s;
}

/** An enum's name; a number the proto does not name stays a number, as proto-loader leaves it. */
function enumName(names: readonly string[], n: number): string {
  return names[n] ?? (n as unknown as string);
}

/** The items of a list answer: field 1, repeated; anything else skipped. */
function items<T>(buf: Buffer, item: (r: Reader) => T): T[] {
  const r = new Reader(buf);
  const out: T[] = [];
  while (r.pos < buf.length) {
    const tag = r.varint();
    if (tag === 10) out.push(item(r));
    else r.skip(tag & 7);
  }
  if (r.pos !== buf.length) throw new RangeError('protobuf: message ran past its end');
  return out;
}

export function decodeListContainersResponse(buf: Buffer): { containers: Container__Output[] } {
  return { containers: items(buf, container) };
}

export function decodeListPodSandboxResponse(buf: Buffer): { items: PodSandbox__Output[] } {
  return { items: items(buf, sandbox) };
}
