/**
 * The memory mode's stream: the fakes' change feed (shared/store/memory/change-feed.ts) delivers its events to
 * the stream consumer the manifest names (`STREAM_CONSUMER`), invoked through the Lambda host as the stream's
 * mapping invokes it, in batches of its batch size. The background drives it as it drives the engines' stream
 * poller (lib/local/background/background.ts `ChangeSource`): `pollOnce` waits until every event published so
 * far (and every event its consumer published in turn) was delivered, so `settle` means "nothing left to do"
 * in both modes.
 */
import type { ChangeEvent } from '../../../shared/ports/changes';
import { MemoryChangeFeed } from '../../../shared/store/memory/change-feed';
import { type FunctionName, STREAM_CONSUMER } from '../../../shared/topology';
import type { ChangeSource } from '../background/background';

export class FeedSource implements ChangeSource {
  readonly feed: MemoryChangeFeed;
  private delivered = 0;
  private reported = 0;

  constructor(invoke: (fn: FunctionName, event: unknown) => Promise<unknown>, onError: (err: unknown) => void) {
    this.feed = new MemoryChangeFeed(STREAM_CONSUMER.batchSize, onError);
    this.feed.subscribe(async (changes: readonly ChangeEvent[]) => {
      try {
        await invoke(STREAM_CONSUMER.function, { changes });
      } finally {
        this.delivered += changes.length;
      }
    });
  }

  async init(): Promise<void> {}

  get busy(): boolean {
    return this.feed.busy;
  }

  idle(): Promise<void> {
    return this.feed.drain();
  }

  /** Waits for every event published so far to be delivered; answers how many were delivered since the last call. */
  async pollOnce(): Promise<number> {
    await this.feed.drain();
    const n = this.delivered - this.reported;
    this.reported = this.delivered;
    return n;
  }
}
