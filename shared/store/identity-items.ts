/** Helpers shared by the identity adapters: TTL handling (DynamoDB deletes lazily) and condition failures. */

/** The `ttl` attribute (Unix seconds, rounded up so an item never dies early) of an item that expires at `ms`. */
export const ttlAt = (ms: number): number => Math.ceil(ms / 1000);

/** Whether an item is still alive at `now`: DynamoDB TTL is lazy (DynamoDB Local never deletes), so reads check. */
export const isLive = (item: Record<string, unknown> | undefined, now: number): item is Record<string, unknown> =>
  item !== undefined && (typeof item.ttl !== 'number' || item.ttl * 1000 > now);

/** A conditional write or transaction that lost (the condition did not hold). */
export function isConditionFailure(err: unknown): boolean {
  const name = (err as { name?: string } | null)?.name;
  return name === 'ConditionalCheckFailedException' || name === 'TransactionCanceledException';
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
export const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
