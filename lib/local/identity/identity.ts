/**
 * The local identity provider: a Clerk-compatible subset (JWKS, session tokens, the Backend API's API key
 * verification, user reads and metadata merges) and the local control routes that make users, sessions
 * and API keys (DESIGN: "Local control API"). Time comes from the runtime's clock, so tokens follow it.
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { exportJWK, importJWK, importPKCS8, type JWK, jwtVerify, SignJWT } from 'jose';
import { entitlementsOf, FEATURES, scopedEntitlements } from '../../../shared/domain/roles';
import { handleSite, isSitePath } from './identity-site';

export interface LocalIdentityOptions {
  dataDir: string | ':memory:';
  /** `${base}/_local/idp`: the tokens' `iss`; its origin is the default `azp`. */
  issuer: string;
  clock: { now(): number };
  /** The Backend API's bearer secret (the service's `IDP_SECRET_KEY`). */
  secretKey: string;
}

interface LocalUser {
  id: string;
  email: string;
  created: number;
  /** Public metadata: `plan`, `contributorUntil`, `grants`, `withhold`, `partner` and whatever else was merged. */
  meta: Record<string, unknown>;
}

interface LocalApiKey {
  id: string;
  subject: string;
  /** The name given on the account page (keys made through the control API have none). */
  name?: string;
  /** The scopes asked for; null: none asked, so every feature name (the key has all of its user's features). */
  scopes: string[] | null;
  revoked: boolean;
  created: number;
}

interface State {
  privateKeyPem: string;
  kid: string;
  users: Record<string, LocalUser>;
  /** By SHA-256 of the key: the key itself is shown once and never kept. */
  apiKeys: Record<string, LocalApiKey>;
  /** 2: a key made without scopes is kept with `scopes: null`; before, with `[]` (then read as all features). */
  keysVersion?: 2;
}

type Json = Record<string, unknown>;

const STATE_FILE = 'identity.json';
const USER_FIELDS = ['plan', 'grants', 'partner', 'contributorUntil', 'withhold'] as const;
const PLANS = ['free', 'premium'];
/** The fields each control route reads: anything else is a typo, refused with the list. */
const FIELDS: Record<string, readonly string[]> = {
  '/_local/users': ['email', ...USER_FIELDS],
  '/_local/sessions': ['userId', 'azp', 'expiresIn', 'notBefore', 'iss'],
  '/_local/api-keys': ['userId', 'orgId', 'scopes'],
};
const quoted = (values: readonly string[]): string => values.map((v) => `"${v}"`).join(', ');

const sha256 = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');
const randomId = (prefix: string): string => `${prefix}${randomBytes(12).toString('hex')}`;

class BadRequest extends Error {}

/** The scopes the provider answers for a key: those asked for, or every feature name when none were. */
const scopesOf = (k: LocalApiKey): string[] => k.scopes ?? [...FEATURES];

export class LocalIdentity {
  private state!: State;
  private signingKey!: Awaited<ReturnType<typeof importPKCS8>>;
  private publicJwk!: JWK;
  private verifyKey!: Awaited<ReturnType<typeof importJWK>>;
  private saving: Promise<void> = Promise.resolve();
  private isDown = false;
  /** Backend API calls answered, by route (`api_keys/verify`, `users`, `users/metadata`): what tests count of the provider's quota. */
  readonly backendCalls: Record<string, number> = {};

  constructor(private readonly opts: LocalIdentityOptions) {}

  get down(): boolean {
    return this.isDown;
  }

  /** Loads the key pair and users from the data directory, or makes them (kept there unless `:memory:`). */
  async init(): Promise<void> {
    const file = this.file();
    if (file && existsSync(file)) {
      try {
        this.state = JSON.parse(await readFile(file, 'utf8')) as State;
      } catch {
        throw new Error(`${file} is not valid JSON: repair it, or delete it to start with no users and API keys`);
      }
      if (this.state.keysVersion !== 2) await this.upgradeKeys();
    } else {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      this.state = { privateKeyPem: pem, kid: `ins_${randomBytes(8).toString('hex')}`, users: {}, apiKeys: {}, keysVersion: 2 };
      await this.save();
    }
    this.signingKey = await importPKCS8(this.state.privateKeyPem, 'RS256', { extractable: true });
    const jwk = await exportJWK(this.signingKey);
    this.publicJwk = { kty: jwk.kty, n: jwk.n, e: jwk.e, kid: this.state.kid, alg: 'RS256', use: 'sig' };
    this.verifyKey = await importJWK(this.publicJwk, 'RS256');
  }

  /**
   * Keys kept before empty scopes meant no feature: an empty list then meant every feature of the user (it was
   * how a key made without scopes was kept), so it becomes `null`, and the keys keep what they had.
   */
  private async upgradeKeys(): Promise<void> {
    for (const k of Object.values(this.state.apiKeys)) if (Array.isArray(k.scopes) && k.scopes.length === 0) k.scopes = null;
    this.state.keysVersion = 2;
    await this.save();
  }

  /** The `identity` fault: while down, the provider's endpoints are unreachable (connections dropped). */
  setDown(down: boolean): void {
    this.isDown = down;
  }

  /** Serves `/_local/idp/**` and the identity control routes; false when the path is not one of them. */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer): Promise<boolean> {
    const path = url.pathname;
    const method = (req.method ?? 'GET').toUpperCase();
    try {
      if (path === '/_local/idp' || path.startsWith('/_local/idp/')) {
        if (this.isDown) {
          req.socket.destroy();
          return true;
        }
        return await this.provider(method, path.slice('/_local/idp'.length), req, res, body);
      }
      return await this.control(method, path, res, body);
    } catch (err) {
      if (err instanceof BadRequest) return send(res, 400, { error: 'bad_request', message: err.message });
      throw err;
    }
  }

  // ── The provider (what Clerk answers) ──────────────────────────────────────────────────

  private async provider(method: string, path: string, req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<boolean> {
    if (method === 'GET' && path === '/.well-known/jwks.json') return send(res, 200, { keys: [this.publicJwk] });
    if (isSitePath(path)) return handleSite(this, method, path, req, res, body);
    if (!path.startsWith('/v1/')) return send(res, 404, clerkError('resource_not_found', 'not found'));
    if (req.headers.authorization !== `Bearer ${this.opts.secretKey}`) return send(res, 401, clerkError('authentication_invalid', 'invalid secret key'));
    const route = path.startsWith('/v1/users/') ? (path.endsWith('/metadata') ? 'users/metadata' : 'users') : path.slice('/v1/'.length);
    this.backendCalls[route] = (this.backendCalls[route] ?? 0) + 1;
    if (method === 'POST' && path === '/v1/api_keys/verify') {
      const secret = parse(body).secret;
      const key = typeof secret === 'string' ? this.state.apiKeys[sha256(secret)] : undefined;
      if (!key) return send(res, 404, clerkError('resource_not_found', 'API key not found'));
      return send(res, 200, this.keyView(key));
    }
    const user = /^\/v1\/users\/([^/]+)(\/metadata)?$/.exec(path);
    if (user) {
      const u = this.state.users[decodeURIComponent(user[1])];
      if (!u) return send(res, 404, clerkError('resource_not_found', 'user not found'));
      if (method === 'GET' && !user[2]) return send(res, 200, this.userView(u));
      if (method === 'PATCH' && user[2]) {
        const meta = parse(body).public_metadata;
        if (meta !== undefined && (typeof meta !== 'object' || meta === null || Array.isArray(meta))) throw new BadRequest('public_metadata must be an object');
        u.meta = deepMerge(u.meta, (meta ?? {}) as Json);
        await this.save();
        return send(res, 200, this.userView(u));
      }
      return send(res, 405, clerkError('method_not_allowed', 'method not allowed'));
    }
    return send(res, 404, clerkError('resource_not_found', 'not found'));
  }

  private userView(u: LocalUser): Json {
    const emailId = `idn_${u.id.slice('user_'.length)}`;
    return {
      object: 'user',
      id: u.id,
      primary_email_address_id: emailId,
      email_addresses: [{ id: emailId, object: 'email_address', email_address: u.email }],
      public_metadata: u.meta,
      private_metadata: {},
      unsafe_metadata: {},
      created_at: u.created,
      updated_at: this.opts.clock.now(),
    };
  }

  private keyView(k: LocalApiKey): Json {
    return {
      object: 'api_key',
      id: k.id,
      type: 'api_key',
      subject: k.subject,
      scopes: scopesOf(k),
      claims: null,
      revoked: k.revoked,
      revocation_reason: k.revoked ? 'revoked locally' : null,
      expired: false,
      expiration: null,
      created_at: k.created,
      updated_at: k.created,
    };
  }

  // ── What the website's pages of the provider use (lib/local/identity/identity-site.ts) ──────────────

  /** The newest user with this e-mail (the demo makes `demo@localhost`), or a new free one. */
  async signInAs(email: string): Promise<string> {
    const wanted = email.trim().toLowerCase();
    const found = Object.values(this.state.users)
      .filter((u) => u.email.toLowerCase() === wanted)
      .sort((a, b) => b.created - a.created)[0];
    if (found) return found.id;
    const u: LocalUser = { id: randomId('user_'), email: email.trim(), created: this.opts.clock.now(), meta: {} };
    this.state.users[u.id] = u;
    await this.save();
    return u.id;
  }

  /** A session token for the user, as the sign-in page sets it in `__session`. */
  sessionToken(userId: string, expiresIn: number): Promise<string> {
    return this.session({ userId, expiresIn });
  }

  /** The user a `__session` token names, when this provider signed it and it is valid now; else null. */
  async sessionUser(token: string): Promise<string | null> {
    try {
      const { payload } = await jwtVerify(token, this.verifyKey, {
        issuer: this.opts.issuer,
        currentDate: new Date(this.opts.clock.now()),
        clockTolerance: 5,
      });
      return typeof payload.sub === 'string' && this.state.users[payload.sub] ? payload.sub : null;
    } catch {
      return null;
    }
  }

  /** The user's API keys, newest first (never a key itself: only its hash is kept). */
  keysOf(userId: string): Array<{ id: string; name: string; created: number; revoked: boolean }> {
    return Object.values(this.state.apiKeys)
      .filter((k) => k.subject === userId)
      .sort((a, b) => b.created - a.created)
      .map((k) => ({ id: k.id, name: k.name ?? 'Unnamed key', created: k.created, revoked: k.revoked }));
  }

  /** A new key of the user with every feature of the user (as Clerk's keys made on the account page). */
  async createKeyFor(userId: string, name: string): Promise<{ id: string; name: string; created: number; revoked: boolean; secret: string }> {
    const secret = `ak_${randomBytes(24).toString('base64url')}`;
    const record: LocalApiKey = { id: randomId('ak_id_'), subject: userId, name, scopes: null, revoked: false, created: this.opts.clock.now() };
    this.state.apiKeys[sha256(secret)] = record;
    await this.save();
    return { id: record.id, name, created: record.created, revoked: false, secret };
  }

  /** Revokes one of the user's keys; false when the user has no key of that id. */
  async revokeKeyOf(userId: string, id: string): Promise<boolean> {
    const k = Object.values(this.state.apiKeys).find((x) => x.id === id && x.subject === userId);
    if (!k) return false;
    k.revoked = true;
    await this.save();
    return true;
  }

  // ── Control routes (local runtime only) ─────────────────────────────────────────────────

  private async control(method: string, path: string, res: ServerResponse, body: Buffer): Promise<boolean> {
    if (path === '/_local/users' && method === 'POST') {
      const input = fields(parse(body), '/_local/users');
      const id = randomId('user_');
      const email = input.email === undefined ? `${id}@example.test` : input.email;
      if (typeof email !== 'string' || !email.includes('@')) throw new BadRequest('email must be an address');
      const u: LocalUser = { id, email, created: this.opts.clock.now(), meta: userMeta({}, input) };
      this.state.users[id] = u;
      await this.save();
      return send(res, 200, { id, email });
    }
    const user = /^\/_local\/users\/([^/]+)$/.exec(path);
    if (user) {
      const u = this.state.users[decodeURIComponent(user[1])];
      if (!u) return send(res, 404, { error: 'not_found', message: 'no such user' });
      if (method === 'GET') return send(res, 200, { id: u.id, email: u.email, publicMetadata: u.meta });
      if (method !== 'PATCH') return send(res, 405, { error: 'method_not_allowed' });
      const input = fields(parse(body), '/_local/users');
      if (input.email !== undefined) {
        if (typeof input.email !== 'string' || !input.email.includes('@')) throw new BadRequest('email must be an address');
        u.email = input.email;
      }
      u.meta = userMeta(u.meta, input);
      await this.save();
      return send(res, 200, { id: u.id, email: u.email, publicMetadata: u.meta });
    }
    if (path === '/_local/sessions' && method === 'POST') return send(res, 200, { token: await this.session(fields(parse(body), '/_local/sessions')) }, true);
    if (path === '/_local/api-keys' && method === 'POST') return this.createKey(fields(parse(body), '/_local/api-keys'), res);
    const key = /^\/_local\/api-keys\/([^/]+)$/.exec(path);
    if (key && method === 'DELETE') {
      const k = this.state.apiKeys[sha256(decodeURIComponent(key[1]))];
      if (!k) return send(res, 404, { error: 'not_found', message: 'no such API key' });
      k.revoked = true;
      await this.save();
      return send(res, 200, { revoked: true });
    }
    // A control route's path with another method: 405, as the control routes in control.ts answer.
    if (key || path === '/_local/users' || path === '/_local/sessions' || path === '/_local/api-keys') return send(res, 405, { error: 'method_not_allowed' });
    return false;
  }

  /** A session JWT carrying the user's claims as they are now; `iss`, `azp`, `notBefore` can be bent to mint refusable tokens. */
  private async session(input: Json): Promise<string> {
    const u = typeof input.userId === 'string' ? this.state.users[input.userId] : undefined;
    if (!u) throw new BadRequest('userId must name a user');
    const expiresIn = optNumber(input.expiresIn, 'expiresIn') ?? 3600;
    const notBefore = optNumber(input.notBefore, 'notBefore') ?? 0;
    const iss = input.iss === undefined ? this.opts.issuer : input.iss;
    const azp = input.azp === undefined ? new URL(this.opts.issuer).origin : input.azp;
    if (typeof iss !== 'string' || typeof azp !== 'string') throw new BadRequest('iss and azp must be strings');
    const iat = Math.floor(this.opts.clock.now() / 1000);
    const m = u.meta;
    const meta: Json = {
      contributorUntil: typeof m.contributorUntil === 'number' ? m.contributorUntil : null,
      grants: Array.isArray(m.grants) ? m.grants : [],
      withhold: Array.isArray(m.withhold) ? m.withhold : [],
    };
    if (m.partner === true) meta.partner = true;
    return new SignJWT({ azp, sid: randomId('sess_'), pla: `u:${typeof m.plan === 'string' ? m.plan : 'free'}`, meta, email: u.email, v: 2 })
      .setProtectedHeader({ alg: 'RS256', kid: this.state.kid, typ: 'JWT' })
      .setSubject(u.id)
      .setIssuer(iss)
      .setIssuedAt(iat)
      .setNotBefore(iat + notBefore)
      .setExpirationTime(iat + expiresIn)
      .sign(this.signingKey);
  }

  private async createKey(input: Json, res: ServerResponse): Promise<boolean> {
    let subject: string;
    if (typeof input.orgId === 'string') {
      subject = input.orgId.startsWith('org_') ? input.orgId : `org_${input.orgId}`;
    } else if (typeof input.userId === 'string' && this.state.users[input.userId]) {
      subject = input.userId;
    } else {
      return send(res, 404, { error: 'not_found', message: 'userId must name a user (or give orgId)' });
    }
    // Absent: every feature of the user. A list (even empty) is what the key has of them: the service's rule.
    const scopes = input.scopes === undefined ? null : input.scopes;
    if (scopes !== null && (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string')))
      throw new BadRequest(`scopes must be a list of feature names: ${quoted(FEATURES)}`);
    const unknown = scopes?.find((s) => !(FEATURES as readonly string[]).includes(s));
    if (unknown !== undefined) throw new BadRequest(`unknown scope "${unknown}": scopes are feature names: ${quoted(FEATURES)}`);
    const key = `ak_${randomBytes(24).toString('base64url')}`;
    const record: LocalApiKey = { id: randomId('ak_id_'), subject, scopes: scopes as string[] | null, revoked: false, created: this.opts.clock.now() };
    this.state.apiKeys[sha256(key)] = record;
    await this.save();
    return send(res, 200, { key, id: record.id, ...this.keyFeatures(record) }, true);
  }

  /**
   * What a key can do now: its user's features narrowed to its scopes (the service's rule: an empty list
   * leaves none), and the user's features the scopes leave out, so a scoped key never lacks `prices.live` silently.
   */
  private keyFeatures(k: LocalApiKey): { scopes: string[]; features: string[]; outOfScope: string[] } {
    const u = this.state.users[k.subject];
    if (!u) return { scopes: scopesOf(k), features: [], outOfScope: [] };
    const m = u.meta;
    const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
    const claims = {
      plan: typeof m.plan === 'string' ? m.plan : null,
      contributorUntil: typeof m.contributorUntil === 'number' ? m.contributorUntil : null,
      grants: strings(m.grants),
      withhold: strings(m.withhold),
    };
    const ent = entitlementsOf(claims, this.opts.clock.now());
    const { features } = scopedEntitlements(ent, scopesOf(k));
    return { scopes: scopesOf(k), features, outOfScope: ent.features.filter((f) => !features.includes(f)) };
  }

  // ── Persistence ────────────────────────────────────────────────────────────────────────

  private file(): string | null {
    return this.opts.dataDir === ':memory:' ? null : join(this.opts.dataDir, STATE_FILE);
  }

  /** Writes the state atomically (temp file + rename), one write at a time. */
  private save(): Promise<void> {
    const file = this.file();
    if (!file) return Promise.resolve();
    const text = JSON.stringify(this.state);
    this.saving = this.saving.then(async () => {
      await mkdir(this.opts.dataDir, { recursive: true });
      await writeFile(`${file}.tmp`, text, { mode: 0o600 });
      await rename(`${file}.tmp`, file);
    });
    return this.saving;
  }
}

const USER_FIELD_RULES: Record<(typeof USER_FIELDS)[number], string> = {
  plan: `the plans are ${quoted(PLANS)} (null removes it)`,
  partner: 'true or false',
  contributorUntil: 'the end of the contributor window in Unix ms',
  grants: `a list of feature names added to the user's roles: ${quoted(FEATURES)}`,
  withhold: `a list of feature names the user lacks whatever the role: ${quoted(FEATURES)}`,
};

/** The input when it has only the route's fields; else 400 naming them. */
function fields(input: Json, route: string): Json {
  const allowed = FIELDS[route];
  const unknown = Object.keys(input).find((k) => !allowed.includes(k));
  if (unknown !== undefined) throw new BadRequest(`unknown field "${unknown}": ${route} takes ${quoted(allowed)}`);
  return input;
}

/** Applies the control API's user fields to public metadata; `null` removes a field. */
function userMeta(current: Json, input: Json): Json {
  const meta = { ...current };
  for (const f of USER_FIELDS) {
    const v = input[f];
    if (v === undefined) continue;
    if (v === null) {
      delete meta[f];
      continue;
    }
    const ok =
      (f === 'plan' && PLANS.includes(v as string)) ||
      (f === 'partner' && typeof v === 'boolean') ||
      (f === 'contributorUntil' && typeof v === 'number' && Number.isFinite(v)) ||
      ((f === 'grants' || f === 'withhold') && Array.isArray(v) && v.every((x) => typeof x === 'string'));
    if (!ok) throw new BadRequest(`bad ${f}: ${USER_FIELD_RULES[f]}`);
    meta[f] = v;
  }
  return meta;
}

/** Clerk's metadata merge: objects merge recursively, `null` deletes a key, anything else replaces. */
function deepMerge(target: Json, patch: Json): Json {
  const out: Json = { ...target };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (typeof v === 'object' && !Array.isArray(v) && typeof out[k] === 'object' && out[k] !== null && !Array.isArray(out[k]))
      out[k] = deepMerge(out[k] as Json, v as Json);
    else out[k] = v;
  }
  return out;
}

function parse(body: Buffer): Json {
  if (body.length === 0) return {};
  let v: unknown;
  try {
    v = JSON.parse(body.toString('utf8'));
  } catch {
    throw new BadRequest('the body is not JSON');
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new BadRequest('the body must be a JSON object');
  return v as Json;
}

function optNumber(v: unknown, name: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new BadRequest(`${name} must be a number of seconds`);
  return Math.trunc(v);
}

const clerkError = (code: string, message: string): Json => ({ errors: [{ code, message, long_message: message }] });

function send(res: ServerResponse, status: number, body: unknown, secret = false): true {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (secret) headers['cache-control'] = 'no-store';
  res.writeHead(status, headers);
  res.end(JSON.stringify(body));
  return true;
}
