/**
 * Schemas of the Web Push routes (spec api.md "Web Push (signed in)"; DESIGN: PushPrefs). The subscription's
 * endpoint rule depends on the deployment (known push services; loopback receivers only locally), so its
 * schema is made per rule.
 */
import * as z from 'zod';
import { ENDPOINT_MAX, type EndpointRule, endpointAllowed, HHMM, keyBytes, PREFS_MAX_BYTES, PUSH_SERVICE_HOSTS, validZone } from '../domain/push-subscription';
import { Deleted, Ms } from './common.schemas';
import type { DocsOf, RouteDoc } from './route-doc';

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
        tz: z.string().refine(validZone, 'must be an IANA time zone').describe('an IANA time zone (a rule the schema cannot state)'),
      })
      .loose()
      .nullable()
      .optional(),
  })
  .refine((p) => new TextEncoder().encode(JSON.stringify(p)).length <= PREFS_MAX_BYTES, `must be at most ${PREFS_MAX_BYTES} bytes of JSON`)
  // Documentation's example; "an IANA time zone" and the size are beyond JSON Schema.
  .meta({
    description: `at most ${PREFS_MAX_BYTES} bytes of JSON (a rule the schema cannot state)`,
    examples: [{ market: true, quietHours: { start: '22:00', end: '07:00', tz: 'Europe/Berlin' } }],
  });

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A port 0..65535 in decimal (leading zeros as URLs take them). */
const PORT = '(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|0*[1-5]?[0-9]{1,4})';

/**
 * The endpoint rule (endpointAllowed) as a pattern, so a client never sends an endpoint the deployment refuses:
 * https on a push service host (lower case, `*.` one label, the default port, no credentials), and where the
 * deployment allows loopback `http://127.0.0.1[:port]` or `http://localhost[:port]`. Stricter than the rule
 * in what URL parsing forgives (upper-case hosts, a query right after the host).
 */
export function endpointPattern(rule: EndpointRule): string {
  const hosts = rule.hosts.map((h) => (h.startsWith('*.') ? `[a-z0-9-]+${escapeRegex(h.slice(1).toLowerCase())}` : escapeRegex(h.toLowerCase())));
  const https = `https://(${hosts.join('|')})(/[!-~]*)?`;
  const loopback = `http://(127\\.0\\.0\\.1|localhost)(:${PORT})?(/[!-~]*)?`;
  return `^(${rule.loopback ? `${https}|${loopback}` : https})$`;
}

/** A base64url P-256 public key, uncompressed (65 bytes, the first 0x04: 87 characters starting `B[A-P]`). */
const P256DH = '^B[A-P][A-Za-z0-9_-]{85}={0,2}$';
/** A base64url 16-byte secret (22 characters). */
const AUTH = '^[A-Za-z0-9_-]{22}={0,2}$';

/** The subscription schema of the OpenAPI document for a deployment's endpoint rule. */
const docSubscription = (rule: EndpointRule) =>
  z.object({
    endpoint: z
      .string()
      .max(ENDPOINT_MAX)
      .regex(new RegExp(endpointPattern(rule)))
      .describe('the push service URL the browser was given'),
    keys: z.object({
      p256dh: z.string().regex(new RegExp(P256DH)).describe('the uncompressed P-256 public key, base64url'),
      auth: z.string().regex(new RegExp(AUTH)).describe('the 16-byte secret, base64url'),
    }),
  });

/** The rules of the subscription body JSON Schema cannot state. */
const PUSH_RULES = ['`prefs.quietHours.tz` must be an IANA time zone the service knows', '`prefs` is at most 4096 bytes of JSON'] as const;

/** PUT /push/subscription `{subscription, prefs?}` for a deployment's endpoint rule (`prefs` null: none). */
export const putSubscriptionBody = (rule: EndpointRule) => z.object({ subscription: subscriptionSchema(rule), prefs: PushPrefs.nullish() });
/** DELETE /push/subscription `{endpoint}`. */
export const DeleteSubscriptionBody = z.object({ endpoint: z.string().min(1, 'is required') });

export const PushSubscriptionView = z.object({ endpoint: z.string(), prefs: PushPrefs, created: Ms });

/** PUT /push/subscription as the document states it for a deployment's endpoint rule. */
export function putSubscriptionDoc(rule: EndpointRule): RouteDoc {
  return {
    body: z.object({ subscription: docSubscription(rule), prefs: PushPrefs.nullish() }),
    answer: z.object({ subscription: PushSubscriptionView }),
    errors: ['unauthenticated', 'bad_origin', 'bad_request', 'push_unconfigured', 'too_large'],
    callers: 'signedIn',
    rules: PUSH_RULES,
  };
}

export const pushDocs = {
  'GET /api/v1/push/key': { answer: z.object({ publicKey: z.string().nullable() }), errors: ['unauthenticated'], callers: 'signedIn' },
  'GET /api/v1/push/subscription': { answer: z.object({ subscriptions: z.array(PushSubscriptionView) }), errors: ['unauthenticated'], callers: 'signedIn' },
  'PUT /api/v1/push/subscription': putSubscriptionDoc({ hosts: PUSH_SERVICE_HOSTS, loopback: false }),
  'DELETE /api/v1/push/subscription': {
    body: DeleteSubscriptionBody,
    answer: Deleted,
    errors: ['unauthenticated', 'bad_origin', 'bad_request', 'push_unconfigured', 'too_large'],
    callers: 'signedIn',
  },
} satisfies DocsOf<'api'>;
