/**
 * Runs FN over ITEMS, at most LIMIT at once, in order of the items. After a
 * failure no further item is started; every call under way finishes before
 * the first failure is thrown, so nothing is still at work when the caller
 * cleans up.
 */
export async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (!failure && next < items.length) {
      const index = next++;
      try {
        await fn(items[index], index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failure) throw failure.error;
}
