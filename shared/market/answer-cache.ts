/**
 * Spec Freshness: "The first answer of the hour is reused until the hour ends (per path, query and caller
 * restriction)". Kept in the table (not in a function's memory) so every Lambda reuses the same answer; the
 * body is reused as it was (its `now` included) while `Cache-Control` is computed per request (DESIGN).
 * An answer is keyed by what its route reads, normalized (item key as a number, the window a `from` resolves
 * to), not by the request's text: unknown, reordered or differently written parameters find the same stored
 * answer instead of computing and storing another multi-megabyte one each (anyone could otherwise mint them).
 * Bodies are gzip-compressed and split into chunks below DynamoDB's 400 KB item limit (history answers of a
 * big market run to megabytes). Items expire at the end of their hour.
 */
import { createHash, randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { HOUR_MS, hourOf, secondsToNextHour } from '../clock';
import { NO_STORE } from '../http/respond';
import type { HttpResult } from '../http/types';
import type { Services } from '../services';
import { viewAnswerPk } from '../store/keys';

/** Below the 400 KB item limit with room for the key and attributes. */
const CHUNK_BYTES = 350_000;
const JSON_TYPE = 'application/json; charset=utf-8';

/** JSON text built by hand (a big answer would spend most of its time in JSON.stringify), used as it is. */
export class JsonText {
  constructor(readonly text: string) {}
}

/** An answer body as JSON text. */
export const bodyText = (body: unknown): string => (body instanceof JsonText ? body.text : JSON.stringify(body));

/** What one reused answer is keyed by: the route, the normalized values it reads, and the caller restriction (tier). */
export interface AnswerKey {
  /** The route's own name (not the request path, which has many spellings). */
  route: string;
  /** Everything the answer depends on besides the hour and the tier, parsed and resolved (e.g. the effective window). */
  params: ReadonlyArray<string | number | null>;
  restriction: string;
}

/** Spec Freshness headers of an hourly answer, computed per request. */
export const hourlyHeaders = (now: number): Record<string, string> => ({
  'content-type': JSON_TYPE,
  'cache-control': `public, max-age=${secondsToNextHour(now)}`,
  vary: 'Authorization, Cookie',
});

/** Spec Freshness: live answers are private and never cached. */
export const liveHeaders = (): Record<string, string> => ({ 'content-type': JSON_TYPE, 'cache-control': NO_STORE });

/** The cache key of an answer in the hour of `now` (the hour is part of it, so a new hour never sees an old answer). */
export function answerHash(key: AnswerKey, now: number): string {
  return createHash('sha256')
    .update(JSON.stringify([2, hourOf(now), key.route, key.params, key.restriction]))
    .digest('base64url');
}

/**
 * The hour's first answer for `key`, or `compute()`'s (stored for the rest of the hour). `compute` returns the
 * answer body; only successful answers are kept.
 */
export async function reuseHourly(svc: Services, key: AnswerKey, compute: () => Promise<unknown>): Promise<HttpResult> {
  const now = svc.clock.now();
  const hash = answerHash(key, now);
  const stored = await readAnswer(svc, hash, now);
  if (stored !== null) return { statusCode: 200, headers: hourlyHeaders(now), body: stored };
  const body = bodyText(await compute());
  try {
    await writeAnswer(svc, hash, body, now);
  } catch (err) {
    // A lost cache write only costs the next caller a recomputation.
    svc.log('warn', 'hourly answer not stored', { error: err instanceof Error ? err.message : String(err) });
  }
  return { statusCode: 200, headers: hourlyHeaders(now), body };
}

interface StoredChunk {
  sk: string;
  id: string;
  d: Uint8Array;
  n?: number;
  ttl: number;
}

/** The stored body, or null when absent, expired or incomplete (a concurrent writer's chunks mixed in). */
async function readAnswer(svc: Services, hash: string, now: number): Promise<string | null> {
  const chunks: StoredChunk[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await svc.ddb.send(
      new QueryCommand({ TableName: svc.config.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': viewAnswerPk(hash) }, ExclusiveStartKey: start }),
    );
    for (const item of out.Items ?? []) chunks.push(item as StoredChunk);
    start = out.LastEvaluatedKey;
  } while (start);
  const head = chunks.find((c) => c.sk === '0');
  if (!head || typeof head.n !== 'number' || head.ttl * 1000 <= now) return null;
  const parts = chunks.filter((c) => c.id === head.id).sort((a, b) => Number(a.sk) - Number(b.sk));
  if (parts.length !== head.n) return null;
  return gunzipSync(Buffer.concat(parts.map((c) => Buffer.from(c.d)))).toString('utf8');
}

/** Writes the chunks, the head last: a reader seeing the head with its `id` finds every chunk of that write. */
async function writeAnswer(svc: Services, hash: string, body: string, now: number): Promise<void> {
  const packed = gzipSync(body, { level: 1 });
  const id = randomBytes(6).toString('base64url');
  const ttl = Math.ceil(((hourOf(now) + 1) * HOUR_MS) / 1000);
  const n = Math.max(1, Math.ceil(packed.length / CHUNK_BYTES));
  const item = (i: number) => ({ pk: viewAnswerPk(hash), sk: String(i), id, d: packed.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES), ttl });
  await Promise.all(Array.from({ length: n - 1 }, (_, i) => svc.ddb.send(new PutCommand({ TableName: svc.config.tableName, Item: item(i + 1) }))));
  await svc.ddb.send(new PutCommand({ TableName: svc.config.tableName, Item: { ...item(0), n } }));
}
