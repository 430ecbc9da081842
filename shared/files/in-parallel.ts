/** Reads and writes of many pages or files: a few at a time, so one job neither serializes nor floods the store. */

/** How many a job has in flight at once. */
export const PARALLEL = 8;

/** Maps `fn` over `items`, at most `limit` at a time, keeping order. */
export async function inParallel<T, R>(items: readonly T[], fn: (item: T) => Promise<R>, limit = PARALLEL): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
