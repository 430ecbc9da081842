/**
 * The in-memory fakes' storage: items by partition and sort key, sort keys kept in order as DynamoDB keeps
 * them, every item copied in and out (a caller never holds the stored object, as with a real table).
 */
export type Item = Record<string, unknown>;

export interface Range {
  /** Sort keys at or after (`from`) / at or before (`to`) / above (`after`) / below (`before`) / starting with (`prefix`). */
  from?: string;
  to?: string;
  after?: string;
  before?: string;
  prefix?: string;
  /** Newest (highest sort key) first. */
  reverse?: boolean;
}

const copy = <T>(v: T): T => structuredClone(v);

export class MemoryTable {
  private readonly parts = new Map<string, Map<string, Item>>();

  get(pk: string, sk: string): Item | undefined {
    const item = this.parts.get(pk)?.get(sk);
    return item === undefined ? undefined : copy(item);
  }

  put(pk: string, sk: string, item: Item): void {
    let part = this.parts.get(pk);
    if (!part) {
      part = new Map();
      this.parts.set(pk, part);
    }
    part.set(sk, copy(item));
  }

  delete(pk: string, sk: string): Item | undefined {
    const part = this.parts.get(pk);
    const old = part?.get(sk);
    part?.delete(sk);
    if (part?.size === 0) this.parts.delete(pk);
    return old;
  }

  /** The items of a partition in sort-key order, within `range`. */
  query(pk: string, range: Range = {}): Array<Item & { sk: string }> {
    const part = this.parts.get(pk);
    if (!part) return [];
    const keys = [...part.keys()]
      .filter(
        (k) =>
          (range.from === undefined || k >= range.from) &&
          (range.to === undefined || k <= range.to) &&
          (range.after === undefined || k > range.after) &&
          (range.before === undefined || k < range.before) &&
          (range.prefix === undefined || k.startsWith(range.prefix)),
      )
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (range.reverse) keys.reverse();
    return keys.map((k) => ({ ...copy(part.get(k) as Item), sk: k }));
  }

  /** Every partition key that starts with `prefix`. */
  partitions(prefix: string): string[] {
    return [...this.parts.keys()].filter((k) => k.startsWith(prefix));
  }

  deletePartition(pk: string): number {
    const n = this.parts.get(pk)?.size ?? 0;
    this.parts.delete(pk);
    return n;
  }
}
