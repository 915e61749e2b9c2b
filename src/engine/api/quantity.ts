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
