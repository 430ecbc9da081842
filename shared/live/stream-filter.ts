/**
 * Which table stream records reach the fan-out: Lambda event filter patterns on the records' keys, written
 * once and used by the stack (the event source mapping's FilterCriteria) and by the local stream poller.
 *
 * Without a filter every write to the table invokes the fan-out, and most writes are not for it: each API
 * read counts its caller's minute (`RATE#…`), each merge rewrites market pages (`MKT#…`). Filtered records
 * are dropped before batching and cost no invocation. DynamoDB event source mappings filter only on the
 * record's `dynamodb` key (not `eventName`), so the fan-out still tells INSERT from MODIFY itself; at most 5
 * filters per mapping (Lambda's default quota), a record passing any one of them.
 */
import { MARKETS } from '../domain/market';
import { ALERT_FIRED_PK_PREFIX, DEVICE_SK_PREFIX, FILES_STATE_PK_PREFIX, LIVE_CONN_PK_PREFIX, mergePk, PROFILE_SK, userPk } from '../store/keys';

/** One value rule of a pattern: an exact string or a prefix; a list matches when any element does. */
type ValueRule = string | { prefix: string };
/** A Lambda filter pattern: nested objects down to lists of value rules. */
export interface FilterPattern {
  [field: string]: FilterPattern | readonly ValueRule[];
}

const keys = (pk: readonly ValueRule[], sk?: readonly ValueRule[]): FilterPattern => ({
  dynamodb: { Keys: sk ? { pk: { S: pk }, sk: { S: sk } } : { pk: { S: pk } } },
});

const USER_PK_PREFIX = userPk('');

/** The fan-out's records: new sockets (hello), merge records (ah), file states (sealed), fired alerts, account changes. */
export const FANOUT_STREAM_FILTERS: readonly FilterPattern[] = [
  keys([{ prefix: LIVE_CONN_PK_PREFIX }]),
  keys(MARKETS.map(mergePk)),
  keys([{ prefix: FILES_STATE_PK_PREFIX }], ['STATE']),
  keys([{ prefix: ALERT_FIRED_PK_PREFIX }]),
  keys([{ prefix: USER_PK_PREFIX }], [PROFILE_SK, { prefix: DEVICE_SK_PREFIX }]),
];

const matchesRule = (value: unknown, rules: readonly ValueRule[]): boolean =>
  typeof value === 'string' && rules.some((r) => (typeof r === 'string' ? value === r : value.startsWith(r.prefix)));

/** Whether an event matches a pattern, as Lambda evaluates the subset used here (every field must match). */
export function matchesPattern(event: unknown, pattern: FilterPattern): boolean {
  if (typeof event !== 'object' || event === null) return false;
  const e = event as Record<string, unknown>;
  return Object.entries(pattern).every(([field, rule]) =>
    Array.isArray(rule) ? matchesRule(e[field], rule as readonly ValueRule[]) : matchesPattern(e[field], rule as FilterPattern),
  );
}

/** Whether a record passes any of the filters (Lambda delivers it) or none (Lambda drops it). */
export const passesFilters = (record: unknown, filters: readonly FilterPattern[]): boolean => filters.some((f) => matchesPattern(record, f));
