/**
 * Single-table key formats (pk / sk strings), in one file. Every adapter builds keys here and nowhere else.
 * Sections are owned by concern; `ttl` (seconds) is set on items that expire.
 */
import type { PkFamily } from '../topology';

/**
 * The partition key families: every pk this file builds is one of these strings or starts with one, and
 * each function's IAM role may touch only the families its manifest entry lists (shared/topology.ts
 * `tableKeys`, granted as `dynamodb:LeadingKeys` patterns: `<family>*`, or the exact pk for `ITEMS` and
 * `CATALOGUE`). A family is never a prefix of another's pks (`PAIR#` vs `PAIRCODE#`, `LIVE#` vs `LIVEC#`).
 */
export const PK_FAMILIES = {
  user: 'USER#',
  deviceToken: 'DEVTOK#',
  pairing: 'PAIR#',
  pairCode: 'PAIRCODE#',
  apiKey: 'APIKEY#',
  rate: 'RATE#',
  market: 'MKT#',
  view: 'VIEW#',
  upload: 'UPL#',
  items: 'ITEMS',
  catalogue: 'CAT#',
  catalogueReport: 'CATREP#',
  catalogueAccount: 'CATACC#',
  catalogueMeta: 'CATALOGUE',
  files: 'FILES#',
  cap: 'CAP#',
  liveHubs: 'LIVE#',
  liveConn: 'LIVEC#',
  conn: 'CONN#',
  alerts: 'ALERTS#',
  alertFired: 'ALERTFIRED#',
  pushEndpoint: 'PUSHEP#',
} as const satisfies Record<PkFamily, string>;

export type { PkFamily };

/** The `dynamodb:LeadingKeys` pattern of a family: every pk of it, and no other family's. */
export const leadingKeyPattern = (family: PkFamily): string => {
  const prefix: string = PK_FAMILIES[family];
  return prefix.endsWith('#') ? `${prefix}*` : prefix;
};

/** The family of a partition key, or undefined for a pk no builder here makes. */
export const familyOf = (pk: string): PkFamily | undefined =>
  (Object.keys(PK_FAMILIES) as PkFamily[]).find((f) => {
    const prefix: string = PK_FAMILIES[f];
    return prefix.endsWith('#') ? pk.startsWith(prefix) : pk === prefix;
  });

// ── Identity and accounts ────────────────────────────────────────────────────────────────

/** An account's items: its profile (claims cache + contributor window), devices and contribution records. */
export const userPk = (userId: string): string => `USER#${userId}`;
export const PROFILE_SK = 'PROFILE';
export const DEVICE_SK_PREFIX = 'DEVICE#';
export const deviceSk = (deviceId: string): string => `${DEVICE_SK_PREFIX}${deviceId}`;
export const CONTRIBUTION_SK_PREFIX = 'CONTRIB#';
/** Sorted by receipt time (zero-padded ms) so a range query reads "since `from`", newest first. */
export const contributionSk = (received: number, id: string): string => `${CONTRIBUTION_SK_PREFIX}${String(received).padStart(15, '0')}#${id}`;
/** A device token, by its SHA-256 (hex); the token itself is never stored. */
export const deviceTokenPk = (tokenHash: string): string => `DEVTOK#${tokenHash}`;
export const DEVICE_TOKEN_SK = 'TOKEN';
export const pairingPk = (pairId: string): string => `PAIR#${pairId}`;
export const PAIRING_SK = 'PAIR';
/** A pairing code, by its SHA-256 (hex), pointing at its pairing. */
export const pairCodePk = (codeHash: string): string => `PAIRCODE#${codeHash}`;
export const PAIR_CODE_SK = 'CODE';
/** An account's window of missed pairing confirms (under the account: `USER#<id>`). */
export const PAIR_MISS_SK = 'PAIRMISS';
/** A cached API key verification, by the key's SHA-256 (hex). */
export const apiKeyPk = (keyHash: string): string => `APIKEY#${keyHash}`;
export const API_KEY_SK = 'VERIFY';
/** Requests of one caller in one minute (`minute` = floor(ms / 60000)). */
export const ratePk = (callerId: string): string => `RATE#${callerId}`;
export const rateSk = (minute: number): string => String(minute);

// ── Market data (packed pages, seq, scan log, books) ─────────────────────────────────────
// Every market item's pk starts `MKT#`: only the functions with `marketPages` access may write them.

export const MARKET_PK_PREFIX = PK_FAMILIES.market;
const pad = (n: number, width: number): string => String(n).padStart(width, '0');
/** The market's state: seq, newest scan, current book, history compaction mark. */
export const marketMetaKey = (market: string) => ({ pk: `MKT#${market}`, sk: 'META' });
/** How far day history is compacted (`through` day), apart from META so merges' conditional seq writes never race it. */
export const historyMarkKey = (market: string) => ({ pk: `MKT#${market}`, sk: 'HIST' });
/** One key shard of the market's table of rows. */
export const rowsPk = (market: string): string => `MKT#${market}#ROWS`;
export const shardSk = (shard: number): string => pad(shard, 5);
/** One period's candle page (`res` m1 / h1 / d1, `period` = minute / hour / day number), one item per key shard. */
export const candlePk = (market: string, res: string, period: number): string => `MKT#${market}#${res}#${period}`;
/** One day's volume estimates, one item per key shard. */
export const volumePk = (market: string, day: number): string => `MKT#${market}#vol#${day}`;
/** Compacted day history (90 days of day candles and volume) in fine key shards, for cheap single-item reads. */
export const historyPk = (market: string): string => `MKT#${market}#hist`;
/** One merge, by seq: what the live fan-out announces (`ah`) and the catch-up index of change files. */
export const mergePk = (market: string): string => `MKT#${market}#seq`;
export const mergeSk = (seq: number): string => pad(seq, 12);
/** The scan log (never answered): one entry per merged upload, by observation time. */
export const scanLogPk = (market: string): string => `MKT#${market}#scans`;
export const scanLogSk = (at: number, id: string): string => `${pad(at, 15)}#${id}`;
/** Stored books (snapshots kept 30 days), by observation time. */
export const bookLogPk = (market: string): string => `MKT#${market}#books`;
export const bookLogSk = (at: number): string => pad(at, 15);
/** Failures of one accepted upload's merge that were not a dependency's (its poison budget), by upload id. */
export const mergeFailureKey = (market: string, uploadId: string) => ({ pk: `MKT#${market}#fail`, sk: uploadId });

// ── Read cache (hourly view) ─────────────────────────────────────────────────────────────
// Not market pages (no `MKT#`): the API function, which may not write market pages, keeps them. All expire.

export const VIEW_PK_PREFIX = PK_FAMILIES.view;
/** A reused hourly answer (spec Freshness), by a hash of hour, path, query and caller restriction; `sk` orders its chunks. */
export const viewAnswerPk = (hash: string): string => `${VIEW_PK_PREFIX}${hash}`;
/** The hour's spilled file of one shared answer and encoding (`answers/v1/…`, expiring with the hour). */
export const spilledAnswerKey = (key: string) => ({ pk: `${VIEW_PK_PREFIX}file#${key}`, sk: '0' });
/** A day's or an hour's answer fragment (whole-market reads), chunked like the hour's answers. */
export const fragmentPk = (key: string): string => `${VIEW_PK_PREFIX}frag#${key}`;
/** A market's day so far before an hour's cut (hour candles folded from the day start), one item per key shard. */
export const daySoFarPk = (market: string, hour: number): string => `${VIEW_PK_PREFIX}${market}#day#${hour}`;

/** What retention last did to the market (its marks per page kind), so it never scans the table. */
export const marketRetentionKey = (market: string) => ({ pk: `MKT#${market}`, sk: 'RETENTION' });

// ── Uploads (admission records; not `MKT#`, so the upload function may write them) ────────

/** The 5-minute limit of one caller (or partner `via`) on one market: the last accepted book. */
export const uploadLimitKey = (subject: string, market: string) => ({ pk: `UPL#LIMIT#${subject}`, sk: market });
/** The claim on a market's `at`: the first caller to store a book with it (the duplicate rule). */
export const uploadClaimKey = (market: string, at: number) => ({ pk: `UPL#CLAIM#${market}`, sk: pad(at, 15) });
/** The first answer to an upload, by the hash of (account, caller, market, kind, at): retries get it again. */
export const uploadRetryKey = (retryHash: string) => ({ pk: `UPL#RETRY#${retryHash}`, sk: 'ANSWER' });
/** An account's last credited upload of a market (credit interval), under the account. */
export const creditIntervalSk = (market: string): string => `CREDIT#${market}`;
/** A quarantined upload (`disagrees`), by receipt time: the body's private path, kept 7 days. */
export const quarantinePk = (market: string): string => `UPL#QUAR#${market}`;
export const quarantineSk = (received: number, id: string): string => `${pad(received, 15)}#${id}`;

// ── Item data and catalogue ──────────────────────────────────────────────────────────────

/** Published item builds (`sk` BUILD#<build>) and the current one (`sk` CURRENT). */
export const ITEMS_PK = 'ITEMS';
export const ITEMS_CURRENT_SK = 'CURRENT';
export const itemBuildSk = (build: string): string => `BUILD#${build}`;
/** Catalogue entries in CATALOGUE_SHARDS partitions (a rebuild reads them all), one item per key. */
export const CATALOGUE_SHARDS = 32;
export const catalogueEntryKey = (key: number) => ({ pk: `CAT#${pad(key % CATALOGUE_SHARDS, 2)}`, sk: pad(key, 16) });
export const catalogueShardPk = (shard: number): string => `CAT#${pad(shard, 2)}`;
/**
 * Each account's latest report of a key (account as an opaque hash), under the account so its reports can be
 * listed (and withdrawn when it expires), in CATALOGUE_REPORT_SHARDS partitions so one upload's writes spread.
 */
export const CATALOGUE_REPORT_SHARDS = 16;
export const catalogueReportPk = (accountHash: string, shard: number): string => `CATREP#${accountHash}#${pad(shard, 2)}`;
export const catalogueReportKey = (key: number, accountHash: string) => ({
  pk: catalogueReportPk(accountHash, key % CATALOGUE_REPORT_SHARDS),
  sk: pad(key, 16),
});
/** Accounts that report to the catalogue (their last upload and the day's count of new keys), in a few partitions. */
export const CATALOGUE_ACCOUNT_SHARDS = 8;
export const catalogueAccountsPk = (shard: number): string => `${PK_FAMILIES.catalogueAccount}${shard}`;
export const catalogueAccountKey = (accountHash: string) => ({
  pk: catalogueAccountsPk(Number.parseInt(accountHash.slice(0, 4), 16) % CATALOGUE_ACCOUNT_SHARDS),
  sk: accountHash,
});
/** When an accepted name last changed (drives the merged files' rebuild). */
export const CATALOGUE_META_KEY = { pk: 'CATALOGUE', sk: 'META' } as const;

// ── Files, capabilities and live sockets ─────────────────────────────────────────────────
// None of these pks starts `MKT#`: the api, fanout and live functions read and write them too.

/**
 * A market's file state: newest sealed period per resolution, newest day, full-day and volume file paths,
 * newest snapshot hour. Its stream MODIFY is the fan-out's `sealed` notice.
 */
export const filesStateKey = (market: string) => ({ pk: `FILES#${market}`, sk: 'STATE' });
export const FILES_STATE_PK_PREFIX = PK_FAMILIES.files;
/** Capabilities of a market, one item per scope (`<kind>#<seq | day | at>`). */
export const capPk = (market: string): string => `CAP#${market}`;
export const capSk = (kind: string, n: number): string => `${kind}#${pad(n, 15)}`;
/** A market's live hubs: one counter item per hub (`sk` HUB#<n>) holding its socket count. */
export const liveHubsPk = (market: string): string => `LIVE#${market}`;
export const liveHubSk = (hub: number): string => `HUB#${pad(hub, 4)}`;
/** The sockets of one hub (at most 2000), `sk` = connection id. */
export const LIVE_CONN_PK_PREFIX = PK_FAMILIES.liveConn;
export const liveConnPk = (market: string, hub: number): string => `${LIVE_CONN_PK_PREFIX}${market}#${pad(hub, 4)}`;
/** Where a connection id lives (`$default` and `$disconnect` know only the id). */
export const connPointerKey = (connectionId: string) => ({ pk: `CONN#${connectionId}`, sk: 'CONN' });
/** An account's sockets, under `userPk`, so role changes and device deletion find them with one query. */
export const LIVE_USER_SK_PREFIX = 'LIVE#';
export const liveUserSk = (connectionId: string): string => `${LIVE_USER_SK_PREFIX}${connectionId}`;

// ── Settings (watchlist, alerts, boards, push) ───────────────────────────────────────────
// Account documents live in the account's partition (`userPk`); alerts live in their market's partition so
// the merge reads a market's alerts with one query (no index needed).

/** The watchlist and the boards document: one item each under `userPk`. */
export const WATCHLIST_SK = 'WATCH';
export const BOARDS_SK = 'BOARDS';
/** The account's alert count, kept beside its alerts so a conditional write enforces `limit(alerts)`. */
export const ALERT_COUNT_SK = 'ALERTCOUNT';
/** An alert: in its market's partition, sorted by owner then id (`begins_with(sk, "<userId>#")` lists an owner's). */
export const alertsPk = (market: string): string => `ALERTS#${market}`;
export const alertSk = (userId: string, alertId: string): string => `${userId}#${alertId}`;
/**
 * A fired alert, written once per firing for the live fan-out (stream INSERT → `{t: "alert", alert}` to the
 * owner's sockets on that market); expires after a day.
 */
export const ALERT_FIRED_PK_PREFIX = PK_FAMILIES.alertFired;
export const alertFiredPk = (market: string): string => `${ALERT_FIRED_PK_PREFIX}${market}`;
export const alertFiredSk = (at: number, userId: string, alertId: string): string => `${String(at).padStart(15, '0')}#${userId}#${alertId}`;
/** A push subscription under `userPk`, by the SHA-256 (hex) of its endpoint. */
export const PUSH_SUB_SK_PREFIX = 'PUSHSUB#';
export const pushSubSk = (endpointHash: string): string => `${PUSH_SUB_SK_PREFIX}${endpointHash}`;
/** Which account an endpoint belongs to (another account subscribing it takes it over). */
export const pushEndpointPk = (endpointHash: string): string => `PUSHEP#${endpointHash}`;
export const PUSH_ENDPOINT_SK = 'OWNER';
/** The account's push window: last send, alerts waiting for the 30 s window, the pending flush. */
export const PUSH_STATE_SK = 'PUSHSTATE';
