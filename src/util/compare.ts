/**
 * Orders two strings as Go's `<` does (sort.Strings, slices.Sort): by their
 * code units, not by locale. The kubelet and the controllers order names,
 * keys and timestamps that way. And String.prototype.localeCompare loads
 * ICU's collation data, about 3 MiB of a process's memory for good.
 */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
