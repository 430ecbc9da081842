/**
 * `/openapi.json` (spec api.md Conventions): OpenAPI 3.1 description of the integration subset: public market
 * summaries, item metadata, item prices, daily candles and book uploads. Pure: the document for a base URL.
 * Its answer schemas are written here; who may call each operation, its other statuses (errors, 303, 304) and
 * its headers are those of the same operation in `/openapi.full.json`, so the two never disagree (issue 24).
 */
import { itemKeyJsonSchema } from '../api/common.schemas';
import { MARKETS } from '../domain/market';
import { HEADERS, SECURITY_SCHEMES } from './openapi-answers';
import { fullOpenApiDocument } from './openapi-full';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const int = (description?: string, extra: Record<string, unknown> = {}) => ({ type: 'integer', ...(description ? { description } : {}), ...extra });
const arr = (items: unknown, description?: string) => ({ type: 'array', items, ...(description ? { description } : {}) });
const tuple = (description: string, prefixItems: unknown[]) => ({
  type: 'array',
  description,
  prefixItems,
  minItems: prefixItems.length,
  maxItems: prefixItems.length,
});
const obj = (properties: Record<string, unknown>, required: string[] = Object.keys(properties)) => ({ type: 'object', properties, required });
const nullable = (schema: Record<string, unknown>) => ({ oneOf: [schema, { type: 'null' }] });
const json = (schema: unknown, description = 'OK') => ({ description, content: { 'application/json': { schema } } });

/** The fields of an item record (spec: Item fields). */
const ITEM_FIELDS = {
  n: { type: 'string', description: 'name' },
  q: int('quality'),
  il: int('item level'),
  c: int('class'),
  sc: int('subclass'),
  ic: { type: 'string', description: 'icon name (GET /icons/<ic>.webp)' },
  fi: int('icon file id (GET /icons/id/<fi>.webp)'),
  sell: int('vendor sell price, copper'),
  buy: int('vendor buy price, copper'),
  st: int('max stack'),
  rs: { type: 'boolean', description: 'rolls a suffix' },
  bt: arr(int(), 'bonus tree ids'),
  fl: int('flags: bit 0 commodity, bit 1 equipment, bit 2 pet'),
};

const SCHEMAS = {
  Market: { type: 'string', enum: [...MARKETS] },
  ItemKey: itemKeyJsonSchema(),
  AuctionRow: tuple('[id, price or null, quantity, at]', [
    ref('ItemKey'),
    nullable(int('lowest unit price in copper')),
    int('quantity listed'),
    int('Unix ms of the scan'),
  ]),
  DayPoint: tuple('[day, low, last, quantity]', [int('day number (floor(ms / 86400000))'), int(), int(), int()]),
  Candle: tuple('[t, open, high, low, close, quantity]', [int('start in Unix ms'), int(), int(), int(), int(), int()]),
  VolumeEstimate: tuple('[day, listed, sold, expired]', [int(), int(), int(), int()]),
  MarketSummary: obj(
    {
      market: ref('Market'),
      at: int('newest scan, Unix ms'),
      items: int('keys with a row'),
      listed: int('keys with a quantity'),
      scans: int('scans in the preceding 24 hours'),
      contributors7d: int(),
      book: obj({ at: int(), complete: { type: 'boolean' }, auctions: int(), entries: int(), url: { type: 'string' } }),
    },
    ['market', 'at', 'items', 'listed', 'scans', 'contributors7d'],
  ),
  ItemRecord: obj(ITEM_FIELDS, ['n', 'q']),
  ItemFileRecord: obj(ITEM_FIELDS, []),
};

const hourly = 'Callers without `prices.live` get the market as of the top of the hour (`live: false`).';

// biome-ignore lint/suspicious/noExplicitAny: the document is walked field by field
type Json = Record<string, any>;

/**
 * Each operation with the full document's parameters, security and answers, its own 200 schema kept (the subset's
 * hand-written component schemas). The full document's error bodies and headers are self-contained.
 */
function withFullAnswers(paths: Json, full: Json): Json {
  const out: Json = {};
  for (const [path, ops] of Object.entries(paths)) {
    out[path] = {};
    for (const [method, op] of Object.entries(ops as Json)) {
      const twin = full.paths[path][method];
      const ok = twin.responses['200'];
      out[path][method] = {
        ...op,
        // Parameters and bodies too: the same names, types and rules in both documents.
        ...(twin.parameters ? { parameters: twin.parameters } : {}),
        ...(twin.requestBody ? { requestBody: twin.requestBody } : {}),
        ...(twin['x-rules-beyond-schema'] ? { 'x-rules-beyond-schema': twin['x-rules-beyond-schema'] } : {}),
        security: twin.security,
        responses: { ...twin.responses, '200': { ...ok, content: op.responses['200'].content } },
      };
    }
  }
  return out;
}

/** The OpenAPI 3.1 document for a deployment's public base URL. */
export function openApiDocument(publicBase: string): Record<string, unknown> {
  const doc = subsetDocument(publicBase);
  const paths = withFullAnswers(doc.paths, fullOpenApiDocument(publicBase));
  // Only the headers its answers name (a page's `Link` is not among them).
  const text = JSON.stringify(paths);
  const headers = Object.fromEntries(Object.entries(HEADERS).filter(([name]) => text.includes(`"#/components/headers/${name}"`)));
  return { ...doc, paths, components: { ...doc.components, headers } };
}

function subsetDocument(publicBase: string): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Market Data Service API (integration subset)',
      version: '1',
      description: `Prices, candles and item data of six auction-house markets. The complete endpoint directory is at ${publicBase}docs/api/reference.`,
    },
    servers: [{ url: publicBase.replace(/\/$/, '') }],
    externalDocs: { url: `${publicBase}docs/api/reference`, description: 'Endpoint directory' },
    security: [{}, { apiKey: [] }, { deviceToken: [] }, { sessionToken: [] }, { sessionCookie: [] }],
    components: { securitySchemes: SECURITY_SCHEMES, schemas: SCHEMAS, headers: HEADERS },
    paths: {
      '/api/v1/ah': {
        get: {
          operationId: 'listMarkets',
          summary: 'Public market summaries',
          description: hourly,
          responses: { 200: json(obj({ markets: arr(ref('MarketSummary')), now: int(), live: { type: 'boolean' } })) },
        },
      },
      '/api/v1/items': {
        get: {
          operationId: 'getItems',
          summary: 'Item metadata (generated data merged with the catalogue)',
          responses: {
            200: json(
              obj(
                {
                  v: { const: 1 },
                  build: { type: 'string' },
                  items: {
                    type: 'object',
                    description: 'records as generated, the catalogue filling `n`, `q`, `fi` and `fl` where they are missing (a record may lack a name)',
                    additionalProperties: ref('ItemFileRecord'),
                  },
                },
                ['v', 'build', 'items'],
              ),
            ),
          },
        },
      },
      '/api/v1/items/{key}': {
        get: {
          operationId: 'getItem',
          summary: "One key's item metadata",
          responses: {
            200: json(
              obj(
                {
                  build: { type: 'string' },
                  key: ref('ItemKey'),
                  item: nullable(ref('ItemRecord')),
                  variant: obj({ n: { type: 'string' }, q: int(), fi: int() }, ['n', 'q']),
                  now: int(),
                },
                ['build', 'key', 'item', 'now'],
              ),
            ),
          },
        },
      },
      '/api/v1/ah/{market}/{item}': {
        get: {
          operationId: 'getItemPrice',
          summary: "One item's price row and day points",
          description: `${hourly} \`days\` is limited to the caller's history days; \`volume\` needs \`depth\`.`,
          responses: {
            200: json(
              obj({
                market: ref('Market'),
                item: ref('ItemKey'),
                row: nullable(ref('AuctionRow')),
                days: arr(ref('DayPoint')),
                volume: arr(ref('VolumeEstimate')),
                now: int(),
                live: { type: 'boolean' },
              }),
            ),
          },
        },
      },
      '/api/v1/ah/{market}/{item}/candles': {
        get: {
          operationId: 'getItemCandles',
          summary: 'Daily candles of one item',
          description: '`res=d1` (default) needs `candles.daily`; `h1` and `m1` need more features.',
          responses: {
            200: json(
              obj({
                market: ref('Market'),
                item: ref('ItemKey'),
                res: { type: 'string' },
                candles: arr(ref('Candle')),
                volume: arr(ref('VolumeEstimate')),
                now: int(),
                live: { type: 'boolean' },
              }),
            ),
          },
        },
      },
      '/api/v1/ah/books': {
        post: {
          operationId: 'uploadBook',
          summary: 'Upload an order book',
          description:
            'Devices need `upload.device`, API keys `api.upload`; a browser session is 403 `devices_only`. Body may be gzip (`Content-Encoding: gzip`), at most 32 MiB.',
          responses: {
            200: json(obj({ at: int(), credited: { type: 'boolean' }, reason: { type: 'string' } }, ['at', 'credited'])),
          },
        },
      },
    },
  };
}
