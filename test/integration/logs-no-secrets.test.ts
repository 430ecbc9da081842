import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeleteObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import WebSocket from 'ws';
import { MARKETS } from '../../shared/domain/market';
import { LiveClient } from '../support/live-client';
import { type LoggedService, startLoggedService } from '../support/logged-service';
import { bookOf, DAY, HOUR, MINUTE } from '../support/market-books';
import { browserKeys, type PushReceiver, startPushReceiver } from '../support/push-receiver';

const MARKET = 'forever.normal.alliance.us';
const OTHER = 'forever.pvp.horde.us';
const CAP = '[A-Za-z0-9_-]{22}';
const SEGMENT = '[^/\\s"\'\\\\]+';

/** Shapes of secrets (issue 11, point 5): caps in capability paths, device tokens, API keys, JWTs, provider secret keys. */
const SECRET_SHAPES: Array<[string, RegExp]> = [
  ['live cap', new RegExp(`live/v1/${SEGMENT}/c?\\d+-${CAP}`)],
  ['book cap', new RegExp(`books/v1/${SEGMENT}/\\d+-${CAP}`)],
  ['candle cap', new RegExp(`candles/v1/(m1|h1c|d1c)/${SEGMENT}/${CAP}`)],
  ['volume cap', new RegExp(`volume/v1/${SEGMENT}/${CAP}`)],
  ['device token', /svc_dev_[A-Za-z0-9_-]{8,}/],
  ['API key', /\bak_[A-Za-z0-9_-]{8,}/],
  ['JWT', /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/],
  ['secret key', /\bsk_[A-Za-z0-9_-]{8,}/],
];

/**
 * Integration (issue 11, point 5): no secret in a log. The service runs as its own process with logging on
 * and goes through uploads, merges (one failing for good), files, the files route, live sockets with
 * `?token=`, pairing, API keys and push, with the faults on and off; then everything it wrote is scanned
 * for the shapes of secrets and for every secret the run handled.
 */
describe('no secret in a log', () => {
  let svc: LoggedService;
  let rx: PushReceiver;
  /** Every secret value this run handles or learns, to look for verbatim. */
  const secrets = new Set<string>();
  const clients: LiveClient[] = [];
  let ipSeq = 0;
  const anonIp = () => ({ 'x-forwarded-for': `198.51.100.${++ipSeq}` });
  const keep = <T extends string>(v: T): T => {
    secrets.add(v);
    return v;
  };
  /** Remembers the caps of every capability URL in an answer or message. */
  const learnCaps = (value: unknown) => {
    for (const m of JSON.stringify(value).matchAll(new RegExp(`[-/](${CAP})[/.]`, 'g'))) secrets.add(m[1]);
  };
  const upload = async (token: string, at: number, listings: Array<[number, number, number]>, market = MARKET) =>
    svc.api('POST', '/api/v1/ah/books', { token, body: bookOf(at, listings, true, market) });

  beforeAll(async () => {
    [svc, rx] = await Promise.all([startLoggedService(), startPushReceiver()]);
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await Promise.all([svc?.close(), rx?.close()]);
  });

  it('writes no cap, token, key, secret or pairing code to its log', async () => {
    const start = await svc.now();
    // Accounts and credentials: a premium contributor with a session and an API key, a paired device.
    const user = await svc.user({ plan: 'premium', contributorUntil: start + 60 * DAY });
    const session = keep(await svc.session(user.id, { expiresIn: 90 * 86_400 }));
    const key = keep(await svc.apiKey(user.id));
    const pair = (await svc.api('POST', '/api/v1/devices/pair', { body: { name: 'PC' }, headers: anonIp() })).body;
    keep(pair.code);
    for (let i = 0; i < 3; i++) expect((await svc.api('POST', '/api/v1/devices/confirm', { token: session, body: { code: 'ABCD-EFGH' } })).status).toBe(404);
    expect((await svc.api('POST', '/api/v1/devices/confirm', { token: session, body: { code: pair.code } })).status).toBe(200);
    const device = keep((await svc.api('GET', `/api/v1/devices/pair/${pair.pairId}`, { headers: anonIp() })).body.token as string);

    // Push: a subscription, an alert that the next merge fires, and an endpoint that fails.
    const browser = browserKeys();
    const endpoint = `${rx.base}/push/${randomBytes(8).toString('hex')}`;
    rx.statusFor.set(new URL(endpoint).pathname, 500);
    expect((await svc.api('PUT', '/api/v1/push/subscription', { token: session, body: { subscription: { endpoint, keys: browser.keys } } })).status).toBe(200);
    expect((await svc.api('POST', '/api/v1/market/alerts', { token: session, body: { market: MARKET, item: 2589, kind: 'below', value: 20000 } })).status).toBe(
      200,
    );

    // Live sockets: ?token= with each kind of credential, and a header one.
    const open = async (token: string, tokenIn: 'query' | 'header' = 'query') => {
      const c = new LiveClient({ base: svc.base, market: MARKET, token, tokenIn });
      clients.push(c);
      // A minute for the hello: this service runs in a process of its own, beside the suite's other worker.
      learnCaps(await c.connect(60_000));
      return c;
    };
    const sockets = [await open(session), await open(key), await open(device), await open(session, 'header')];
    const refused = new LiveClient({
      base: svc.base,
      market: MARKET,
      token: `eyJhbGciOiJSUzI1NiJ9.${Buffer.from('{"sub":"x"}').toString('base64url')}.c2ln`,
      tokenIn: 'query',
    });
    await expect(refused.connect(60_000)).rejects.toMatchObject({ status: 401 });
    const cookie = new WebSocket(`${svc.base.replace('http', 'ws')}/api/v1/live?market=${MARKET}`, {
      headers: { cookie: `__session=${session}`, origin: 'https://evil.example.test' },
    });
    await new Promise((r) => cookie.once('unexpected-response', r));

    // Uploads and merges: by device and by API key, on two markets; the first one fires the alert.
    expect(
      (
        await upload(device, start, [
          [2589, 15050, 12],
          [2592, 900, 40],
        ])
      ).status,
    ).toBe(200);
    expect((await upload(key, start, [[2589, 16000, 3]], OTHER)).status).toBe(200);
    await svc.settle();
    await svc.advance(31_000);
    await svc.settle();

    // Renewals on the sockets: good, bad and random credentials; then one socket floods.
    for (const token of [
      key,
      `ak_${randomBytes(24).toString('base64url')}`,
      `svc_dev_${randomBytes(32).toString('base64url')}`,
      'eyJhbGciOiJIUzI1NiJ9.e30.bad',
      session,
    ]) {
      sockets[1].send(JSON.stringify({ t: 'auth', token }));
    }
    for (let i = 0; i < 30; i++) sockets[3].send(JSON.stringify({ t: 'auth', token: session }));
    await svc.settle();

    // Bad credentials over HTTP, and the identity provider down.
    for (const token of [`ak_${randomBytes(24).toString('base64url')}`, `svc_dev_${randomBytes(32).toString('base64url')}`, 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln']) {
      expect((await svc.api('GET', '/api/v1/me', { token })).status).toBe(401);
    }
    await svc.faults({ identity: 'down' });
    expect((await svc.api('GET', '/api/v1/me', { token: keep(`ak_${randomBytes(24).toString('base64url')}`) })).status).toBe(503);
    await svc.faults({ identity: 'up' });

    // Files: the files route, the books list, a book file and a change file.
    const files = await svc.api('GET', `/api/v1/ah/${MARKET}/files`, { token: session });
    expect(files.status).toBe(200);
    learnCaps(files.body);
    const books = await svc.api('GET', `/api/v1/ah/${MARKET}/books`, { token: session });
    learnCaps(books.body);
    const urls = [...JSON.stringify([files.body, books.body]).matchAll(/"(http[^"]+\.json\.gz)"/g)].map((m) => m[1]);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls.slice(0, 4)) expect((await fetch(url)).status).toBe(200);

    // A merge that fails once (the merge fault), then one that fails for good: its volume estimate needs the
    // previous book, whose file is gone (six other books pushed it out of the merge function's memory).
    await svc.advance(10 * MINUTE);
    await svc.faults({ merge: 'crash-once' });
    expect((await upload(key, start + 10 * MINUTE, [[2589, 14000, 2]])).status).toBe(200);
    await svc.settle();
    await svc.advance(10 * MINUTE);
    const others = MARKETS.filter((m) => m !== MARKET);
    for (const [i, market] of [...others, others[0]].entries()) {
      expect((await upload(i < others.length ? key : device, start + 20 * MINUTE, [[2589, 15000, 1]], market)).status).toBe(200);
      await svc.settle();
    }
    const s3 = new S3Client({
      region: 'us-east-1',
      endpoint: inject('s3Endpoint'),
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    const bucket = `market-files-${svc.name}`;
    const stored = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `books/v1/${MARKET}/` }));
    for (const o of stored.Contents ?? []) {
      learnCaps(o.Key);
      await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: o.Key }));
    }
    expect((await upload(device, start + 20 * MINUTE, [[2589, 14500, 2]])).status).toBe(200);
    await svc.settle();
    // A body the storage fault keeps from being stored.
    await svc.faults({ storage: 'down' });
    expect((await upload(device, start + 19 * MINUTE, [[2589, 14500, 2]], OTHER)).status).toBe(503);
    await svc.faults({ storage: 'up' });

    // Schedules: seals, snapshots, the live sweep and retention, an hour later.
    await svc.advance(HOUR);
    await svc.tick();

    // The whole log of the run.
    keep(readFileSync(join(svc.dataDir, 'identity-secret.txt'), 'utf8'));
    keep((JSON.parse(readFileSync(join(svc.dataDir, 'vapid.json'), 'utf8')) as { privateKey: string }).privateKey);
    // Registered for redaction by the AWS platform's own registration (issue 23 point 7), not a local-only list.
    keep((JSON.parse(readFileSync(join(svc.dataDir, 'origin-verify.json'), 'utf8')) as { current: string }).current);
    keep(readFileSync(join(svc.dataDir, 'uploader-key.txt'), 'utf8'));
    const log = svc.output();
    expect(log).toMatch(/"message":"merge"/);
    expect(log).toMatch(/merge failed.*book file missing/);
    const found: string[] = [];
    for (const [what, shape] of SECRET_SHAPES) {
      const m = shape.exec(log);
      if (m) found.push(`${what}: ${m[0]}`);
    }
    for (const s of secrets) if (s.length >= 8 && log.includes(s)) found.push(`verbatim: ${s}`);
    expect(found).toEqual([]);
  }, 240_000);
});
