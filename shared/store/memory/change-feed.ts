/**
 * The memory change feed: the in-memory fakes publish to it on the writes the table's stream would carry
 * (shared/ports/changes.ts), and it delivers them to its listeners after the write, in batches, as the stream
 * delivers records to its consumer: never inside the writer's call, so a consumer's own writes do not nest in
 * the write that caused them. `drain()` waits until every event published so far (and every event its
 * listeners published in turn) was delivered.
 */
import type { ChangeEvent, ChangeFeed, ChangeListener, ChangeSink } from '../../ports/changes';

const copy = <T>(v: T): T => structuredClone(v);

export class MemoryChangeFeed implements ChangeFeed, ChangeSink {
  private readonly listeners = new Set<ChangeListener>();
  private pending: ChangeEvent[] = [];
  private delivering: Promise<void> | null = null;

  constructor(
    /** Events per batch (the stream consumer's batch size). */
    private readonly batchSize = 100,
    /** A listener that throws: told here, the batch counts as delivered (the stream's consumer logs and goes on). */
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(event: ChangeEvent): void {
    this.pending.push(copy(event));
    if (!this.delivering) this.delivering = this.deliver();
  }

  /** Whether events are pending or a batch is being delivered. */
  get busy(): boolean {
    return this.delivering !== null;
  }

  /** Resolves once nothing is pending and no batch is being delivered. */
  async drain(): Promise<void> {
    while (this.delivering) await this.delivering;
  }

  private async deliver(): Promise<void> {
    try {
      // Let the writer's call finish first, as a stream record is read after its write.
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, this.batchSize);
        for (const listener of this.listeners) {
          try {
            await listener(batch);
          } catch (err) {
            this.onError(err);
          }
        }
      }
    } finally {
      this.delivering = null;
    }
  }
}
