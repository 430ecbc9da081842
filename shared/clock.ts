/** The one source of time. Domain code receives `now` values; handlers ask the injected clock. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told to, and never backwards (the local runtime's `CLOCK=manual`). */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: number) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  set(ms: number): number {
    if (ms > this.current) this.current = ms;
    return this.current;
  }

  advance(ms: number): number {
    if (ms > 0) this.current += ms;
    return this.current;
  }
}

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

export const dayOf = (ms: number): number => Math.floor(ms / DAY_MS);
export const hourOf = (ms: number): number => Math.floor(ms / HOUR_MS);
export const minuteOf = (ms: number): number => Math.floor(ms / MINUTE_MS);
/** Seconds to the next hour, rounded up (DESIGN: boundaries). */
export const secondsToNextHour = (now: number): number => Math.ceil(((hourOf(now) + 1) * HOUR_MS - now) / 1000);
