/**
 * `Promise.all` for a merge's parallel writes that waits for every write before it throws the first failure: a failed merge is received
 * again, and a write of this attempt still in flight must not land after the repeat's.
 */
export async function settled<T extends readonly unknown[]>(writes: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const out = await Promise.allSettled(writes);
  const failed = out.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return out.map((r) => (r as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}
