/**
 * Everything merges leave behind in one market, with what differs between markets (names, caps, paths,
 * alert ids) taken out, so a market whose merges crashed can be compared with one whose merges ran clean.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../shared/clock';
import { BookLog } from '../../shared/store/book-log';
import { alertFiredPk } from '../../shared/store/keys';
import { MarketStore } from '../../shared/store/market-store';
import { MergeLog } from '../../shared/store/merge-log';
import { ScanLog } from '../../shared/store/scan-log';
import { cdnJson, listFiles } from './books';
import type { Local } from './local';
import { services } from './operator';

/** Change and checkpoint files are immutable: each is read once per test run. */
const fileCache = new Map<string, unknown>();
async function fileRows(local: Local, path: string): Promise<unknown> {
  const key = `${local.base}/${path}`;
  if (!fileCache.has(key)) fileCache.set(key, (await cdnJson(local, path)).rows);
  return fileCache.get(key);
}

/**
 * The state of `market` after its merges; `at` picks the candle and volume pages of the newest book. Uploader
 * hashes are replaced by their order of appearance (runtimes hash the same uploader differently).
 */
export async function mergeState(local: Local, market: string, at: number) {
  const svc = services();
  const table = svc.config.tableName;
  const store = new MarketStore(svc.ddb, table, undefined, true);
  const now = local.runtime.clock.now();
  const hashes = new Map<string, number>();
  const who = (hash: string): number => {
    if (!hashes.has(hash)) hashes.set(hash, hashes.size);
    return hashes.get(hash) as number;
  };
  const meta = await store.meta(market);
  const records = await new MergeLog(svc.ddb, table).after(market, 0, now);
  const pages: Record<string, unknown> = {};
  for (const [res, ms] of [
    ['m1', MINUTE_MS],
    ['h1', HOUR_MS],
    ['d1', DAY_MS],
  ] as const)
    pages[res] = sorted(await store.candlePage(market, res, Math.floor(at / ms)));
  const fired = await svc.ddb.send(
    new QueryCommand({
      TableName: table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': alertFiredPk(market) },
      ConsistentRead: true,
    }),
  );
  return {
    meta: {
      seq: meta.seq,
      newestScanAt: meta.newestScanAt,
      firstMergeAt: meta.firstMergeAt,
      pending: meta.pending ?? null,
      book: meta.currentBook && { ...meta.currentBook, ref: undefined },
    },
    rows: sorted(await store.rows(market)).map(([k, row]) => [k, { ...row, reader: who(row.reader) }]),
    pages,
    volume: sorted(await store.volumePage(market, Math.floor(at / DAY_MS))),
    records: records.map((r) => ({ seq: r.seq, at: r.at, mergedAt: r.mergedAt, bookAt: r.bookAt, checkpoint: r.checkpointPath !== undefined })),
    changes: await Promise.all(records.map((r) => fileRows(local, r.changePath))),
    checkpoints: await Promise.all(records.filter((r) => r.checkpointPath).map((r) => fileRows(local, r.checkpointPath as string))),
    liveFiles: (await listFiles(local, `live/v1/${market}/`)).length,
    scans: (await new ScanLog(svc.ddb, table, local.runtime.clock).between(market, 0, now)).map((s) => ({
      ...s,
      market: undefined,
      uploader: who(s.uploader),
    })),
    books: (await new BookLog(svc.ddb, table, local.runtime.clock).between(market, 0, now)).map((b) => ({ ...b, market: undefined, path: undefined })),
    fired: (fired.Items ?? []).map((f) => ({ at: f.at, seq: f.seq, kind: f.alert.kind, last: f.alert.last, armed: f.alert.armed })),
  };
}

/** An account's alerts as compared across markets: kind, value, state. */
export async function alertStates(local: Local, token: string) {
  const alerts = (await local.api('GET', '/api/v1/market/alerts', { token })).body.alerts as Array<{
    kind: string;
    value: number;
    armed: boolean;
    last: unknown;
  }>;
  if (!Array.isArray(alerts)) throw new Error('no alerts answer');
  return alerts.map((a) => ({ kind: a.kind, value: a.value, armed: a.armed, last: a.last })).sort((a, b) => a.kind.localeCompare(b.kind));
}

const sorted = <V>(m: ReadonlyMap<number, V>): Array<[number, V]> => [...m].sort((a, b) => a[0] - b[0]);
