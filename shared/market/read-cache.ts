/**
 * Bounded in-process caches of what a warm function instance has read (issue 15 point 6: cost). A Lambda
 * instance serves many requests in turn, so pages that have not changed since it last read them (same merge
 * `seq`, same compaction mark, same hour) are answered from memory instead of being read again. Each cache is
 * least-recently-used and bounded by its entries' bytes; keys must name everything the value depends on
 * (store scope, market, version). `clearReadCaches()` empties them all: a fresh instance (benches, tests).
 */

const caches = new Set<{ clear(): void }>();

export class ReadCache<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private bytes = 0;

  /** `sizeOf` is the value's approximate bytes in memory; the cache holds at most `maxBytes` of them. */
  constructor(
    readonly name: string,
    private readonly maxBytes: number,
    private readonly sizeOf: (value: V) => number,
  ) {
    caches.add(this);
  }

  get(key: string): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    // Map order is insertion order: re-inserting makes the entry the most recently used.
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit.value;
  }

  set(key: string, value: V): void {
    const bytes = Math.max(1, this.sizeOf(value));
    this.delete(key);
    if (bytes > this.maxBytes) return;
    this.entries.set(key, { value, bytes });
    this.bytes += bytes;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= e.bytes;
    }
  }

  delete(key: string): void {
    const old = this.entries.get(key);
    if (!old) return;
    this.entries.delete(key);
    this.bytes -= old.bytes;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  get size(): number {
    return this.entries.size;
  }

  get heldBytes(): number {
    return this.bytes;
  }
}

/** Registers another process-wide cache (a plain Map, say) so `clearReadCaches()` empties it too. */
export function registerReadCache(cache: { clear(): void }): void {
  caches.add(cache);
}

/** Empties every read cache of this process, as a fresh function instance starts. */
export function clearReadCaches(): void {
  for (const c of caches) c.clear();
}
