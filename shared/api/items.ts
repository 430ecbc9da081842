/** Item data routes (spec api.md: Item data): merged item data, search index, one key, unknown keys. */

import { itemFilePaths } from '../domain/file-paths';
import { parseItemKey } from '../domain/item-key';
import { unknownKeys } from '../domain/items';
import { resultBytes, SPILL_FROM } from '../http/answer-files';
import type { Route, RoutesOf } from '../http/handler';
import { acceptsGzip, json, storedJson } from '../http/respond';
import type { ApiRequest, HttpResult } from '../http/types';
import { weakTag } from '../http/validators';
import type { StoredObject } from '../items/bucket';
import { keysWithRows } from '../items/market-keys';
import { currentItemFiles, type ItemFilesRef, itemFileObject, itemFileOf, itemOfKeyIn, resolveItemFiles } from '../items/read';
import type { Services } from '../services';
import { BuildQuery } from './items.schemas';
import { parseAs } from './zod-parse';

/** Item data changes at most every 10 minutes (spec: `Cache-Control: public, max-age=600`). */
const ITEMS_CACHE = 'public, max-age=600';
const PUBLIC = { kind: 'public', keyExempt: true } as const;

/** The size a gzip member records in its trailer (ISIZE, mod 2^32: item files stay far below 4 GiB). */
const gunzippedSize = (gz: Buffer): number => (gz.length >= 4 ? gz.readUInt32LE(gz.length - 4) : 0);

/**
 * A stored item file passed through: still gzip when the caller accepts it, else plain. Past what a Lambda
 * answer carries (issue 23; the limit and margin of shared/http/answer-files.ts) it is `303 See Other` to
 * the same file on the file host, public and immutable anyway, as big read answers are: a plain answer whose
 * text alone passes the limit is redirected without being decompressed. The file host serves it gzip.
 */
function fileAnswer(svc: Pick<Services, 'config'>, req: ApiRequest, obj: StoredObject, ref: ItemFilesRef, file: 'items' | 'search'): HttpResult {
  const headers = { 'cache-control': ITEMS_CACHE, 'x-service-build': ref.build };
  const gzipped = obj.contentEncoding === 'gzip';
  const asGzip = gzipped && acceptsGzip(req.headers['accept-encoding']);
  const tooBig = !asGzip && (gzipped ? gunzippedSize(obj.data) : obj.data.length) > SPILL_FROM;
  const answer = tooBig ? null : storedJson(obj.data, gzipped, req.headers['accept-encoding'], headers);
  // Measured only when it may matter: under half the limit, as shared/http/answer-files.ts measures.
  if (answer && (String(answer.body ?? '').length < SPILL_FROM / 2 || resultBytes(answer) <= SPILL_FROM)) return answer;
  const location = `${svc.config.cdnBase}${itemFilePaths(ref.build, ref.hash)[file]}`;
  return {
    statusCode: 303,
    headers: { ...headers, 'content-type': 'application/json; charset=utf-8', vary: 'Accept-Encoding', location },
    body: JSON.stringify({ url: location }),
  };
}

/** GET /api/v1/items?build: merged item data of the current or the named build; `X-Service-Build` names it. */
export const getItems: Route = {
  access: PUBLIC,
  async handle({ req, svc }) {
    const ref = await resolveItemFiles(svc, parseAs(BuildQuery, req.query, 'bad_build').build);
    return fileAnswer(svc, req, await itemFileObject(svc, ref, 'items'), ref, 'items');
  },
};

/** GET /api/v1/items/search-index?build: the merged search index. */
export const getSearchIndex: Route = {
  access: PUBLIC,
  async handle({ req, svc }) {
    const ref = await resolveItemFiles(svc, parseAs(BuildQuery, req.query, 'bad_build').build);
    return fileAnswer(svc, req, await itemFileObject(svc, ref, 'search'), ref, 'search');
  },
};

/**
 * GET /api/v1/items/:key: `{build, key, item, variant?, now}` from the current merged data. The spec lists
 * `now`, which changes on every request, so the answer's tag is a weak one over the answer without it
 * (RFC 9110 8.8.1: answers differing only in `now` are equivalent): a revalidation earns its 304 until the
 * record or the build changes.
 */
export const getItem: Route = {
  access: PUBLIC,
  async handle({ req, svc }) {
    const key = parseItemKey(req.params.key);
    const ref = await resolveItemFiles(svc, undefined);
    const { item, variant } = await itemOfKeyIn(svc, ref, key);
    const data = variant ? { build: ref.build, key, item, variant } : { build: ref.build, key, item };
    const result = json(200, { ...data, now: svc.clock.now() }, { 'cache-control': ITEMS_CACHE, 'x-service-build': ref.build });
    return { ...result, headers: { ...result.headers, etag: weakTag(String(result.headers?.['content-type']), JSON.stringify(data)) } };
  },
};

/** GET /api/v1/items/unknown: `{items, now}`, keys with a row in any market and no name, ascending. */
export const getUnknownItems: Route = {
  access: PUBLIC,
  async handle({ svc }) {
    const ref = await currentItemFiles(svc);
    const [file, keys] = await Promise.all([ref ? itemFileOf(svc, ref) : null, keysWithRows(svc)]);
    return json(200, { items: unknownKeys(file, keys), now: svc.clock.now() }, { 'cache-control': ITEMS_CACHE });
  },
};

/** The routes of this module, keyed as in shared/topology.ts. */
export const itemRoutes = {
  'GET /api/v1/items': getItems,
  'GET /api/v1/items/search-index': getSearchIndex,
  'GET /api/v1/items/unknown': getUnknownItems,
  'GET /api/v1/items/{key}': getItem,
} satisfies RoutesOf<'api'>;
