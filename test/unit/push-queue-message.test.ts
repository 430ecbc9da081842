/** The push queue's message is a zod schema (issue 12.5): what the merge and the flush enqueue parses, anything else is dropped. */
import { describe, expect, it } from 'vitest';
import { parsePushMessage } from '../../shared/push/dispatch';

describe('push queue message', () => {
  it('parses the alerts and flush messages the service enqueues', () => {
    const alert = { id: 'a1', market: 'forever.normal.alliance.us', item: 25, kind: 'below', value: 5, enabled: true, created: 1, armed: false, last: null };
    expect(parsePushMessage(JSON.stringify({ t: 'alerts', userId: 'u1', alerts: [alert] }))).toEqual({ t: 'alerts', userId: 'u1', alerts: [alert] });
    expect(parsePushMessage(JSON.stringify({ t: 'flush', userId: 'u1', alerts: [alert] }))).toEqual({ t: 'flush', userId: 'u1' });
  });

  it('drops anything else', () => {
    for (const body of [
      '',
      'x',
      '[]',
      '{}',
      '{"t":"flush"}',
      '{"t":"flush","userId":""}',
      '{"t":"alerts","userId":"u"}',
      '{"t":"alerts","userId":"u","alerts":[1]}',
      '{"t":"other","userId":"u"}',
    ]) {
      expect(parsePushMessage(body), body).toBeNull();
    }
  });
});
