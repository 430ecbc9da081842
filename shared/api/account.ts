/** Account routes (spec: Account endpoints): `/me`, contributions and device pairing. Bodies and queries: account.schemas.ts. */
import type { z } from 'zod';
import { listContributions, scans7d, storedContributorUntil } from '../auth/contributor';
import { accountDevices, confirmPairing, openPairing, pollPairing, removeDevice } from '../auth/devices';
import { requireSession, requireSignedIn } from '../auth/gate';
import type { Principal } from '../auth/principal';
import { accountClaims } from '../auth/profile';
import { contributionsFrom, contributorUntil } from '../domain/contributor';
import { jsonBody } from '../http/bounds';
import type { Route, RoutesOf } from '../http/handler';
import { ok } from '../http/respond';
import type { ApiRequest } from '../http/types';
import type { Services } from '../services';
import { ConfirmBody, ContributionsQuery, PairBody } from './account.schemas';
import { parseAs } from './zod-parse';

/** The JSON body within the shared bounds (an empty body is `{}`), parsed by `schema` or 400 `bad_request`. */
const objectBody = <S extends z.ZodType>(req: ApiRequest, schema: S): z.output<S> => parseAs(schema, jsonBody(req.body, { empty: {} }), 'bad_request');

/** The account's email: the credential's, else the provider's record (best effort: /me answers without it). */
async function emailOf(svc: Pick<Services, 'config' | 'identity' | 'log'>, p: Principal & { userId: string }, now: number): Promise<string | null> {
  if (p.email) return p.email;
  try {
    return (await accountClaims(svc, p.userId, now)).email;
  } catch {
    return null;
  }
}

/** GET /api/v1/me: who the caller is, with roles, features, limits and the contributor window (stored end is the truth). */
export const getMe: Route = {
  access: { kind: 'public' },
  async handle({ svc, principal: p }) {
    const now = svc.clock.now();
    const { roles, features, limits } = p;
    if (p.kind === 'anon' || !p.userId) return ok({ user: null, roles, features, limits, contributor: { until: null, scans7d: 0 }, now });
    const signedIn = p as Principal & { userId: string };
    const [email, stored, scans] = await Promise.all([
      emailOf(svc, signedIn, now),
      storedContributorUntil(svc, signedIn.userId),
      scans7d(svc, signedIn.userId, now),
    ]);
    const until = contributorUntil(stored, p.contributorUntil);
    return ok({ user: { id: p.userId, email }, roles, features, limits, contributor: { until, scans7d: scans }, now });
  },
};

/** GET /api/v1/contributions?from: the caller's own uploads since `from` (default and clamp: 30 days), newest first. */
export const getContributions: Route = {
  access: { kind: 'signedIn' },
  async handle({ req, svc, principal: p }) {
    requireSignedIn(p);
    const now = svc.clock.now();
    // The schema holds the text's shape; the domain clamps it to 30 days (never null once parsed).
    const from = contributionsFrom(parseAs(ContributionsQuery, req.query, 'bad_query').from, now) ?? now;
    const [scans, stored] = await Promise.all([listContributions(svc, p.userId, from, now), storedContributorUntil(svc, p.userId)]);
    return ok({ scans, until: contributorUntil(stored, p.contributorUntil), now });
  },
};

/** POST /api/v1/devices/pair {name}: an app opens a pairing. */
export const postPair: Route = {
  access: { kind: 'public' },
  async handle({ req, svc }) {
    const { name } = objectBody(req, PairBody);
    return ok(await openPairing(svc, name));
  },
};

/** POST /api/v1/devices/confirm {code}: a website session binds a code to its account. */
export const postConfirm: Route = {
  access: { kind: 'signedIn' },
  async handle({ req, svc, principal: p }) {
    requireSession(p);
    requireSignedIn(p);
    const { code } = objectBody(req, ConfirmBody);
    return ok({ device: await confirmPairing(svc, p.userId, code) });
  },
};

/** GET /api/v1/devices/pair/:pairId: the app's poll. */
export const getPair: Route = {
  access: { kind: 'public' },
  async handle({ req, svc }) {
    return ok(await pollPairing(svc, req.params.pairId ?? ''));
  },
};

/** GET /api/v1/devices: the account's devices, newest first. */
export const getDevices: Route = {
  access: { kind: 'signedIn' },
  async handle({ svc, principal: p }) {
    requireSignedIn(p);
    return ok({ devices: await accountDevices(svc, p.userId) });
  },
};

/** DELETE /api/v1/devices/:id: removes a device; its token stops working at once. */
export const deleteDeviceRoute: Route = {
  access: { kind: 'signedIn' },
  async handle({ req, svc, principal: p }) {
    requireSignedIn(p);
    return ok({ deleted: await removeDevice(svc, p.userId, req.params.id ?? '') });
  },
};

/** The account routes by route key (shared/topology.ts). */
export const accountRoutes = {
  'GET /api/v1/me': getMe,
  'GET /api/v1/contributions': getContributions,
  'POST /api/v1/devices/pair': postPair,
  'POST /api/v1/devices/confirm': postConfirm,
  'GET /api/v1/devices/pair/{pairId}': getPair,
  'GET /api/v1/devices': getDevices,
  'DELETE /api/v1/devices/{id}': deleteDeviceRoute,
} satisfies RoutesOf<'api'>;
