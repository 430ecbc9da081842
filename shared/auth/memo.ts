/** A small in-memory cache with expiry on the service clock: the layer in front of DynamoDB caches within one instance. */
export class Memo<V> {
  private readonly entries = new Map<string, { until: number; value: V }>();

  constructor(private readonly maxEntries = 10_000) {}

  get(key: string, now: number): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.until <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: string, value: V, until: number): void {
    // Map keeps insertion order: dropping the first entry evicts the oldest.
    if (this.entries.size >= this.maxEntries && !this.entries.has(key)) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { until, value });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}

/** Shares one in-flight lookup per key: a burst of requests with one credential asks the provider once. */
export class SingleFlight<V> {
  private readonly inflight = new Map<string, Promise<V>>();

  run(key: string, lookup: () => Promise<V>): Promise<V> {
    const pending = this.inflight.get(key);
    if (pending) return pending;
    const p = lookup().finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }
}
