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
 * table (a conditional put, so racing writers agree on one file). Live history and intraday answers are
 * shared the same way until the market's next merge (liveUntilMerge); other per-caller answers get their own
 * short-lived file. Everything under `answers/` expires (answer-retention.ts; an S3 lifecycle rule in AWS).
 */
import { randomBytes } from 'node:crypto';
import { hourOf, secondsToNextHour } from '../clock';
import { newCap } from '../domain/caps';
import { JsonText } from '../market/json-bytes';
import type { Services } from '../services';
import { liveHeaders } from './answer-cache';
import { acceptsGzip, compressLarge, gzipLarge } from './respond';
import type { HttpResult } from './types';

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

/**
 * How an answer may be shared: `hourly` by the answer-cache key (every caller of one restriction), `merge` by
 * a key naming the market's seq (live callers until the next merge: liveUntilMerge), else per caller.
 */
export type AnswerSharing = { kind: 'hourly'; key: string } | { kind: 'merge'; key: string } | { kind: 'caller' };

/** The answer as the caller gets it: compressed when accepted and large, and past `SPILL_FROM` a redirect to a file. */
export async function fitAnswer(
  svc: Pick<Services, 'config' | 'clock' | 'market' | 'files'>,
  result: HttpResult,
  acceptEncoding: string | undefined,
  sharing: AnswerSharing,
): Promise<HttpResult> {
  const encoded = await compressLarge(result, acceptEncoding);
  if (encoded.statusCode !== 200 || typeof encoded.body !== 'string' || encoded.body.length < SPILL_FROM / 2) return encoded;
  // A body longer than the limit in characters is longer in bytes: no need to serialize 27 MB to learn it.
  if (encoded.body.length <= SPILL_FROM && resultBytes(encoded) <= SPILL_FROM) return encoded;
  const headers = Object.fromEntries(Object.entries(encoded.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
  return spill(svc, headers, Buffer.from(encoded.body, encoded.isBase64Encoded ? 'base64' : 'utf8'), sharing);
}

/** Writes `data` (the body, gzip when `headers` say so) to its answer file and answers the 303 to it. */
async function spill(
  svc: Pick<Services, 'config' | 'clock' | 'market' | 'files'>,
  headers: Record<string, string>,
  data: Buffer,
  sharing: AnswerSharing,
): Promise<HttpResult> {
  const gzip = headers['content-encoding'] === 'gzip';
  const file: AnswerFile = {
    data,
    gzip,
    contentType: headers['content-type'] ?? 'application/json; charset=utf-8',
    // Merge-shared files are live answers: private like a caller's own.
    cacheControl: sharing.kind === 'hourly' ? `public, max-age=${secondsToNextHour(svc.clock.now())}` : PRIVATE_FILE,
  };
  const path = sharing.kind === 'caller' ? await writeAnswerFile(svc, file) : await sharedFile(svc, `${sharing.key}#${encodingName(gzip)}`, file);
  return redirect(svc, headers, path);
}

/** Characters of `n` bytes in base64. */
const base64Length = (n: number): number => 4 * Math.ceil(n / 3);

/**
 * A live answer written as JSON bytes (the whole-market reads), fitted as fitAnswer fits the same body as text,
 * to the byte: past the spill size its file is written from those bytes, or from their gzip when the caller
 * takes it, so a 27 MB answer is never made a string and encoded back, nor its gzip sent through base64 and
 * back (issue 27 point 3). Anything smaller goes through fitAnswer as text.
 */
async function fitJson(
  svc: Pick<Services, 'config' | 'clock' | 'market' | 'files'>,
  body: JsonText,
  acceptEncoding: string | undefined,
  sharing: AnswerSharing,
): Promise<HttpResult> {
  const bytes = body.bytes;
  // A body of SPILL_FROM characters or more always spills as text (its serialized result is longer still).
  if (!bytes || bytes.length < SPILL_FROM) return fitAnswer(svc, { statusCode: 200, headers: liveHeaders(), body: body.text }, acceptEncoding, sharing);
  // compressLarge's headers for a large answer.
  const headers = { ...liveHeaders(), vary: 'Accept-Encoding' };
  if (!acceptsGzip(acceptEncoding)) return spill(svc, headers, bytes, sharing);
  const gzipped = { ...headers, 'content-encoding': 'gzip' };
  const data = await gzipLarge(bytes);
  // Compressed into the limit's neighbourhood: fitAnswer decides on the serialized result, as for any answer.
  if (base64Length(data.length) <= SPILL_FROM)
    return fitAnswer(svc, { statusCode: 200, headers: gzipped, body: data.toString('base64'), isBase64Encoded: true }, acceptEncoding, sharing);
  return spill(svc, gzipped, data, sharing);
}

const encodingName = (gzip: boolean): string => (gzip ? 'gzip' : 'identity');

/** The 303 to an answer file: the answer's own headers (Cache-Control, Vary) kept, its body's type and encoding dropped. */
function redirect(svc: Pick<Services, 'config'>, headers: Record<string, string>, path: string): HttpResult {
  const location = `${svc.config.cdnBase}${path}`;
  const { 'content-encoding': _encoding, 'content-type': _type, ...kept } = headers;
  return {
    statusCode: 303,
    headers: { ...kept, 'content-type': 'application/json; charset=utf-8', location },
    body: JSON.stringify({ url: location }),
  };
}

/**
 * A live whole-market answer (history, intraday) that cannot change before the market's next merge, `key`
 * naming everything else it depends on (route, market, resolved window, the day or hour it ends in, depth).
 * Past the spill size it is written to a file once per merge, encoding and hour and every live caller asking
 * the same is sent to that file, without computing it again (issue 27 point 3: a 27 MB history costs its
 * file's download, not its build and upload). The key holds the seq read before the answer is computed: a
 * merge committed since moves every later caller to a new key, so a file is never served after a merge newer
 * than its answer; one that lands during the computation is at worst in the file too (as in any live read).
 * The file's `now` is its first caller's: never before the market's newest merge nor the hour's start (an
 * interpretation: nothing the answer holds changed after it). Small answers are never recorded. `compute`
 * answers the result, or the body as JsonText for a live 200 with liveHeaders() (written from its bytes: fitJson).
 */
export async function liveUntilMerge(
  svc: Pick<Services, 'config' | 'clock' | 'market' | 'files'>,
  market: string,
  key: string,
  acceptEncoding: string | undefined,
  compute: () => Promise<HttpResult | JsonText>,
): Promise<HttpResult> {
  // Strongly consistent: a caller after a commit must see its seq (else it could be sent to the previous file).
  const shared = `live#${(await svc.market.latest.meta(market)).seq}#${key}`;
  const known = await svc.market.answers.spilledFile(`${shared}#${encodingName(acceptsGzip(acceptEncoding))}`, svc.clock.now());
  if (known) return redirect(svc, liveRedirectHeaders, known);
  const answer = await compute();
  const sharing: AnswerSharing = { kind: 'merge', key: shared };
  return answer instanceof JsonText ? fitJson(svc, answer, acceptEncoding, sharing) : fitAnswer(svc, answer, acceptEncoding, sharing);
}

/** A live answer's headers as fitAnswer keeps them on its redirect (compressLarge adds the Vary). */
const liveRedirectHeaders: Record<string, string> = { ...liveHeaders(), vary: 'Accept-Encoding' };

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
