/**
 * Schemas of the Web Push routes (spec api.md "Web Push (signed in)"; DESIGN: PushPrefs). The subscription's
 * endpoint rule depends on the deployment (known push services; loopback receivers only locally), so its
 * schema is made per rule.
 */
import { z } from 'zod';
import { ENDPOINT_MAX, type EndpointRule, endpointAllowed, HHMM, keyBytes, PREFS_MAX_BYTES, validZone } from '../push/subscription';
import { Deleted, Ms } from './common.schemas';
import type { DocsOf } from './route-doc';

/** PushSubscriptionJSON as delivery needs it: an allowed endpoint, a P-256 public key (65 bytes) and a 16-byte secret. */
export const subscriptionSchema = (rule: EndpointRule) =>
  z
    .object({
      endpoint: z
        .string()
        .max(ENDPOINT_MAX)
        .refine(
          (e) => endpointAllowed(e, rule),
          `must be an https URL of a browser push service${rule.loopback ? ', or http://127.0.0.1 or http://localhost' : ''}`,
        ),
      keys: z.object({
        p256dh: z.string().refine((k) => {
          const b = keyBytes(k);
          return b?.length === 65 && b[0] === 0x04;
        }, 'must be an uncompressed P-256 public key (base64url)'),
        auth: z.string().refine((k) => keyBytes(k)?.length === 16, 'must be a 16-byte secret (base64url)'),
      }),
    })
    .transform(({ endpoint, keys }) => ({
      endpoint,
      // Stored without padding, as delivery reads them.
      keys: { p256dh: (keyBytes(keys.p256dh) as Buffer).toString('base64url'), auth: (keyBytes(keys.auth) as Buffer).toString('base64url') },
    }));

/** PushPrefs: `market` boolean, `quietHours` `{start, end: "HH:MM", tz: IANA zone}` or null; other fields kept as given. */
export const PushPrefs = z
  .looseObject({
    market: z.boolean().optional(),
    quietHours: z
      .object({
        start: z.string().regex(HHMM, 'must be "HH:MM"'),
        end: z.string().regex(HHMM, 'must be "HH:MM"'),
        tz: z.string().refine(validZone, 'must be an IANA time zone'),
      })
      .loose()
      .nullable()
      .optional(),
  })
  .refine((p) => new TextEncoder().encode(JSON.stringify(p)).length <= PREFS_MAX_BYTES, `must be at most ${PREFS_MAX_BYTES} bytes of JSON`)
  // Documentation's example: "an IANA time zone" is beyond JSON Schema.
  .meta({ examples: [{ market: true, quietHours: { start: '22:00', end: '07:00', tz: 'Europe/Berlin' } }] });

/** The subscription schema of the OpenAPI document (the endpoint's host rule is the deployment's). */
const DocSubscription = z.object({ endpoint: z.string().max(ENDPOINT_MAX), keys: z.object({ p256dh: z.string(), auth: z.string() }) });

/** PUT /push/subscription `{subscription, prefs?}` for a deployment's endpoint rule (`prefs` null: none). */
export const putSubscriptionBody = (rule: EndpointRule) => z.object({ subscription: subscriptionSchema(rule), prefs: PushPrefs.nullish() });
/** DELETE /push/subscription `{endpoint}`. */
export const DeleteSubscriptionBody = z.object({ endpoint: z.string().min(1, 'is required') });

export const PushSubscriptionView = z.object({ endpoint: z.string(), prefs: PushPrefs, created: Ms });

export const pushDocs = {
  'GET /api/v1/push/key': { answer: z.object({ publicKey: z.string().nullable() }), errors: ['unauthenticated'] },
  'GET /api/v1/push/subscription': { answer: z.object({ subscriptions: z.array(PushSubscriptionView) }), errors: ['unauthenticated'] },
  'PUT /api/v1/push/subscription': {
    body: z.object({ subscription: DocSubscription, prefs: PushPrefs.nullish() }),
    answer: z.object({ subscription: PushSubscriptionView }),
    errors: ['unauthenticated', 'bad_origin', 'bad_request', 'push_unconfigured', 'too_large'],
  },
  'DELETE /api/v1/push/subscription': {
    body: DeleteSubscriptionBody,
    answer: Deleted,
    errors: ['unauthenticated', 'bad_origin', 'bad_request', 'push_unconfigured'],
  },
} satisfies DocsOf<'api'>;
