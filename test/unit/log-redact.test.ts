import middy from '@middy/core';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonLog, keepOutOfLogs, redact, redactErrors } from '../../shared/log';

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const chars = (n: number) => fc.string({ unit: fc.constantFrom(...B64URL), minLength: n, maxLength: n });
const cap = chars(22);
const market = fc.constantFrom('forever.normal.alliance.us', 'forever.pvp.horde.us');
/** Text around a secret: anything but the characters a secret is made of, so the secret's edges stay put. */
const around = fc.string({ unit: fc.constantFrom(' ', '"', ':', ',', '(', ')', '\n', '=', '[', ']'), maxLength: 6 });

/** Unit (issue 11, point 5): the log redactor, by the shapes of the secrets it must never let through. */
describe('log redaction', () => {
  afterEach(() => vi.restoreAllMocks());

  it('removes the cap from every capability path and keeps the rest of the path', () => {
    const c = 'tXW2_IwX4iXPZximb5HBPQ';
    const paths = [
      `live/v1/forever.normal.alliance.us/12-${c}.json.gz`,
      `live/v1/forever.normal.alliance.us/c51-${c}.json.gz`,
      `candles/v1/m1/forever.normal.alliance.us/${c}/2990000.json.gz`,
      `candles/v1/h1c/forever.normal.alliance.us/${c}/498000.json.gz`,
      `candles/v1/d1c/forever.normal.alliance.us/${c}/20700.json.gz`,
      `volume/v1/forever.normal.alliance.us/${c}/20700.json.gz`,
      `books/v1/forever.normal.alliance.us/1793578201000-${c}.json.gz`,
      `answers/v1/${c}/a.json.gz`,
      `quarantine/forever.normal.alliance.us/1793578201000-${c}.json.gz`,
    ];
    for (const p of paths) {
      const out = redact(`Error: book file missing: https://cdn.example.test/${p}`);
      expect(out).not.toContain(c);
      expect(out).toContain(p.replace(c, '[cap]'));
    }
  });

  it('removes device tokens, API keys, secret keys, JWTs, query credentials and bearer values', () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyXzEifQ.c2lnbmF0dXJl';
    const cases: Array<[string, string]> = [
      ['token svc_dev_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG refused', 'svc_dev_[redacted]'],
      ['key ak_Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4 refused', 'ak_[redacted]'],
      ['secret sk_local_abcdefghijklmnop', 'sk_[redacted]'],
      [`session ${jwt}`, '[jwt]'],
      ['GET /api/v1/live?market=m&token=opaque-thing&x=1', 'token=[redacted]&x=1'],
      ['authorization: Bearer opaque.value-123', 'Bearer [redacted]'],
      ['Authorization: vapid t=abc.def.ghi, k=BPUB', 'vapid t=[redacted]'],
    ];
    for (const [text, shown] of cases) {
      const out = redact(text);
      expect(out).toContain(shown);
    }
    expect(redact(`x ${jwt} y`)).toBe('x [jwt] y');
  });

  it('lets no cap, device token or API key through, whatever surrounds it (property)', () => {
    fc.assert(
      fc.property(around, around, market, cap, chars(43), chars(32), fc.nat(), (before, after, m, c, dev, key, n) => {
        const secrets = [c, `svc_dev_${dev}`, `ak_${key}`];
        const text = `${before}books/v1/${m}/${n}-${c}.json.gz${after}svc_dev_${dev}${after}ak_${key}${before}live/v1/${m}/${n}-${c}.json.gz`;
        const out = redact(text);
        return secrets.every((s) => !out.includes(s));
      }),
    );
  });

  it('removes the deployment secrets it was told about, wherever they appear', () => {
    keepOutOfLogs('vapid-private-KEY-1234567890', undefined, 'short');
    expect(redact('key=vapid-private-KEY-1234567890.')).toBe('key=[secret].');
    expect(redact('short stays')).toBe('short stays');
  });

  it('writes one redacted JSON line, credential fields dropped whole, errors to stderr', () => {
    const out = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    jsonLog('info', 'renewed ak_abcdefghijklmnop', { token: 'opaque', nested: { path: 'volume/v1/m/abcdefghijklmnopqrstuv/1.json.gz', code: 'ABCDEFGH' } });
    jsonLog('error', 'failed', { error: new Error('at books/v1/m/1-abcdefghijklmnopqrstuv.json.gz') });
    expect(JSON.parse(out.mock.calls[0][0] as string)).toEqual({
      level: 'info',
      message: 'renewed ak_[redacted]',
      service: 'market-data',
      timestamp: expect.any(String),
      token: '[redacted]',
      nested: { path: 'volume/v1/m/[cap]/1.json.gz', code: '[redacted]' },
    });
    expect(JSON.parse(err.mock.calls[0][0] as string).error).toMatch(/^Error: at books\/v1\/m\/1-\[cap\]\.json\.gz\n/);
  });

  it('redacts an error leaving a function before the Lambda runtime logs it', async () => {
    const handler = middy<unknown, void>()
      .use(redactErrors())
      .handler(async () => {
        throw new TypeError('cannot read books/v1/m/1-abcdefghijklmnopqrstuv.json.gz for svc_dev_abcdefghijklmnop');
      });
    const thrown = (await handler({}, {} as never).catch((e: unknown) => e)) as Error;
    expect(thrown.name).toBe('TypeError');
    expect(thrown.message).toBe('cannot read books/v1/m/1-[cap].json.gz for svc_dev_[redacted]');
    expect(thrown.stack).not.toMatch(/abcdefghijklmnopqrstuv/);
  });
});
