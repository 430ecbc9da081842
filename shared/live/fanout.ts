/**
 * The table stream's consumer (DESIGN: Live socket): turns records into live messages.
 *
 * | record | message |
 * |---|---|
 * | a socket's record INSERT | `hello` to that socket |
 * | a merge record INSERT | `ah` to the market's sockets |
 * | the market's file state moving a `sealed` period | `sealed` (the newest period per resolution) |
 * | an alert-fired record INSERT | `alert` to the owner's sockets on that market |
 * | an account profile change | `roles` to the account's sockets whose features changed (4403 without `live`) |
 * | a device REMOVE | close 4401 for that device's sockets |
 *
 * `hello` goes first: a socket is marked ready before its view is read, and notices skip sockets not ready.
 */
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { filesStateOf, SEAL_RES } from '../domain/files-state';
import type { LiveConnection, SocketAudience, SocketRef } from '../ports/connections';
import type { MergeRecord } from '../ports/market';
import type { Services } from '../services';
import { toConnection } from '../store/dynamo-connections';
import { ALERT_FIRED_PK_PREFIX, DEVICE_SK_PREFIX, FILES_STATE_PK_PREFIX, LIVE_CONN_PK_PREFIX, PROFILE_SK } from '../store/keys';
import { isMergeRecordKey } from '../store/merge-log';
import { withWindow } from './credentials';
import { loadMarketView } from './market-view';
import type { LiveMessage } from './message-types';
import { type Audience, ahMessage, alertMessage, helloMessage, sealedMessage } from './messages';
import { applyClaims, closeUnauthenticated, profileClaims } from './roles-watch';
import { sendAll } from './sender';

type Image = Record<string, unknown>;

interface Parsed {
  name: DynamoDBRecord['eventName'];
  pk: string;
  sk: string;
  next?: Image;
  prev?: Image;
}

/** A stream image as plain values; an empty value some stream readers emit (`{}`) reads as null. */
function image(v: unknown): Image | undefined {
  if (!v) return undefined;
  const clean = (a: unknown): unknown => {
    if (!a || typeof a !== 'object') return a;
    const av = a as Record<string, unknown>;
    if (Object.keys(av).length === 0) return { NULL: true };
    if (av.M && typeof av.M === 'object') return { M: Object.fromEntries(Object.entries(av.M).map(([k, x]) => [k, clean(x)])) };
    if (Array.isArray(av.L)) return { L: av.L.map(clean) };
    return av;
  };
  return unmarshall(Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, clean(x)])) as never) as Image;
}

function parse(r: DynamoDBRecord): Parsed | null {
  const keys = r.dynamodb?.Keys as Record<string, { S?: string }> | undefined;
  const pk = keys?.pk?.S;
  const sk = keys?.sk?.S;
  if (!pk || !sk) return null;
  return { name: r.eventName, pk, sk, next: image(r.dynamodb?.NewImage), prev: image(r.dynamodb?.OldImage) };
}

const USER_PREFIX = 'USER#';

/** Sockets of a market that already had their `hello`, read once per batch. */
class ReadySockets {
  private readonly byMarket = new Map<string, Promise<SocketAudience[]>>();
  constructor(private readonly svc: Pick<Services, 'connections'>) {}
  of(market: string): Promise<SocketAudience[]> {
    let hit = this.byMarket.get(market);
    if (!hit) {
      hit = this.svc.connections.audiencesOf(market).then((all) => all.filter((c) => c.ready));
      this.byMarket.set(market, hit);
    }
    return hit;
  }
}

/** One text per distinct message: sockets with the same audience share it. */
function perAudience(sockets: readonly SocketAudience[], build: (a: Audience) => LiveMessage | null): Array<readonly [SocketRef, string | null]> {
  const cache = new Map<string, string | null>();
  return sockets.map((c) => {
    const id = c.audience;
    if (!cache.has(id)) {
      const msg = build({ roles: [], features: c.features, historyDays: c.historyDays });
      cache.set(id, msg ? JSON.stringify(msg) : null);
    }
    return [c, cache.get(id) ?? null] as const;
  });
}

async function greet(svc: Pick<Services, 'config' | 'clock' | 'connections' | 'sockets' | 'market' | 'log'>, records: Parsed[]): Promise<void> {
  const sockets = records.flatMap((r) => (r.next?.connectionId ? [toConnection(r.next)] : []));
  // Ready before the view is read: a merge recorded after the read reaches the socket as `ah`.
  const ready = (await Promise.all(sockets.map(async (c) => ((await svc.connections.update(c, { ready: true })) ? c : null)))).filter(
    (c): c is LiveConnection => c !== null,
  );
  const views = new Map<string, ReturnType<typeof loadMarketView>>();
  for (const c of ready) if (!views.has(c.market)) views.set(c.market, loadMarketView(svc, c.market));
  const now = svc.clock.now();
  const targets = await Promise.all(
    ready.map(
      async (c) => [c, JSON.stringify(helloMessage(await (views.get(c.market) as ReturnType<typeof loadMarketView>), c, svc.config.cdnBase, now))] as const,
    ),
  );
  await sendAll(svc, targets);
}

async function announceMerges(svc: Pick<Services, 'config' | 'connections' | 'sockets' | 'log'>, ready: ReadySockets, records: Parsed[]): Promise<void> {
  const merges = records.map((r) => r.next as unknown as MergeRecord).sort((a, b) => a.seq - b.seq);
  for (const m of merges) {
    const sockets = await ready.of(m.market);
    await sendAll(
      svc,
      perAudience(sockets, (a) => ahMessage(m, a, svc.config.cdnBase)),
    );
  }
}

async function announceSealed(svc: Pick<Services, 'config' | 'connections' | 'sockets' | 'log'>, ready: ReadySockets, records: Parsed[]): Promise<void> {
  for (const r of records) {
    const market = r.pk.slice(FILES_STATE_PK_PREFIX.length);
    const next = filesStateOf(market, r.next);
    const prev = filesStateOf(market, r.prev);
    const moved = SEAL_RES.filter((res) => next.sealed[res] !== null && next.sealed[res] !== prev.sealed[res]);
    if (moved.length === 0) continue;
    const sockets = await ready.of(market);
    for (const res of moved)
      await sendAll(
        svc,
        perAudience(sockets, (a) => sealedMessage(next, res, a, svc.config.cdnBase)),
      );
  }
}

async function announceAlerts(svc: Pick<Services, 'connections' | 'sockets' | 'log'>, records: Parsed[]): Promise<void> {
  for (const r of records) {
    const userId = typeof r.next?.userId === 'string' ? r.next.userId : null;
    const market = typeof r.next?.market === 'string' ? r.next.market : null;
    const alert = r.next?.alert;
    if (!userId || !market || !alert || typeof alert !== 'object') continue;
    const sockets = (await svc.connections.ofUser(userId, market)).filter((c) => c.ready);
    const text = JSON.stringify(alertMessage(alert as Record<string, unknown>));
    await sendAll(
      svc,
      sockets.map((c) => [c, text] as const),
    );
  }
}

/** A profile change: the account's sockets get their claims raised by the stored window, or the account's new claims. */
async function profileChanged(svc: Pick<Services, 'clock' | 'connections' | 'sockets'>, r: Parsed): Promise<void> {
  const next = profileClaims(r.next);
  const prev = profileClaims(r.prev);
  if (JSON.stringify(next) === JSON.stringify(prev)) return;
  const userId = r.pk.slice(USER_PREFIX.length);
  const now = svc.clock.now();
  for (const c of await svc.connections.ofUser(userId)) {
    const claims = c.kind === 'session' || !next.claims ? withWindow(c.claims, next.windowUntil) : next.claims;
    await applyClaims(svc, c, claims, now);
  }
}

async function deviceRemoved(svc: Pick<Services, 'connections' | 'sockets'>, r: Parsed): Promise<void> {
  const userId = r.pk.slice(USER_PREFIX.length);
  const deviceId = r.sk.slice(DEVICE_SK_PREFIX.length);
  for (const c of await svc.connections.ofUser(userId)) if (c.kind === 'device' && c.deviceId === deviceId) await closeUnauthenticated(svc, c);
}

/** Handles one stream batch; hellos first so they precede every notice of the same batch. */
export async function fanout(
  svc: Pick<Services, 'config' | 'clock' | 'connections' | 'sockets' | 'market' | 'log'>,
  event: DynamoDBStreamEvent,
): Promise<void> {
  const hellos: Parsed[] = [];
  const merges: Parsed[] = [];
  const sealed: Parsed[] = [];
  const alerts: Parsed[] = [];
  const profiles: Parsed[] = [];
  const devices: Parsed[] = [];
  for (const raw of event.Records) {
    let r: Parsed | null;
    try {
      r = parse(raw);
    } catch (err) {
      svc.log('warn', 'fanout: unreadable stream record skipped', { error: err instanceof Error ? err.message : String(err) });
      continue;
    }
    if (!r) continue;
    if (r.name === 'INSERT' && r.pk.startsWith(LIVE_CONN_PK_PREFIX)) hellos.push(r);
    else if (r.name === 'INSERT' && isMergeRecordKey(r.pk, r.sk)) merges.push(r);
    else if (r.name !== 'REMOVE' && r.pk.startsWith(FILES_STATE_PK_PREFIX) && r.sk === 'STATE') sealed.push(r);
    else if (r.name === 'INSERT' && r.pk.startsWith(ALERT_FIRED_PK_PREFIX)) alerts.push(r);
    else if (r.name !== 'REMOVE' && r.pk.startsWith(USER_PREFIX) && r.sk === PROFILE_SK) profiles.push(r);
    else if (r.name === 'REMOVE' && r.pk.startsWith(USER_PREFIX) && r.sk.startsWith(DEVICE_SK_PREFIX)) devices.push(r);
  }
  // A stream batch that throws is retried until it expires, holding every later notice back: log and go on.
  const step = async (what: string, run: () => Promise<void>) => {
    try {
      await run();
    } catch (err) {
      svc.log('error', `fanout: ${what} failed`, { error: err instanceof Error ? err.stack : String(err) });
    }
  };
  if (hellos.length > 0) await step('hello', () => greet(svc, hellos));
  const ready = new ReadySockets(svc);
  if (merges.length > 0) await step('ah', () => announceMerges(svc, ready, merges));
  if (sealed.length > 0) await step('sealed', () => announceSealed(svc, ready, sealed));
  if (alerts.length > 0) await step('alert', () => announceAlerts(svc, alerts));
  for (const r of profiles) await step('roles', () => profileChanged(svc, r));
  for (const r of devices) await step('device close', () => deviceRemoved(svc, r));
}
