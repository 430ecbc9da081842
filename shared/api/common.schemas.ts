/**
 * Schemas shared by the routes' own schema modules (spec api.md Resources): markets, item keys, rows, day
 * points, candles, the error body. Query values arrive as text; their schemas parse the text into numbers.
 */
import * as z from 'zod';
import { isItemKey } from '../domain/item-key';
import { MARKETS } from '../domain/market';

export const MAX_SAFE = Number.MAX_SAFE_INTEGER;
export const MAX31 = 2 ** 31 - 1;

/** A safe integer in `min..max`. */
export const int = (min = 0, max = MAX_SAFE) => z.number().int().min(min).max(max);
/** Unix milliseconds. */
export const Ms = int().describe('Unix ms');

export const Market = z.enum(MARKETS as [string, ...string[]]).describe('forever.<normal|pvp|rp>.<alliance|horde>.us');

/**
 * What JSON Schema can say of an item key beyond its range (for the OpenAPI documents): the item part is not 0
 * (the key is no multiple of 2^31) and `v` is not 65536 (the key is not in 2^47 .. 2^47 + 2^31 - 1).
 */
export const ITEM_KEY_EXCLUSIONS = { not: { anyOf: [{ multipleOf: 2 ** 31 }, { minimum: 2 ** 47, maximum: 2 ** 47 + 2 ** 31 - 1 }] } };

/** Spec Item key: `item + 2147483648 * v`. */
export const ItemKey = z
  .number()
  .int()
  .min(1)
  .max(MAX_SAFE)
  .refine(isItemKey, 'not an item key')
  .meta({
    description: 'item + 2147483648 * v (v: 0 plain, 2s / 2|s|-1 for suffix s, 65536 + species for caged pets)',
    ...ITEM_KEY_EXCLUSIONS,
    // The API reference's examples name a real item (Linen Cloth) rather than the smallest key.
    examples: [2589],
  });

/** The item key as JSON Schema, the same in both OpenAPI documents (path parameters and bodies alike). */
export const itemKeyJsonSchema = (): Record<string, unknown> => {
  const { $schema: _, ...rest } = z.toJSONSchema(ItemKey, { io: 'output' }) as Record<string, unknown>;
  return rest;
};

/** Spec Conventions: `{error, message?}`; 403 adds `feature`, 409 `too_many` adds `limit`. */
export const ErrorBody = z.object({ error: z.string(), message: z.string().optional(), feature: z.string().optional(), limit: int().optional() });

/** `[id, price or null, quantity, at]`. */
export const AuctionRow = z.tuple([ItemKey, int().nullable(), int(), Ms]).describe('[id, price or null, quantity, at]');
/** `[day, low, last, quantity]`. */
export const DayPoint = z.tuple([int(), int(), int(), int()]).describe('[day, low, last, quantity]');
/** `[t, open, high, low, close, quantity]`. */
export const Candle = z.tuple([int(), int(), int(), int(), int(), int()]).describe('[t, open, high, low, close, quantity]');
/** `[day, listed, sold, expired]`. */
export const VolumeEstimate = z.tuple([int(), int(), int(), int()]).describe('[day, listed, sold, expired]');

/** A non-negative integer in a query (`^(0|[1-9][0-9]{0,15})$`, a safe integer), parsed to a number. */
export const IntText = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,15})$/, 'must be a non-negative integer')
  .refine((t) => Number.isSafeInteger(Number(t)), 'is too large')
  .transform(Number);

/** `{deleted}` answers. */
export const Deleted = z.object({ deleted: z.boolean() });
