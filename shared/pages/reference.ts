/**
 * The endpoint directory (spec api.md Conventions, Versioning: it covers the complete API): a short description
 * and access rule for every route of shared/topology.ts. The generated OpenAPI document takes its tags and
 * descriptions from here; `/docs/api/reference` renders that document (reference-page.ts). Pure.
 */
import { HTTP_ROUTES, type RouteSpec } from '../topology';
import { escapeMarkdown } from './render';

interface RouteDoc {
  section: string;
  /** Who may call it: a feature, "public", "signed in". */
  access: string;
  text: string;
}

const d = (section: string, access: string, text: string): RouteDoc => ({ section, access, text });

/** Short descriptions, keyed by `<path>` and then method (pages: GET, which also covers HEAD). */
export const ROUTE_DOCS: Record<string, Partial<Record<string, RouteDoc>>> = {
  '/api/v1/config': { GET: d('Environment', 'public', 'Deployment settings: env, identity publishable key, apiBase, cdnBase.') },
  '/api/v1/admin/snapshot': { POST: d('Environment', 'admin; not in production', 'Writes the hourly snapshots now.') },
  '/api/v1/me': { GET: d('Account', 'any caller', 'The caller: user, roles, features, limits and contributor window.') },
  '/api/v1/contributions': { GET: d('Account', 'signed in', "The caller's own uploads of the last 30 days (`?from`).") },
  '/api/v1/devices/pair': { POST: d('Account', 'public (the app)', 'Opens a device pairing: `{code, pairId, expires}`.') },
  '/api/v1/devices/confirm': { POST: d('Account', 'website session', 'Binds a pairing code to the account.') },
  '/api/v1/devices/pair/{pairId}': { GET: d('Account', 'public (the app)', 'Polls a pairing; answers the device token once.') },
  '/api/v1/devices': { GET: d('Account', 'signed in', "The account's devices, newest first.") },
  '/api/v1/devices/{id}': { DELETE: d('Account', 'signed in', 'Deletes a device; its token stops working at once.') },
  '/api/v1/ah': { GET: d('Market reads', 'public (hourly view without prices.live)', 'Summaries of every market with data.') },
  '/api/v1/ah/{market}': { GET: d('Market reads', 'prices.live', 'The live table: rows changed since `?since`, with `seq`.') },
  '/api/v1/ah/{market}/snapshot': { GET: d('Market reads', 'public', 'The hourly snapshot of a market.') },
  '/api/v1/ah/{market}/files': { GET: d('Market reads', 'per role', 'File URLs: snapshot, day candles, sealed periods, live changes and caps.') },
  '/api/v1/ah/{market}/candles': { GET: d('Market reads', 'prices.live', 'Batch candles of 1..50 items (`?items&res&from`).') },
  '/api/v1/ah/{market}/intraday': { GET: d('Market reads', 'prices.live', 'Hourly closes of every item (`?from`).') },
  '/api/v1/ah/{market}/history': {
    GET: d('Market reads', 'public (hourly view without prices.live)', 'Day candles and volume estimates of every item (`?from`).'),
  },
  '/api/v1/ah/{market}/books': { GET: d('Market reads', 'books', 'Stored order books of the market (`?from&to`).') },
  '/api/v1/ah/{market}/books/{at}': { GET: d('Market reads', 'books', 'One stored order book.') },
  '/api/v1/ah/{market}/{item}': { GET: d('Market reads', 'public (hourly view without prices.live)', "One item's row, day points and volume.") },
  '/api/v1/ah/{market}/{item}/candles': {
    GET: d('Market reads', 'candles.daily (h1: candles.hourly, m1: candles.minute)', "One item's candles (`?res&from`)."),
  },
  '/api/v1/ah/{market}/{item}/book': { GET: d('Market reads', 'books', "One item's entries in the current order book.") },
  '/api/v1/ah/books': { POST: d('Uploads', 'upload.device (device) or api.upload (API key)', 'Uploads an order book (gzip allowed).') },
  '/api/v1/ah/scans': { ANY: d('Uploads', 'retired', 'Retired: always 404.') },
  '/api/v1/items': { GET: d('Item data', 'public', 'Merged item data of the current or the named build (`?build`).') },
  '/api/v1/items/search-index': { GET: d('Item data', 'public', 'The merged search index (`?build`).') },
  '/api/v1/items/unknown': { GET: d('Item data', 'public', 'Keys with a row in some market and no name.') },
  '/api/v1/items/{key}': { GET: d('Item data', 'public', "One key's item record and variant name.") },
  '/api/v1/items/seen': { POST: d('Item data', 'upload.device (device) or api.upload (API key)', 'Reports item names seen in the game (catalogue upload).') },
  '/api/v1/market/watch': {
    GET: d('Settings', 'signed in', 'The watchlist.'),
    PUT: d('Settings', 'watchlist', 'Replaces the watchlist.'),
  },
  '/api/v1/market/alerts': {
    GET: d('Settings', 'signed in', 'The alerts, newest first.'),
    POST: d('Settings', 'alerts', 'Creates an alert.'),
  },
  '/api/v1/market/alerts/{id}': {
    PUT: d('Settings', 'alerts', 'Replaces an alert and re-arms it.'),
    DELETE: d('Settings', 'alerts', 'Deletes an alert.'),
  },
  '/api/v1/market/boards': {
    GET: d('Settings', 'signed in', 'The dashboards and screens document.'),
    PUT: d('Settings', 'boards', 'Replaces the dashboards and screens document.'),
  },
  '/api/v1/push/key': { GET: d('Web Push', 'signed in', 'The VAPID public key, or null.') },
  '/api/v1/push/subscription': {
    GET: d('Web Push', 'signed in', "The account's push subscriptions."),
    PUT: d('Web Push', 'signed in', 'Subscribes a browser or replaces its prefs.'),
    DELETE: d('Web Push', 'signed in', 'Removes a subscription.'),
  },
  '/api/v1/update/latest.json': { GET: d('Downloads', 'public', 'The desktop updater manifest (never cached).') },
  '/api/v1/downloads/desktop/latest': { GET: d('Downloads', 'public', 'Redirects (302) to the current desktop installer.') },
  '/api/v1/live': { GET: d('Live', 'live', 'WebSocket upgrade for one market (`?market`).') },
  '/': { GET: d('Pages and discovery', 'public', 'Home page (HTML or Markdown).') },
  '/item/{key}': { GET: d('Pages and discovery', 'public', 'Item page (`?m=<market>`; HTML or Markdown; `/item/<key>.md` is Markdown).') },
  '/item/{key}/{slug}': { GET: d('Pages and discovery', 'public', 'Item page with a name slug.') },
  '/openapi.json': { GET: d('Pages and discovery', 'public', 'OpenAPI 3.1 description of the integration subset.') },
  '/openapi.full.json': { GET: d('Pages and discovery', 'public', 'OpenAPI 3.1 description of every route, generated from the zod schemas.') },
  '/docs/api/reference': { GET: d('Pages and discovery', 'public', 'This endpoint directory (HTML or Markdown).') },
  '/docs/api/reference.md': { GET: d('Pages and discovery', 'public', 'This endpoint directory in Markdown.') },
  '/.well-known/api-catalog': { GET: d('Pages and discovery', 'public', 'API catalog (RFC 9727 linkset).') },
  '/llms.txt': { GET: d('Pages and discovery', 'public', 'A short guide for language models.') },
  '/llms-full.txt': { GET: d('Pages and discovery', 'public', 'The guide with the full endpoint directory.') },
  '/sitemap.xml': { GET: d('Pages and discovery', 'public', 'Sitemap of the public pages.') },
  '/AGENTS.md': { GET: d('Pages and discovery', 'public', 'How software agents should use this service.') },
  '/icons/{icon}': { GET: d('Pages and discovery', 'public', 'An item icon by name: `/icons/<icon>.webp` (56x56 WebP).') },
  '/icons/id/{fileId}': { GET: d('Pages and discovery', 'public', 'An item icon by file id: `/icons/id/<fileID>.webp`.') },
};

export interface DirectoryEntry {
  methods: string[];
  path: string;
  doc: RouteDoc;
}

/** Every route of the manifest, HEAD folded into GET, in manifest order; a route without a description is an error. */
export function endpointDirectory(routes: readonly RouteSpec[] = HTTP_ROUTES): DirectoryEntry[] {
  const out: DirectoryEntry[] = [];
  for (const r of routes) {
    if (r.method === 'HEAD') {
      const get = out.find((e) => e.path === r.path && e.methods.includes('GET'));
      if (get) get.methods.push('HEAD');
      continue;
    }
    const doc = ROUTE_DOCS[r.path]?.[r.method];
    if (!doc) throw new Error(`no description for ${r.method} ${r.path}`);
    out.push({ methods: [r.method], path: r.path, doc });
  }
  return out;
}

const sections = (entries: DirectoryEntry[]): Map<string, DirectoryEntry[]> => {
  const m = new Map<string, DirectoryEntry[]>();
  for (const e of entries) m.set(e.doc.section, [...(m.get(e.doc.section) ?? []), e]);
  return m;
};

/** What every caller should know first: formats, units and credentials. */
export const API_INTRO =
  'Every route of the Market Data Service API. Answers are JSON; times are Unix milliseconds; prices are copper per unit. Send credentials as `Authorization: Bearer <token>` (session, device token or API key); API keys need `api.read` for reads except public snapshots, item data and icons.';

/**
 * The directory in Markdown, one table row per route: the compact form `/llms-full.txt` carries (the page at
 * `/docs/api/reference` renders the full OpenAPI document: reference-page.ts).
 */
export function directoryMarkdown(publicBase: string): string {
  const lines = [
    '# API reference',
    '',
    API_INTRO,
    '',
    `Base URL: ${publicBase}. OpenAPI description of the integration subset: ${publicBase}openapi.json; of every route, generated from the schemas: ${publicBase}openapi.full.json. Every route with its parameters, request body, answers and examples: ${publicBase}docs/api/reference.md.`,
    '',
  ];
  for (const [section, entries] of sections(endpointDirectory())) {
    lines.push(`## ${section}`, '', '| Method | Path | Access | Description |', '|---|---|---|---|');
    for (const e of entries) lines.push(`| ${e.methods.join(', ')} | \`${e.path}\` | ${escapeMarkdown(e.doc.access)} | ${e.doc.text.replace(/\|/g, '\\|')} |`);
    lines.push('');
  }
  return lines.join('\n');
}
