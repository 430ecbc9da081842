/** Schemas of the account routes (spec api.md Account; Resources: Account and contribution; Device pairing). */
import * as z from 'zod';
import { DEFAULT_DEVICE_NAME, DEVICE_NAME_MAX } from '../domain/pairing';
import { Deleted, int, Market, Ms } from './common.schemas';

const chars = (s: string): number => [...s].length;

import type { DocsOf } from './route-doc';

/** POST /devices/pair `{name}`: at most 100 characters once trimmed; absent, null or blank: the default name. */
export const PairBody = z.object({
  name: z
    .string()
    .trim()
    // Characters (code points), as JSON Schema's maxLength counts them.
    .refine((n) => chars(n) <= DEVICE_NAME_MAX, `must be a string of at most ${DEVICE_NAME_MAX} characters`)
    .meta({ maxLength: DEVICE_NAME_MAX, description: `at most ${DEVICE_NAME_MAX} characters once trimmed` })
    .nullish()
    .transform((n) => (n ? n : DEFAULT_DEVICE_NAME)),
});

/** POST /devices/confirm `{code}` (spaces and dashes are accepted; the pairing rules read the code). */
export const ConfirmBody = z.object({ code: z.string({ error: 'is required' }) });

/** GET /contributions `?from` (Unix ms, up to 16 digits; blank: the default); clamped to 30 days by the domain. */
export const ContributionsQuery = z.object({
  from: z
    .string()
    .regex(/^(\d{1,16})?$/, 'must be a non-negative integer (Unix ms)')
    .refine((t) => Number.isSafeInteger(Number(t)), 'is too large')
    .optional(),
});

const Limits = z.record(z.string(), z.number()).describe('the role limits (apiPerMinute, watchlist, alerts, historyDays, ...)');

export const MeAnswer = z.object({
  user: z.object({ id: z.string(), email: z.string().nullable() }).nullable(),
  roles: z.array(z.string()),
  features: z.array(z.string()),
  limits: Limits,
  contributor: z.object({ until: Ms.nullable(), scans7d: int() }),
  now: Ms,
});

export const ContributionRecord = z.object({
  market: Market,
  at: Ms,
  kind: z.enum(['scan', 'book']),
  items: int(),
  complete: z.boolean(),
  credited: z.boolean(),
  reason: z.string().optional(),
});

export const ContributionsAnswer = z.object({ scans: z.array(ContributionRecord), until: Ms.nullable(), now: Ms });
export const PairAnswer = z.object({ code: z.string(), pairId: z.string(), expires: Ms });
export const ConfirmAnswer = z.object({ device: z.object({ id: z.string(), name: z.string() }) });
export const PollAnswer = z.union([z.object({ status: z.literal('waiting') }), z.object({ status: z.literal('paired'), token: z.string() })]);
export const Device = z.object({ id: z.string(), name: z.string(), created: Ms, lastSeen: Ms });
export const DevicesAnswer = z.object({ devices: z.array(Device) });

export const accountDocs = {
  'GET /api/v1/me': { answer: MeAnswer },
  'GET /api/v1/contributions': { query: ContributionsQuery, answer: ContributionsAnswer, errors: ['unauthenticated', 'bad_query'], callers: 'signedIn' },
  'POST /api/v1/devices/pair': { body: PairBody, answer: PairAnswer, errors: ['bad_request'] },
  'POST /api/v1/devices/confirm': {
    body: ConfirmBody,
    answer: ConfirmAnswer,
    errors: ['bad_request', 'unauthenticated', 'sessions_only', 'bad_origin', 'unknown_code', 'expired'],
    callers: 'sessions',
  },
  'GET /api/v1/devices/pair/{pairId}': { answer: PollAnswer, errors: ['not_found'] },
  'GET /api/v1/devices': { answer: DevicesAnswer, errors: ['unauthenticated'], callers: 'signedIn' },
  'DELETE /api/v1/devices/{id}': { answer: Deleted, errors: ['unauthenticated', 'bad_origin'], callers: 'signedIn' },
} satisfies DocsOf<'api'>;
