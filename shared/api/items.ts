/** Item data routes (spec api.md: Item data): merged item data, search index, one key, unknown keys. */
import { parseItemKey } from '../domain/item-key';
import { itemOfKey, unknownKeys } from '../domain/items';
import type { Route, RoutesOf } from '../http/handler';
import { json, storedJson } from '../http/respond';
import type { ApiRequest, HttpResult } from '../http/types';
import type { StoredObject } from '../items/bucket';
import { keysWithRows } from '../items/market-keys';
import { currentItemFiles, type ItemFilesRef, itemFileObject, itemFileOf, resolveItemFiles } from '../items/read';
import { BuildQuery } from './items.schemas';
import { parseAs } from './zod-parse';

/** Item data changes at most every 10 minutes (spec: `Cache-Control: public, max-age=600`). */
const ITEMS_CACHE = 'public, max-age=600';
const PUBLIC = { kind: 'public', keyExempt: true } as const;

/** A stored item file passed through: still gzip when the caller accepts it (a Lambda answer is at most 6 MB), else plain. */
const fileAnswer = (req: ApiRequest, obj: StoredObject, ref: ItemFilesRef): HttpResult =>
  storedJson(obj.data, obj.contentEncoding === 'gzip', req.headers['accept-encoding'], { 'cache-control': ITEMS_CACHE, 'x-service-build': ref.build });

/** GET /api/v1/items?build: merged item data of the current or the named build; `X-Service-Build` names it. */
export const getItems: Route = {
  access: PUBLIC,
  async handle({ req, svc }) {
    const ref = await resolveItemFiles(svc, parseAs(BuildQuery, req.query, 'bad_build').build);
    return fileAnswer(req, await itemFileObject(svc, ref, 'items'), ref);
  },
};

/** GET /api/v1/items/search-index?build: the merged search index. */
export const getSearchIndex: Route = {
  access: PUBLIC,
  async handle({ req, svc }) {
    const ref = await resolveItemFiles(svc, parseAs(BuildQuery, req.query, 'bad_build').build);
    return fileAnswer(req, await itemFileObject(svc, ref, 'search'), ref);
  },
};

/** GET /api/v1/items/:key: `{build, key, item, variant?, now}` from the current merged data. */
export const getItem: Route = {
  access: PUBLIC,
  async handle({ req, svc }) {
    const key = parseItemKey(req.params.key);
    const ref = await resolveItemFiles(svc, undefined);
    const file = await itemFileOf(svc, ref);
    const { item, variant } = itemOfKey(file, key);
    const body = variant ? { build: ref.build, key, item, variant, now: svc.clock.now() } : { build: ref.build, key, item, now: svc.clock.now() };
    return json(200, body, { 'cache-control': ITEMS_CACHE, 'x-service-build': ref.build });
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
