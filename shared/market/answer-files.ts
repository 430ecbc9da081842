/**
 * Answers too big for a synchronous Lambda (issue 13 point 3). A Lambda answers at most 6 MB (6291556 bytes
 * of the serialized result: the JSON envelope API Gateway receives, binary bodies as base64), so a history,
 * intraday, snapshot or book answer past `SPILL_FROM` is written once to the files bucket under
 * `answers/v1/<cap>/<hour>.json[.gz]` (a fresh 22-character capability, as the spec's capability files) and
 * answered `303 See Other` with the file host URL in `Location`. Small answers are never redirected.
 *
 * 303, not 302 or 307: RFC 9110 §15.4.4 names this case (the origin cannot transfer the representation itself
 * and points at a resource that has it) and tells every client to follow with a GET, whatever the method;
 * 307 would promise the same resource moved (and keep the method), 302 leaves the method to the client.
 *
 * Hourly answers (one per restriction, spec Freshness) are written once per hour and encoding and shared by
 * every caller of that restriction: the first writer records the file under the answer-cache key in the
 * table (a conditional put, so racing writers agree on one file). Live and per-caller answers get their own
 * short-lived file. Everything under `answers/` expires (answer-retention.ts; an S3 lifecycle rule in AWS).
 */
import { randomBytes } from 'node:crypto';
import { hourOf, secondsToNextHour } from '../clock';
import { newCap } from '../files/caps';
import { compressLarge } from '../http/respond';
import type { HttpResult } from '../http/types';
import type { Services } from '../services';

/** Lambda's synchronous response limit: "Exceeded maximum allowed payload size (6291556 bytes)". */
export const LAMBDA_PAYLOAD_MAX = 6_291_556;
/**
 * Answers whose serialized result is above this go to a file: 5 MiB keeps a margin of about 1 MiB under the
 * limit for what is added after the measurement (the redirect's own headers are tiny; API Gateway's response
 * headers are not counted by Lambda) and for a body measured as text whose escaping grows it.
 */
export const SPILL_FROM = 5 * 1024 * 1024;
export const ANSWERS_PREFIX = 'answers/v1/';
/** Per-caller files: read once, right after the redirect; kept private (never cached by the edge). */
const PRIVATE_FILE = 'private, max-age=300';

/** The bytes a Lambda result takes as the runtime posts it (what the 6 MB limit counts). */
export const resultBytes = (result: HttpResult): number => Buffer.byteLength(JSON.stringify(result));

/** How an answer may be shared: `hourly` by the answer-cache key (every caller of one restriction), else per caller. */
export type AnswerSharing = { kind: 'hourly'; key: string } | { kind: 'caller' };

/** The answer as the caller gets it: compressed when accepted and large, and past `SPILL_FROM` a redirect to a file. */
export async function fitAnswer(
  svc: Pick<Services, 'config' | 'clock' | 'market' | 'files'>,
  result: HttpResult,
  acceptEncoding: string | undefined,
  sharing: AnswerSharing,
): Promise<HttpResult> {
  const encoded = await compressLarge(result, acceptEncoding);
  if (encoded.statusCode !== 200 || typeof encoded.body !== 'string' || encoded.body.length < SPILL_FROM / 2 || resultBytes(encoded) <= SPILL_FROM)
    return encoded;
  const headers = Object.fromEntries(Object.entries(encoded.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
  const gzip = headers['content-encoding'] === 'gzip';
  const data = Buffer.from(encoded.body, encoded.isBase64Encoded ? 'base64' : 'utf8');
  const now = svc.clock.now();
  const file: AnswerFile = {
    data,
    gzip,
    contentType: headers['content-type'] ?? 'application/json; charset=utf-8',
    cacheControl: sharing.kind === 'hourly' ? `public, max-age=${secondsToNextHour(now)}` : PRIVATE_FILE,
  };
  const path = sharing.kind === 'hourly' ? await sharedFile(svc, `${sharing.key}#${gzip ? 'gzip' : 'identity'}`, file) : await writeAnswerFile(svc, file);
  const location = `${svc.config.cdnBase}${path}`;
  const { 'content-encoding': _encoding, 'content-type': _type, ...kept } = headers;
  return {
    statusCode: 303,
    headers: { ...kept, 'content-type': 'application/json; charset=utf-8', location },
    body: JSON.stringify({ url: location }),
  };
}

interface AnswerFile {
  data: Buffer;
  gzip: boolean;
  contentType: string;
  cacheControl: string;
}

/** `answers/v1/<cap>/<hour>.json[.gz]`: the hour in the path is what retention ages the file by. */
export const answerPath = (cap: string, hour: number, gzip: boolean): string => `${ANSWERS_PREFIX}${cap}/${hour}.json${gzip ? '.gz' : ''}`;

async function writeAnswerFile(svc: Pick<Services, 'clock' | 'files'>, file: AnswerFile): Promise<string> {
  const path = answerPath(
    newCap((n) => randomBytes(n)),
    hourOf(svc.clock.now()),
    file.gzip,
  );
  await svc.files.put(path, file.data, { contentType: file.contentType, contentEncoding: file.gzip ? 'gzip' : undefined, cacheControl: file.cacheControl });
  return path;
}

/** The hour's file of a shared answer: the one already written, else this one (the first recorded wins a race; ours then expires unread). */
async function sharedFile(svc: Pick<Services, 'clock' | 'market' | 'files'>, key: string, file: AnswerFile): Promise<string> {
  const now = svc.clock.now();
  const known = await svc.market.answers.spilledFile(key, now);
  if (known) return known;
  return svc.market.answers.recordSpilledFile(key, await writeAnswerFile(svc, file), now);
}
