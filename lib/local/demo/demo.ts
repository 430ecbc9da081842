/**
 * `npm start -- --demo`: a service with data from the first second. It publishes demo item data (names,
 * qualities, icons), replays the last week of two markets through the public upload route on a clock that
 * starts in the past (lib/local/background/replay-clock.ts), so the hourly view anonymous readers get has prices at
 * once, then feeds a book to each market every 20 s. What it made (user, keys) is kept in `DATA_DIR/demo.json`
 * and reused by the next start, which replays only the time since the last run. The printed key is the
 * newcomer's alone: the replay and the feed upload as an account of their own (`feed@localhost`). Kept small so it is ready
 * in well under a minute on 2 busy cores: 1000 keys a market, 25 books each; the catch-up of sealed files and
 * the catalogue names of suffix and pet keys follow `ready` in the background.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DAY_MS, HOUR_MS, ManualClock } from '../../../shared/clock';
import { MarketGenerator } from '../../../shared/demo/market-generator';
import { fileHeaders, iconPath } from '../../../shared/domain/file-paths';
import { ReplayClock } from '../background/replay-clock';
import type { Runtime } from '../runtime';
import { DEMO_BUILD, type DemoItemData, demoItemData, demoName } from './demo-items';

export const DEMO_MARKETS = ['forever.normal.alliance.us', 'forever.normal.horde.us'];
export const FEED_EVERY_MS = 20_000;
/** Callers in rotation: each uploads to a market once per KEYS * 20 s, past the 5-minute limit per caller. */
const KEYS = 16;
const ITEM_KEYS = 1000;
/** Days replayed before today (the item pages' and anonymous history's window is 7 days). */
export const REPLAY_DAYS = 7;
const STATE_FILE = 'demo.json';
/** The catalogue route takes at most 5000 entries a request. */
const SEEN_BATCH = 5000;

/**
 * What the demo keeps in the data folder so the next start reuses its accounts and replays only the gap.
 * v1 had one account for the printed key and the feed: its key is kept as the printed one.
 */
interface DemoState {
  v: 2;
  /** The demo user and its printed key: never used by the demo itself, so a newcomer's first upload is theirs. */
  userId: string;
  apiKey: string;
  /** The feed's own account (`feed@localhost`) and its keys in rotation. */
  feedUserId: string;
  feedKeys: string[];
  /** `at` of the newest book the demo uploaded. */
  lastAt: number;
}

type KeptState = Omit<DemoState, 'v' | 'feedUserId' | 'feedKeys'> & Partial<Pick<DemoState, 'feedUserId' | 'feedKeys'>>;

export interface Demo {
  userId: string;
  /** A key of the premium demo user without scopes: every feature of the plan, `prices.live` included. */
  apiKey: string;
  /** A session token of the same user (24 h). */
  session: string;
  market: string;
  /** An item key with a price in the anonymous hourly view, and its name. */
  item: { key: number; name: string };
  /** Books replayed before `ready`, and how long that took. */
  replayed: { books: number; ms: number; from: number };
  /** Whether a book is uploaded to each market every 20 s (not on a manual clock). */
  feeding: boolean;
  stop(): void;
}

const stateFile = (dataDir: string): string | null => (dataDir === ':memory:' ? null : join(resolve(dataDir), STATE_FILE));

function readState(dataDir: string): KeptState | null {
  const file = stateFile(dataDir);
  if (!file || !existsSync(file)) return null;
  try {
    const s = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    if (typeof s.userId !== 'string' || !Number.isSafeInteger(s.lastAt)) return null;
    const lastAt = s.lastAt as number;
    if (s.v === 1 && Array.isArray(s.keys) && typeof s.keys[0] === 'string') return { userId: s.userId, apiKey: s.keys[0], lastAt };
    const feedKeys = s.feedKeys;
    if (s.v === 2 && typeof s.apiKey === 'string' && typeof s.feedUserId === 'string' && Array.isArray(feedKeys) && feedKeys.length === KEYS)
      return { userId: s.userId, apiKey: s.apiKey, feedUserId: s.feedUserId, feedKeys: feedKeys as string[], lastAt };
    return null;
  } catch {
    return null;
  }
}

/**
 * Where the demo's clock starts for a service that should stand at `target` once ready: the start of the
 * day `REPLAY_DAYS` before, or just after the previous run's newest book when that is later.
 */
export function demoClockStart(dataDir: string, target: number): number {
  const weekAgo = (Math.floor(target / DAY_MS) - REPLAY_DAYS) * DAY_MS;
  const last = readState(dataDir)?.lastAt;
  return last !== undefined && last < target ? Math.max(weekAgo, last + 1) : weekAgo;
}

/**
 * The times books are replayed at, oldest first, all before `target`'s hour so the anonymous view of that
 * hour has them: every 2 hours through the last day (hour candles for the charts), every 12 hours before
 * (two day points a day).
 */
export function replaySteps(from: number, target: number): number[] {
  const steps: number[] = [];
  for (let t = target - HOUR_MS; t > target - DAY_MS && t >= from; t -= 2 * HOUR_MS) steps.push(t);
  for (let t = target - DAY_MS - HOUR_MS; t >= from; t -= 12 * HOUR_MS) steps.push(t);
  return steps.reverse();
}

async function call<T>(rt: Runtime, method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${rt.base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

async function must<T>(rt: Runtime, method: string, path: string, body?: unknown, token?: string): Promise<T> {
  const res = await call<T>(rt, method, path, body, token);
  if (res.status >= 300) throw new Error(`demo: ${method} ${path} answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Whether a kept account still works: the user exists and its key has `feature`. */
async function stillWorks(rt: Runtime, userId: string, key: string, feature: string): Promise<boolean> {
  if ((await call(rt, 'GET', `/_local/users/${userId}`)).status !== 200) return false;
  const me = await call<{ features?: string[] }>(rt, 'GET', '/api/v1/me', undefined, key);
  return me.status === 200 && (me.body.features?.includes(feature) ?? false);
}

/** The demo account and its printed key: the kept ones when they still work, else a new premium user and key. */
async function account(rt: Runtime, kept: KeptState | null): Promise<{ userId: string; apiKey: string }> {
  if (kept && (await stillWorks(rt, kept.userId, kept.apiKey, 'prices.live'))) return { userId: kept.userId, apiKey: kept.apiKey };
  const user = await must<{ id: string }>(rt, 'POST', '/_local/users', { email: 'demo@localhost', plan: 'premium' });
  const { key } = await must<{ key: string }>(rt, 'POST', '/_local/api-keys', { userId: user.id });
  return { userId: user.id, apiKey: key };
}

/**
 * The feed's own caller (issue 25): an account of its own with KEYS keys, so the printed key has uploaded
 * nothing and a newcomer's first upload with it is not refused `too_soon` (one book per caller and market
 * every 5 minutes) nor left uncredited (`too_soon_credit`, per account).
 */
async function feedAccount(rt: Runtime, kept: KeptState | null): Promise<{ feedUserId: string; feedKeys: string[] }> {
  if (kept?.feedUserId && kept.feedKeys && (await stillWorks(rt, kept.feedUserId, kept.feedKeys[0], 'api.upload')))
    return { feedUserId: kept.feedUserId, feedKeys: kept.feedKeys };
  const user = await must<{ id: string }>(rt, 'POST', '/_local/users', { email: 'feed@localhost', plan: 'premium' });
  const feedKeys: string[] = [];
  for (let i = 0; i < KEYS; i++) feedKeys.push((await must<{ key: string }>(rt, 'POST', '/_local/api-keys', { userId: user.id })).key);
  return { feedUserId: user.id, feedKeys };
}

/** Icons into the files bucket (where `GET /icons/<name>.webp` reads them) and the generated item file. */
async function publishItems(rt: Runtime, data: DemoItemData): Promise<void> {
  await Promise.all(
    data.icons.map(({ name, webp }) => {
      const { contentType, cacheControl } = fileHeaders(iconPath(name));
      return rt.operator.files.put(iconPath(name), webp, { contentType, cacheControl });
    }),
  );
  await must(rt, 'POST', '/_local/items', data.file);
}

/**
 * The names of suffix and pet keys, which generated data never has, reported to the catalogue as a desktop
 * app would; one account's report names a variant key, and the merged files take it on the next request.
 */
async function publishNames(rt: Runtime, data: DemoItemData, key: string): Promise<void> {
  for (let i = 0; i < data.seen.length; i += SEEN_BATCH)
    await must(rt, 'POST', '/api/v1/items/seen', { build: DEMO_BUILD, items: data.seen.slice(i, i + SEEN_BATCH) }, key);
}

/** Uploads the market's next book at `at`; a refusal throws, except 409 `too_soon` when `tooSoonIsFine` (a key's 5-minute limit). */
async function upload(rt: Runtime, gen: MarketGenerator, at: number, key: string, tooSoonIsFine = false): Promise<void> {
  const book = gen.nextBook({ at });
  const res = await call<{ error?: string }>(rt, 'POST', '/api/v1/ah/books', book, key);
  if (res.status >= 300 && !(res.status === 409 && res.body?.error === 'too_soon' && tooSoonIsFine))
    throw new Error(`demo: upload to ${book.market} answered ${res.status} ${JSON.stringify(res.body)}`);
}

/** Moves the runtime's clock to `at` (the demo's replay clock, or a manual clock) and tells the runtime. */
function moveClock(rt: Runtime, at: number): void {
  if (rt.clock instanceof ReplayClock || rt.clock instanceof ManualClock) rt.clock.set(at);
  rt.clockMoved();
}

/** A commodity of the first market whose anonymous (hourly) answer has a price. */
async function itemWithPrice(rt: Runtime, gen: MarketGenerator, data: DemoItemData): Promise<number> {
  const commodities = [...gen.kinds()].filter(([, kind]) => kind === 'commodity').map(([key]) => key);
  for (const key of commodities.slice(0, 50)) {
    const res = await call<{ row?: [number, number | null, number, number] | null }>(rt, 'GET', `/api/v1/ah/${gen.market}/${key}`);
    if (res.status === 200 && res.body.row && res.body.row[1] !== null && demoName(data, key)) return key;
  }
  throw new Error('demo: no item of the replayed market has a price in the hourly view');
}

/**
 * Runs the demo on a started runtime whose clock stands at the replay's start (`demoClockStart`): publishes
 * item data, replays books up to `target` (the system clock's now for a replay clock), then feeds the
 * markets every 20 s (not on a manual clock, which only the control API moves).
 */
export async function runDemo(rt: Runtime, opts: { dataDir: string; target?: number; progress?: (line: string) => void }): Promise<Demo> {
  const started = Date.now();
  const kept = readState(opts.dataDir);
  const { userId, apiKey } = await account(rt, kept);
  const { feedUserId, feedKeys } = await feedAccount(rt, kept);
  const from = rt.clock.now();
  const generators = DEMO_MARKETS.map(
    (market, i) => new MarketGenerator({ market, keys: ITEM_KEYS, entries: ITEM_KEYS * 3, seed: 101 + i, start: from, stepMs: HOUR_MS }),
  );
  const data = demoItemData(generators.map((g) => g.kinds()));
  await publishItems(rt, data);
  const target = () => opts.target ?? Date.now();
  const steps = replaySteps(from, target());
  if (steps.length > 0) {
    const since = new Date(steps[0]).toISOString().slice(0, 16).replace('T', ' ');
    opts.progress?.(`demo: replaying ${steps.length} books per market since ${since} UTC (under a minute)...`);
  }
  let lastAt = kept?.lastAt ?? 0;
  for (const at of steps) {
    moveClock(rt, at);
    // 429 only when the last run's final upload with this key was minutes before: that book is left out.
    await Promise.all(generators.map((gen) => upload(rt, gen, at, feedKeys[0], true)));
    // Merges only: the schedules run after the replay and catch up (sealing writes every pending period).
    await rt.drain();
    lastAt = at;
  }
  moveClock(rt, target());
  // The hour's snapshot file before `ready`; the rest (sealing a week of candle files takes a while) after it:
  // a released replay clock lets the runtime's scheduler run them, a manual clock waits for a tick.
  await rt.runSchedules(['snapshot']);
  if (rt.clock instanceof ReplayClock) rt.clock.release();
  const { token: session } = await must<{ token: string }>(rt, 'POST', '/_local/sessions', { userId, expiresIn: 86_400 });
  const market = generators[0].market;
  const key = await itemWithPrice(rt, generators[0], data);
  const save = (at: number) => {
    const file = stateFile(opts.dataDir);
    if (file) writeFileSync(file, JSON.stringify({ v: 2, userId, apiKey, feedUserId, feedKeys, lastAt: at } satisfies DemoState), { mode: 0o600 });
  };
  save(lastAt);
  publishNames(rt, data, feedKeys[0]).catch((err) => console.error(err instanceof Error ? err.message : String(err)));
  const feeding = !(rt.clock instanceof ManualClock);
  const stop = feeding ? feed(rt, generators, feedKeys, save) : () => undefined;
  const replayed = { books: steps.length * generators.length, ms: Date.now() - started, from };
  return { userId, apiKey, session, market, item: { key, name: demoName(data, key) ?? `Item ${key}` }, replayed, feeding, stop };
}

/** Uploads a book to every market every 20 s, rotating the keys; returns how to stop. */
function feed(rt: Runtime, generators: MarketGenerator[], keys: string[], save: (at: number) => void): () => void {
  let round = 0;
  let busy = false;
  const once = async () => {
    if (busy) return;
    busy = true;
    const key = keys[round++ % KEYS];
    const at = rt.clock.now();
    try {
      // A restart within 5 minutes of the last run's upload with this key meets the limit: the next key goes on.
      await Promise.all(generators.map((gen) => upload(rt, gen, at, key, true)));
      save(at);
    } catch (err) {
      console.error(err instanceof Error ? err.message : String(err));
    } finally {
      busy = false;
    }
  };
  void once();
  const timer = setInterval(() => void once(), FEED_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
