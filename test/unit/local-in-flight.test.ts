import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InFlight } from '../../lib/local/functions/lambda';

describe('wall-time limits under local contention (InFlight)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives a lone call exactly its limit', () => {
    const flight = new InFlight();
    const past = vi.fn();
    flight.track().deadline(Date.now(), 1000, past);
    vi.advanceTimersByTime(999);
    expect(past).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(past).toHaveBeenCalledTimes(1);
  });

  it('stretches the limit by the most calls in flight at once during the call, and not once they are done', () => {
    const flight = new InFlight();
    const past = vi.fn();
    const first = flight.track();
    first.deadline(Date.now(), 1000, past);
    const others = [flight.track(), flight.track()];
    expect(first.peak).toBe(3);
    for (const o of others) o.done();
    vi.advanceTimersByTime(2999);
    expect(past).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(past).toHaveBeenCalledTimes(1);
    // A call started after the others ended is alone again.
    const later = vi.fn();
    first.done();
    flight.track().deadline(Date.now(), 1000, later);
    vi.advanceTimersByTime(1000);
    expect(later).toHaveBeenCalledTimes(1);
  });

  it('never fires for a call that is done', () => {
    const flight = new InFlight();
    const past = vi.fn();
    const call = flight.track();
    call.deadline(Date.now(), 1000, past);
    call.done();
    vi.advanceTimersByTime(5000);
    expect(past).not.toHaveBeenCalled();
  });
});
