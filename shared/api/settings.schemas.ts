/**
 * Schemas of the per-account settings (spec api.md "Watchlist, alerts, boards", Settings): the watchlist body,
 * MarketAlertInput, the boards document and the answers. Counts above a limit (409) and the stored size (413)
 * are not shape rules: the routes and shared/domain/boards.ts check them after parsing.
 */
import * as z from 'zod';
import { ALERT_KINDS, ALERT_NAME_MAX, ALERT_NOTE_MAX, type MarketAlertInput, VALUE_RANGE } from '../domain/alerts';
import { BOARDS_LIMITS } from '../domain/boards';
import { Deleted, ITEM_KEY_EXCLUSIONS, ItemKey, int, Market, Ms } from './common.schemas';
import type { DocsOf, RouteDoc } from './route-doc';

const chars = (s: string): number => [...s].length;
const atMostChars = (max: number) =>
  z
    .string()
    .refine((s) => chars(s) <= max, `must be at most ${max} characters`)
    .meta({ maxLength: max });

/** PUT /market/watch `{items}`: an ordered list of distinct item keys (the limit is the role's: 409). */
export const WatchBody = z.object({
  items: z
    .array(ItemKey)
    .refine((items) => new Set(items).size === items.length, 'the watchlist holds each key once')
    .meta({ uniqueItems: true, description: 'distinct item keys, in order' }),
});
export const WatchAnswer = z.object({ items: z.array(ItemKey) });

/** `item`: an item key, or 0 for a whole-market deal alert only. */
const ALERT_ITEM_RULE = {
  anyOf: [{ properties: { item: { minimum: 1, ...ITEM_KEY_EXCLUSIONS } } }, { properties: { item: { const: 0 }, kind: { const: 'deal' } } }],
};
/** One kind's `value` range (spec Alert kinds). */
const kindValueRule = (kind: (typeof ALERT_KINDS)[number]) => ({
  properties: { kind: { const: kind }, value: { minimum: VALUE_RANGE[kind][0], maximum: VALUE_RANGE[kind][1] } },
  required: ['kind'],
});

/**
 * MarketAlertInput: `item` a key, or 0 for a whole-market `deal` only; `value` in the kind's range; `name` at
 * most 80 characters, `note` 200; `enabled` defaults to true. Unknown fields are dropped.
 */
export const AlertInput = z
  .object({
    market: Market,
    kind: z.enum(ALERT_KINDS),
    item: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).describe('an item key, or 0 for a whole-market deal'),
    value: int().describe('copper (below, above), percent (rise, fall, deal) or quantity (supplyBelow, supplyAbove)'),
    name: atMostChars(ALERT_NAME_MAX).optional(),
    note: atMostChars(ALERT_NOTE_MAX).optional(),
    enabled: z.boolean().default(true),
  })
  // Documentation's example: the rules below (item 0, the kind's value range) are beyond JSON Schema.
  .meta({ examples: [{ market: 'forever.normal.alliance.us', kind: 'below', item: 2589, value: 1500, name: 'Cheap linen', enabled: true }] })
  .superRefine((a, ctx) => {
    if (a.item === 0 && a.kind !== 'deal') ctx.addIssue({ code: 'custom', path: ['item'], message: 'only a deal alert may use item 0 (the whole market)' });
    if (a.item !== 0 && !ItemKey.safeParse(a.item).success)
      ctx.addIssue({ code: 'custom', path: ['item'], message: 'must be an item key, or 0 for a whole-market deal' });
    const [lo, hi] = VALUE_RANGE[a.kind];
    if (a.value < lo || a.value > hi) ctx.addIssue({ code: 'custom', path: ['value'], message: `of a ${a.kind} alert must be in ${lo}..${hi}` });
  })
  // The same rules as JSON Schema: `item` a key or (deal only) 0, `value` in its kind's range.
  .meta({ allOf: [ALERT_ITEM_RULE, { oneOf: ALERT_KINDS.map((k) => kindValueRule(k)) }] })
  .transform((a): MarketAlertInput => a);

const AlertHit = z.tuple([int(), int().nullable(), int()]).describe('[item, price or null, quantity]');
export const MarketAlert = z
  .object({
    market: Market,
    item: int(),
    kind: z.enum(ALERT_KINDS),
    value: int(),
    name: z.string().optional(),
    note: z.string().optional(),
    enabled: z.boolean(),
    id: z.string(),
    created: Ms,
    armed: z.boolean(),
    last: z.object({ at: Ms, hits: z.array(AlertHit) }).nullable(),
  })
  // Documentation's example: an alert that fired (the same one the input's example creates).
  .meta({
    examples: [
      {
        market: 'forever.normal.alliance.us',
        item: 2589,
        kind: 'below',
        value: 1500,
        name: 'Cheap linen',
        enabled: true,
        id: 'Qm9va3Mgb2YgTGluZW4',
        created: Date.UTC(2026, 0, 1),
        armed: false,
        last: { at: Date.UTC(2026, 0, 1, 9), hits: [[2589, 1450, 20]] },
      },
    ],
  });
export const AlertsAnswer = z.object({ alerts: z.array(MarketAlert), now: Ms });
export const AlertAnswer = z.object({ alert: MarketAlert });

const Id = z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, 'must be 1..40 characters of A-Z a-z 0-9 _ -');
const Name = z
  .string()
  .refine((s) => chars(s) >= 1 && chars(s) <= 60, 'must be 1..60 characters')
  .meta({ minLength: 1, maxLength: 60 });
/** A widget: `id` and `type`; other fields belong to the client and are kept as given. */
const Widget = z.looseObject({ id: Id, type: z.string().regex(/^[a-z0-9_-]{1,32}$/, 'must be 1..32 characters of a-z 0-9 _ -') });
const uniqueIds = (list: readonly { id: string }[]) => new Set(list.map((x) => x.id)).size === list.length;
export const MarketBoard = z.object({
  id: Id,
  name: Name,
  widgets: z.array(Widget).max(BOARDS_LIMITS.widgets).refine(uniqueIds, 'widget ids must be unique within the board'),
});
export const MarketScreen = z.object({ id: Id, name: Name, filters: z.record(z.string(), z.unknown()) });
/** The boards document; above 20 dashboards or 50 screens is 409 `too_many`, above 65536 stored bytes 413 (domain). */
export const BoardsDocument = z.object({
  dashboards: z.array(MarketBoard).refine(uniqueIds, 'dashboard ids must be unique'),
  screens: z.array(MarketScreen).refine(uniqueIds, 'screen ids must be unique'),
});

/** What a signed-in caller's write of a whole settings document can be refused with, and who may call it. */
const SIGNED_IN_WRITE = {
  errors: ['unauthenticated', 'forbidden', 'bad_origin', 'bad_request', 'too_many', 'too_large'],
  callers: 'signedIn',
} as const satisfies Pick<RouteDoc, 'errors' | 'callers'>;

export const settingsDocs = {
  'GET /api/v1/market/watch': { answer: WatchAnswer, errors: ['unauthenticated'], callers: 'signedIn' },
  'PUT /api/v1/market/watch': {
    body: WatchBody,
    answer: WatchAnswer,
    ...SIGNED_IN_WRITE,
  },
  'GET /api/v1/market/alerts': { answer: AlertsAnswer, errors: ['unauthenticated'], callers: 'signedIn' },
  'POST /api/v1/market/alerts': {
    body: AlertInput,
    answer: AlertAnswer,
    ...SIGNED_IN_WRITE,
  },
  'PUT /api/v1/market/alerts/{id}': {
    body: AlertInput,
    answer: AlertAnswer,
    errors: ['unauthenticated', 'forbidden', 'bad_origin', 'bad_request', 'unknown_alert', 'too_large'],
    callers: 'signedIn',
  },
  'DELETE /api/v1/market/alerts/{id}': { answer: Deleted, errors: ['unauthenticated', 'forbidden', 'bad_origin'], callers: 'signedIn' },
  'GET /api/v1/market/boards': { answer: BoardsDocument, errors: ['unauthenticated'], callers: 'signedIn' },
  'PUT /api/v1/market/boards': {
    body: BoardsDocument,
    answer: BoardsDocument,
    ...SIGNED_IN_WRITE,
    rules: ['dashboard ids are unique, screen ids are unique, and widget ids are unique within their board'],
  },
} satisfies DocsOf<'api'>;
