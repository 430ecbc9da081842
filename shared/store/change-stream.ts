/**
 * The table stream as the change feed (shared/ports/changes.ts): the one module that knows which of the table's
 * items the fan-out and the roles watch hear of, by their keys. It defines the stream's filters (the stack's
 * event source mapping and the local stream poller use them) and decodes the records that pass them into
 * `ChangeEvent`s; each filter comes with its decoder, so a record is read only by the filter that let it
 * through, and the two cannot drift.
 *
 * Without a filter every write to the table invokes the fan-out, and most writes are not for it: each API
 * read counts its caller's minute (`RATE#…`), each merge rewrites market pages (`MKT#…`). Filtered records
 * are dropped before batching and cost no invocation. DynamoDB event source mappings filter only on the
 * record's `dynamodb` key (not `eventName`), so the decoder still tells INSERT from MODIFY itself; at most 5
 * filters per mapping (Lambda's default quota), a record passing any one of them.
 */
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { filesStateOf } from '../domain/files-state';
import { MARKETS } from '../domain/market';
import { type ChangeEvent, filesMove, type ProfileView, profileChange } from '../ports/changes';
import type { AlertFiredRecord } from '../ports/settings';
import { toConnection } from './dynamo-connections';
import { ALERT_FIRED_PK_PREFIX, DEVICE_SK_PREFIX, FILES_STATE_PK_PREFIX, LIVE_CONN_PK_PREFIX, mergePk, PROFILE_SK, userPk } from './keys';
import { isMergeRecordKey, mergeRecordOf } from './merge-log';
import { type FilterPattern, matchesPattern, type ValueRule } from './stream-filter';

type Image = Record<string, unknown>;

/** A record's keys and both images, as plain values. */
interface Parsed {
  name: DynamoDBRecord['eventName'];
  pk: string;
  sk: string;
  next?: Image;
  prev?: Image;
}

const keys = (pk: readonly ValueRule[], sk?: readonly ValueRule[]): FilterPattern => ({
  dynamodb: { Keys: sk ? { pk: { S: pk }, sk: { S: sk } } : { pk: { S: pk } } },
});

const USER_PK_PREFIX = userPk('');
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** A profile image as the roles watch reads it. */
const profileView = (image: Image | undefined): ProfileView => {
  const c = image?.claims;
  return { claims: c && typeof c === 'object' ? (c as ProfileView['claims']) : null, windowUntil: num(image?.windowUntil) };
};

function firingOf(image: Image | undefined): AlertFiredRecord | null {
  const userId = str(image?.userId);
  const market = str(image?.market);
  const alert = image?.alert;
  if (!userId || !market || !alert || typeof alert !== 'object') return null;
  const firing: AlertFiredRecord = { userId, market, at: num(image?.at) ?? 0, alert: alert as AlertFiredRecord['alert'] };
  const seq = num(image?.seq);
  if (seq !== null) firing.seq = seq;
  return firing;
}

/** Each filter with the decoder of the records it lets through. */
const STREAM: ReadonlyArray<{ filter: FilterPattern; decode: (r: Parsed) => ChangeEvent | null }> = [
  {
    // A new socket's record (its hub's counter and later updates say nothing).
    filter: keys([{ prefix: LIVE_CONN_PK_PREFIX }]),
    decode: (r) => (r.name === 'INSERT' && r.next?.connectionId ? { type: 'socket-opened', socket: toConnection(r.next) } : null),
  },
  {
    // A new merge record; a redelivered merge's rewrite of it is a MODIFY.
    filter: keys(MARKETS.map(mergePk)),
    decode: (r) => (r.name === 'INSERT' && r.next && isMergeRecordKey(r.pk, r.sk) ? { type: 'merged', record: mergeRecordOf(r.next) } : null),
  },
  {
    filter: keys([{ prefix: FILES_STATE_PK_PREFIX }], ['STATE']),
    decode: (r) => {
      if (r.name === 'REMOVE') return null;
      const market = r.pk.slice(FILES_STATE_PK_PREFIX.length);
      return filesMove(filesStateOf(market, r.prev), filesStateOf(market, r.next));
    },
  },
  {
    filter: keys([{ prefix: ALERT_FIRED_PK_PREFIX }]),
    decode: (r) => {
      const firing = r.name === 'INSERT' ? firingOf(r.next) : null;
      return firing ? { type: 'alert-fired', firing } : null;
    },
  },
  {
    // One filter for both account items (the mapping takes at most 5).
    filter: keys([{ prefix: USER_PK_PREFIX }], [PROFILE_SK, { prefix: DEVICE_SK_PREFIX }]),
    decode: (r) => {
      const userId = r.pk.slice(USER_PK_PREFIX.length);
      if (r.sk === PROFILE_SK) return r.name === 'REMOVE' ? null : profileChange(userId, profileView(r.prev), profileView(r.next));
      if (r.sk.startsWith(DEVICE_SK_PREFIX) && r.name === 'REMOVE') return { type: 'device-removed', userId, deviceId: r.sk.slice(DEVICE_SK_PREFIX.length) };
      return null;
    },
  },
];

/** The table stream's filters: the fan-out's event source mapping (lib/stack.ts) and the local stream poller. */
export const CHANGE_STREAM_FILTERS: readonly FilterPattern[] = STREAM.map((s) => s.filter);

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

function decodeOne(record: DynamoDBRecord): ChangeEvent | null {
  const k = record.dynamodb?.Keys as Record<string, { S?: string }> | undefined;
  const pk = k?.pk?.S;
  const sk = k?.sk?.S;
  if (!pk || !sk) return null;
  const entry = STREAM.find((s) => matchesPattern(record, s.filter));
  if (!entry) return null;
  return entry.decode({ name: record.eventName, pk, sk, next: image(record.dynamodb?.NewImage), prev: image(record.dynamodb?.OldImage) });
}

/**
 * The events of a batch of stream records, in the records' order. A record that cannot be read is skipped and
 * told to `unreadable`: a batch that throws is retried until it expires, holding every later notice back.
 */
export function decodeChangeRecords(records: readonly DynamoDBRecord[], unreadable: (err: unknown) => void = () => undefined): ChangeEvent[] {
  const out: ChangeEvent[] = [];
  for (const record of records) {
    try {
      const event = decodeOne(record);
      if (event) out.push(event);
    } catch (err) {
      unreadable(err);
    }
  }
  return out;
}
