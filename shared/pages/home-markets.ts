/**
 * What the home page shows of each market (spec api.md Conventions: pages use anonymous, hourly data): the
 * most listed items of the market's newest hourly snapshot file, which is that hour's anonymous view.
 */
import { gunzipSync } from 'node:zlib';
import { hourOf, secondsToNextHour } from '../clock';
import { snapshotLatestPath } from '../domain/file-paths';
import { MARKETS } from '../domain/market';
import type { AuctionRow } from '../domain/merge';
import type { HourlySnapshot, LatestPointer } from '../files/documents';
import { getObject } from '../items/bucket';
import { currentItemFiles, itemOfKeyIn } from '../items/read';
import type { Services } from '../services';
import { pageName } from './item-page';

/** How many items the home page lists per market. */
export const HOME_ITEMS = 8;

export interface TopItem {
  key: number;
  name: string;
  price: number;
  quantity: number;
}

export interface HomeMarket {
  market: string;
  /** The snapshot's hour start (Unix ms), null when the market has none yet. */
  at: number | null;
  top: TopItem[];
}

/** Rows with a price, most units listed first (ties: lower key), at most `count`. */
export function mostListed(rows: readonly AuctionRow[], count: number): Array<[key: number, price: number, quantity: number]> {
  return rows
    .filter((r): r is [number, number, number, number] => r[1] !== null && r[2] > 0)
    .sort((a, b) => b[2] - a[2] || a[0] - b[0])
    .slice(0, count)
    .map(([key, price, quantity]) => [key, price, quantity]);
}

// Snapshot files are immutable per hour: a warm function parses each one once (six markets, two hours).
const tops = new Map<string, Promise<Array<[number, number, number]>>>();
const TOPS_KEEP = 12;

function topOf(svc: Pick<Services, 'config' | 'files'>, path: string): Promise<Array<[number, number, number]>> {
  const id = `${svc.config.bucketName}/${svc.config.filesPrefix}${path}`;
  let hit = tops.get(id);
  if (!hit) {
    hit = getObject(svc, path).then((file) => {
      if (!file) return [];
      const gzip = file.contentEncoding === 'gzip' || (file.data[0] === 0x1f && file.data[1] === 0x8b);
      const snapshot = JSON.parse((gzip ? gunzipSync(file.data) : file.data).toString('utf8')) as HourlySnapshot;
      return mostListed(snapshot.rows, HOME_ITEMS);
    });
    hit.catch(() => tops.delete(id));
    tops.set(id, hit);
    if (tops.size > TOPS_KEEP) tops.delete(tops.keys().next().value as string);
  }
  return hit;
}

async function pointerOf(svc: Pick<Services, 'files'>, market: string): Promise<LatestPointer | null> {
  const obj = await getObject(svc, snapshotLatestPath(market));
  if (!obj) return null;
  const pointer = JSON.parse(obj.data.toString('utf8')) as Partial<LatestPointer>;
  return typeof pointer.path === 'string' && typeof pointer.at === 'number' ? (pointer as LatestPointer) : null;
}

/**
 * Every market's most listed items, named as their item pages name them, and how long the page may be cached:
 * until the next hour, or 60 s (the pointers' own time) while a market's snapshot of this hour is not written.
 */
export async function homeMarkets(svc: Pick<Services, 'config' | 'clock' | 'catalogue' | 'files'>): Promise<{ markets: HomeMarket[]; cacheControl: string }> {
  const now = svc.clock.now();
  const ref = await currentItemFiles(svc);
  const pointers = await Promise.all(MARKETS.map((m) => pointerOf(svc, m)));
  const markets = await Promise.all(
    MARKETS.map(async (market, i): Promise<HomeMarket> => {
      const pointer = pointers[i];
      if (!pointer) return { market, at: null, top: [] };
      const top = await Promise.all(
        (await topOf(svc, pointer.path)).map(async ([key, price, quantity]) => ({
          key,
          price,
          quantity,
          name: pageName({ key, ...(ref ? await itemOfKeyIn(svc, ref, key) : { item: null }) }),
        })),
      );
      return { market, at: pointer.at, top };
    }),
  );
  const stale = pointers.some((p) => p !== null && hourOf(p.at) < hourOf(now));
  return { markets, cacheControl: `public, max-age=${stale ? 60 : secondsToNextHour(now)}` };
}
