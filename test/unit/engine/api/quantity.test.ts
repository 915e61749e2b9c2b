// Quantity.String and Quantity.Cmp as apimachinery's resource.Quantity gives
// them: the form the apiserver prints a quantity in, in its messages.
import { describe, expect, it } from 'vitest';
import { canonicalQuantity, compareQuantities } from '../../../../src/engine/api/quantity.js';

describe('canonicalQuantity', () => {
  it.each<[string | number, string]>([
    ['2', '2'],
    ['2000m', '2'],
    ['1500m', '1500m'],
    ['1.5', '1500m'],
    [0.25, '250m'],
    ['1000', '1k'],
    ['1000000', '1M'],
    ['1024Mi', '1Gi'],
    ['2000Mi', '2000Mi'],
    ['0.5Gi', '512Mi'],
    ['512', '512'],
    ['1.1Ki', '1126400m'],
    ['1e3', '1e3'],
    ['1E3', '1e3'],
    ['1G', '1G'],
    ['100u', '100u'],
    ['0.0000000001', '1n'],
    ['0', '0'],
    ['0Mi', '0'],
  ])('%j → %s', (q, canonical) => {
    expect(canonicalQuantity(q)).toBe(canonical);
  });
});

describe('compareQuantities', () => {
  it.each<[string | number, string | number, number | undefined]>([
    ['2', '1', 1],
    ['1000m', 1, 0],
    ['1Gi', '1G', 1],
    ['1023Mi', '1Gi', -1],
    ['1e3', '1k', 0],
    ['lots', '1', undefined],
  ])('%j against %j: %s', (a, b, cmp) => {
    expect(compareQuantities(a, b)).toBe(cmp);
  });
});
