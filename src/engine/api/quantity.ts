// Kubernetes resource quantities ("500m", "64Mi", "1e3"), as the API reads them.

/** CPU quantity in millicores, rounded up as Kubernetes does ("500m", "1.5", 2, "100u" is 1m). */
export function parseCpu(q: string | number): number {
  // The epsilon keeps float noise (0.1 * 1000 = 100.00000000000001) from rounding up; || 0 turns -0 into 0.
  return Math.ceil(parseQuantity(q) * 1000 - 1e-9) || 0;
}

const SUFFIXES: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

const QUANTITY = /^([+-]?[0-9]*\.?[0-9]+|[+-]?[0-9]+\.)(?:[eE]([+-]?[0-9]+)|([a-zA-Z]{1,2}))?$/;

/**
 * Whether a value is a quantity the API accepts for a resource: a finite,
 * non-negative number, or a string of digits with a known suffix or a decimal
 * exponent. Why not, otherwise.
 */
export function quantityProblem(q: unknown): string | undefined {
  if (typeof q === 'number') return Number.isFinite(q) && q >= 0 ? undefined : 'must be a finite, non-negative quantity';
  if (typeof q !== 'string')
    return `expected a quantity such as "100m" or "64Mi", got ${q === null ? 'null' : Array.isArray(q) ? 'array' : typeof q}`;
  const match = QUANTITY.exec(q.trim());
  if (!match || (match[3] !== undefined && SUFFIXES[match[3]] === undefined))
    return "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  const value = parseQuantity(q);
  if (!Number.isFinite(value)) return 'must be a finite quantity';
  if (value < 0) return 'must be greater than or equal to 0';
  return undefined;
}

/** A Kubernetes quantity as a number: binary and decimal suffixes, or a decimal exponent ("1e3", "1E3"). 0 when malformed. */
export function parseQuantity(q: string | number): number {
  if (typeof q === 'number') return q;
  const match = QUANTITY.exec(q.trim());
  if (!match) return 0;
  const value = Number(match[1]);
  if (match[2] !== undefined) return value * 10 ** Number(match[2]);
  if (match[3] === undefined) return value;
  const factor = SUFFIXES[match[3]];
  return factor === undefined ? 0 : value * factor;
}

/** Memory quantity in bytes, rounded up ("64Mi", "1G", 1024, "1e3"). */
export function parseMemory(q: string | number): number {
  return Math.ceil(parseQuantity(q) - 1e-9) || 0;
}

/** A quantity exactly, as resource.Quantity holds it: value = mantissa × 10^scale, and the format it was written in. */
interface ExactQuantity {
  mantissa: bigint;
  scale: number;
  format: 'DecimalSI' | 'BinarySI' | 'DecimalExponent';
}

const DECIMAL_EXPONENTS: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_POWERS: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };

/** A quantity as resource.ParseQuantity reads it, rounded up to nano units as it rounds; undefined when malformed. */
function exactQuantity(q: string | number): ExactQuantity | undefined {
  const text = typeof q === 'number' ? String(q) : q.trim();
  const match = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+)|([a-zA-Z]{0,2}))$/.exec(text);
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) return undefined;
  const [, sign, whole, fraction = '', exponent, suffix = ''] = match;
  let mantissa = BigInt(`${whole}${fraction}` || '0');
  let scale = -fraction.length;
  let format: ExactQuantity['format'] = 'DecimalSI';
  if (exponent !== undefined) {
    scale += Number(exponent);
    format = 'DecimalExponent';
  } else if (suffix in BINARY_POWERS) {
    mantissa *= 1024n ** BigInt(BINARY_POWERS[suffix]);
    format = 'BinarySI';
  } else if (suffix in DECIMAL_EXPONENTS) {
    scale += DECIMAL_EXPONENTS[suffix];
  } else return undefined;
  if (scale < -9) {
    // Quantities keep nano precision at most, rounding up (away from zero).
    const divisor = 10n ** BigInt(-9 - scale);
    mantissa = mantissa / divisor + (mantissa % divisor === 0n ? 0n : 1n);
    scale = -9;
  }
  return { mantissa: sign === '-' ? -mantissa : mantissa, scale, format };
}

/** Quantity.Cmp: -1, 0 or 1; undefined when either is malformed. */
export function compareQuantities(a: string | number, b: string | number): number | undefined {
  const [x, y] = [exactQuantity(a), exactQuantity(b)];
  if (!x || !y) return undefined;
  const scale = Math.min(x.scale, y.scale);
  const [vx, vy] = [x.mantissa * 10n ** BigInt(x.scale - scale), y.mantissa * 10n ** BigInt(y.scale - scale)];
  return vx < vy ? -1 : vx > vy ? 1 : 0;
}

/** Quantity.String: the canonical form the apiserver prints ("2000m" is "2", "1024Mi" is "1Gi", "1.5" is "1500m"). */
export function canonicalQuantity(q: string | number): string {
  const exact = exactQuantity(q);
  if (!exact) return String(q);
  let { mantissa, scale, format } = exact;
  if (mantissa === 0n) return '0';
  if (format === 'BinarySI') {
    const value = scale >= 0 ? mantissa * 10n ** BigInt(scale) : undefined;
    const whole = scale < 0 && mantissa % 10n ** BigInt(-scale) === 0n ? mantissa / 10n ** BigInt(-scale) : value;
    if (whole === undefined || (whole > -1024n && whole < 1024n)) format = 'DecimalSI';
    else {
      let amount = whole;
      let power = 0;
      while (power < 6 && amount % 1024n === 0n) {
        amount /= 1024n;
        power++;
      }
      return `${amount}${Object.keys(BINARY_POWERS)[power - 1] ?? ''}`;
    }
  }
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    scale++;
  }
  const extra = ((scale % 3) + 3) % 3;
  mantissa *= 10n ** BigInt(extra);
  scale -= extra;
  if (format === 'DecimalExponent') return scale === 0 ? `${mantissa}` : `${mantissa}e${scale}`;
  const suffix = Object.entries(DECIMAL_EXPONENTS).find(([, e]) => e === scale)?.[0];
  return suffix !== undefined ? `${mantissa}${suffix}` : `${mantissa}e${scale}`;
}

/**
 * A size in bytes written as a quantity ("10Mi", "512Ki", "1G", -1), as the
 * kubelet's containerLogMaxSize is read; negative sizes are allowed (they
 * turn the feature off). Why not, for a malformed or fractional one.
 */
export function parseByteQuantity(q: string | number): { bytes: number } | { problem: string } {
  const text = String(q).trim();
  const sign = text.startsWith('-') ? -1 : 1;
  const problem = quantityProblem(sign < 0 ? text.slice(1) : text);
  if (problem) return { problem };
  const bytes = sign * parseQuantity(text.replace(/^-/, ''));
  if (!Number.isSafeInteger(bytes)) return { problem: 'must be a whole number of bytes' };
  return { bytes };
}

/** Bytes as a quantity, in the largest binary unit that divides them ("10Mi", "1536", "-1"). */
export function formatByteQuantity(bytes: number): string {
  if (bytes <= 0) return String(bytes);
  const units = ['Ei', 'Pi', 'Ti', 'Gi', 'Mi', 'Ki'] as const;
  for (const unit of units) {
    const factor = SUFFIXES[unit];
    if (bytes % factor === 0) return `${bytes / factor}${unit}`;
  }
  return String(bytes);
}
