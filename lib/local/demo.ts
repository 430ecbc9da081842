/**
 * `npm start -- --demo`: feeds realistic synthetic books (shared/demo/market-generator.ts) into two markets
 * through the public upload route, every ~20 s of wall time, so a newcomer sees prices, candles, volume,
 * books and live messages move. Uses only the local identity control routes and the HTTP API.
 */
import { MarketGenerator } from '../../shared/demo/market-generator';
import type { Runtime } from './runtime';

const MARKETS = ['forever.normal.alliance.us', 'forever.normal.horde.us'];
const EVERY_MS = 20_000;
/** Callers in rotation: each uploads to a market once per KEYS * 20 s, past the 5-minute limit per caller. */
const KEYS = 16;
const ITEM_KEYS = 2000;

export interface Demo {
  /** The demo account (premium) and one of its keys, to try the read routes with. */
  userId: string;
  apiKey: string;
  stop(): void;
}

async function control<T>(rt: Runtime, path: string, body: unknown): Promise<T> {
  const res = await fetch(`${rt.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`demo: ${path} answered ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Starts the demo feed on a running local runtime (system clock); `stop()` ends it. */
export async function runDemo(rt: Runtime): Promise<Demo> {
  const user = await control<{ id: string }>(rt, '/_local/users', { email: 'demo@localhost', plan: 'premium' });
  const keys: string[] = [];
  for (let i = 0; i < KEYS; i++) keys.push((await control<{ key: string }>(rt, '/_local/api-keys', { userId: user.id })).key);
  const start = rt.clock.now();
  const generators = MARKETS.map((market, i) => new MarketGenerator({ market, keys: ITEM_KEYS, entries: ITEM_KEYS * 3, seed: 101 + i, start, stepMs: EVERY_MS }));
  let round = 0;
  let busy = false;
  const feed = async () => {
    if (busy) return;
    busy = true;
    const key = keys[round++ % KEYS];
    try {
      await Promise.all(
        generators.map(async (gen) => {
          const book = gen.nextBook({ at: rt.clock.now() });
          const res = await fetch(`${rt.base}/api/v1/ah/books`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify(book),
          });
          if (!res.ok) console.error(`demo: upload to ${book.market} answered ${res.status} ${await res.text()}`);
        }),
      );
    } catch (err) {
      console.error(`demo: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      busy = false;
    }
  };
  await feed();
  const timer = setInterval(() => void feed(), EVERY_MS);
  timer.unref();
  console.log(`demo: feeding ${MARKETS.join(', ')} every ${EVERY_MS / 1000} s as ${user.id}`);
  return { userId: user.id, apiKey: keys[0], stop: () => clearInterval(timer) };
}
