/**
 * Single-table key formats (pk / sk strings), in one file. Every adapter builds keys here and nowhere else.
 * Sections are owned by concern; `ttl` (seconds) is set on items that expire.
 */

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
/** A cached API key verification, by the key's SHA-256 (hex). */
export const apiKeyPk = (keyHash: string): string => `APIKEY#${keyHash}`;
export const API_KEY_SK = 'VERIFY';
/** Requests of one caller in one minute (`minute` = floor(ms / 60000)). */
export const ratePk = (callerId: string): string => `RATE#${callerId}`;
export const rateSk = (minute: number): string => String(minute);

// ── Market data (packed pages, seq, scan log, books) ─────────────────────────────────────
// Every market item's pk starts `MKT#`: only the functions with `marketPages` access may write them.

export const MARKET_PK_PREFIX = 'MKT#';
const pad = (n: number, width: number): string => String(n).padStart(width, '0');
/** The market's state: seq, newest scan, current book, history compaction mark. */
export const marketMetaKey = (market: string) => ({ pk: `MKT#${market}`, sk: 'META' });
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
/** The scan log (never answered): one entry per merged or quarantined upload, by observation time. */
export const scanLogPk = (market: string): string => `MKT#${market}#scans`;
export const scanLogSk = (at: number, id: string): string => `${pad(at, 15)}#${id}`;
/** Stored books (snapshots kept 30 days), by observation time. */
export const bookLogPk = (market: string): string => `MKT#${market}#books`;
export const bookLogSk = (at: number): string => pad(at, 15);

// ── Item data and catalogue ──────────────────────────────────────────────────────────────

/** Published item builds (`sk` BUILD#<build>) and the current one (`sk` CURRENT). */
export const ITEMS_PK = 'ITEMS';
export const ITEMS_CURRENT_SK = 'CURRENT';
export const itemBuildSk = (build: string): string => `BUILD#${build}`;
/** Catalogue entries in CATALOGUE_SHARDS partitions (a rebuild reads them all), one item per key. */
export const CATALOGUE_SHARDS = 32;
export const catalogueEntryKey = (key: number) => ({ pk: `CAT#${pad(key % CATALOGUE_SHARDS, 2)}`, sk: pad(key, 16) });
export const catalogueShardPk = (shard: number): string => `CAT#${pad(shard, 2)}`;
/** Each account's latest report of a key (account as an opaque hash), under the key so writes spread. */
export const catalogueReportKey = (key: number, accountHash: string) => ({ pk: `CATREP#${key}`, sk: accountHash });
/** When an accepted name last changed (drives the merged files' rebuild). */
export const CATALOGUE_META_KEY = { pk: 'CATALOGUE', sk: 'META' } as const;

// ── Files, capabilities and live sockets ─────────────────────────────────────────────────

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
export const ALERT_FIRED_PK_PREFIX = 'ALERTFIRED#';
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
