/**
 * One run at a time, as one Lambda instance runs one event at a time: a run asked for while another is in
 * flight waits for it to end (and sees its failure, as the caller that started it does) before it starts.
 * The local scheduler's runs and the stream poller's polls each go through one.
 */
export class OneAtATime<T> {
  private running: Promise<T> | null = null;

  get busy(): boolean {
    return this.running !== null;
  }

  /** Waits for the run in flight, if any, ignoring its failure. */
  async idle(): Promise<void> {
    while (this.running) await this.running.catch(() => undefined);
  }

  /** Starts `work` once no other run is in flight. */
  async run(work: () => Promise<T>): Promise<T> {
    while (this.running) await this.running;
    this.running = work();
    try {
      return await this.running;
    } finally {
      this.running = null;
    }
  }
}
