/**
 * The demo's clock (`npm start -- --demo`): it starts in the past so the demo can replay the last week of a
 * market through the public upload route (books are accepted only within 24 h of the service clock), then
 * it follows the system clock. While it replays, schedules run only when the demo ticks the runtime.
 */
import type { Clock } from '../../../shared/clock';

export class ReplayClock implements Clock {
  private at: number | null;

  constructor(start: number) {
    this.at = Math.min(start, Date.now());
  }

  get replaying(): boolean {
    return this.at !== null;
  }

  now(): number {
    return this.at ?? Date.now();
  }

  /** Moves the replay forward to `ms` (never back, never past the system clock); returns the clock. */
  set(ms: number): number {
    if (this.at !== null) this.at = Math.min(Math.max(this.at, ms), Date.now());
    return this.now();
  }

  /** Ends the replay: from now on the clock is the system clock. */
  release(): void {
    this.at = null;
  }
}
