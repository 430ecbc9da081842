/**
 * A typed HTTP client of the whole API (issue 15.1): one method per route of the manifest that answers JSON,
 * its answer type inferred from the zod answer schema the OpenAPI document (`/openapi.full.json`) is generated
 * from, its query and body types from the schemas the route parses with. Type-only imports: at run time this
 * module needs nothing but `fetch` and the Compression Streams API (Node 20+, browsers).
 */
import type { z } from 'zod';
import type { ConfirmAnswer, ContributionsAnswer, DevicesAnswer, MeAnswer, PairAnswer, PollAnswer } from '../api/account.schemas';
import type { BookBody, UploadAnswer } from '../api/book-upload.schemas';
import type { CatalogueBody } from '../api/catalogue-upload.schemas';
import type { Deleted, ErrorBody } from '../api/common.schemas';
import type { AdminSnapshotAnswer, ConfigAnswer, UpdateManifest } from '../api/environment.schemas';
import type { ItemFile, ItemAnswer as ItemRecordAnswer } from '../api/items.schemas';
import type { BooksAnswer, ItemBookAnswer } from '../api/market-books.schemas';
import type { FilesAnswer } from '../api/market-files.schemas';
import type { BatchCandlesAnswer, CandlesAnswer, HistoryAnswer, IntradayAnswer, ItemAnswer, MarketsAnswer, TableAnswer } from '../api/market-reads.schemas';
import type { PushPrefs, PushSubscriptionView } from '../api/push.schemas';
import type { AlertAnswer, AlertInput, AlertsAnswer, BoardsDocument, WatchAnswer } from '../api/settings.schemas';
import { type Bytes, canGzip, gzipText } from './compression';

export type Answer<S extends z.ZodType> = z.output<S>;
export type Me = Answer<typeof MeAnswer>;
export type Markets = Answer<typeof MarketsAnswer>;
export type ItemRead = Answer<typeof ItemAnswer>;
export type Candles = Answer<typeof CandlesAnswer>;
export type Alert = Answer<typeof AlertAnswer>['alert'];
export type AlertRequest = z.input<typeof AlertInput>;
export type Boards = Answer<typeof BoardsDocument>;
export type BookUpload = z.input<typeof BookBody>;
export type Upload = Answer<typeof UploadAnswer>;
export type ApiErrorBody = Answer<typeof ErrorBody>;

export interface HttpClientOptions {
  /** The deployment's public base, e.g. `http://127.0.0.1:3000` or `https://markets.example/`. */
  base: string;
  /** An API key (`ak_…`): reads need `api.read`, uploads `api.upload`. */
  apiKey?: string;
  /** A session JWT or a device token (`svc_dev_…`). */
  token?: string;
  /** Sent as `Origin` on writes: a session's write needs one of the deployment's origins (browsers send it themselves). */
  origin?: string;
  /** Headers added to every request. */
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  /**
   * Gzip upload bodies (books, item reports) with `Content-Encoding: gzip`, as the spec allows: a 200k-entry
   * book is ~6 MB of JSON. Default: where the platform has CompressionStream (browsers, Node 18+).
   */
  gzip?: boolean;
  /** Called with each 2xx JSON answer and its route key (`"GET /api/v1/me"`), e.g. to check it against the schemas. */
  onAnswer?: (routeKey: string, answer: unknown) => void;
}

/** A 4xx/5xx answer: `{error, message?}` (403 adds `feature`, 409 `too_many` adds `limit`); 429 carries `retryAfter`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
    readonly headers: Headers,
  ) {
    super(`${status} ${body.error}${body.message ? `: ${body.message}` : ''}`);
    this.name = 'ApiError';
  }

  get code(): string {
    return this.body.error;
  }

  /** Seconds to wait before trying again (429), or null. */
  get retryAfter(): number | null {
    const v = this.headers.get('retry-after');
    return v === null ? null : Number(v);
  }
}

type Query = Record<string, string | number | readonly number[] | undefined>;
interface Call {
  query?: Query;
  body?: unknown;
  /** Send the JSON body gzipped (`Content-Encoding: gzip`). */
  gzip?: boolean;
}

const seg = (v: string | number): string => encodeURIComponent(String(v));

/** The typed client. Every method answers the route's 2xx body or throws ApiError. */
export function httpClient(opts: HttpClientOptions) {
  const base = opts.base.replace(/\/+$/, '');
  // Called as a plain function: a browser's fetch refuses to run with another `this` ("Illegal invocation").
  const doFetch: typeof fetch = opts.fetch ?? ((input, init) => fetch(input, init));
  const credential = opts.apiKey ?? opts.token;
  const gzipUploads = opts.gzip ?? canGzip();

  async function send(method: string, path: string, call: Call = {}, redirect: 'follow' | 'manual' = 'follow'): Promise<Response> {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined) qs.set(k, Array.isArray(v) ? v.join(',') : String(v));
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    if (credential) headers.authorization = `Bearer ${credential}`;
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    if (method !== 'GET' && opts.origin) headers.origin = opts.origin;
    let body: string | Bytes | undefined = call.body === undefined ? undefined : JSON.stringify(call.body);
    if (body !== undefined && call.gzip) {
      body = await gzipText(body);
      headers['content-encoding'] = 'gzip';
    }
    const url = `${base}${path}${qs.size ? `?${qs}` : ''}`;
    const res = await doFetch(url, { method, headers, body, redirect });
    if (res.status >= 400) {
      const text = await res.text();
      let body: ApiErrorBody;
      try {
        body = JSON.parse(text) as ApiErrorBody;
      } catch {
        body = { error: 'http_error', message: text.slice(0, 200) };
      }
      throw new ApiError(res.status, body, res.headers);
    }
    return res;
  }

  async function json<T>(method: string, template: string, path: string, call?: Call): Promise<T> {
    const res = await send(method, path, call);
    const body = (await res.json()) as unknown;
    opts.onAnswer?.(`${method} /api/v1${template}`, body);
    return body as T;
  }

  const get = <T>(template: string, path: string, query?: Query) => json<T>('GET', template, path, { query });
  const m = (market: string) => `/api/v1/ah/${seg(market)}`;

  return {
    // Environment
    config: () => get<Answer<typeof ConfigAnswer>>('/config', '/api/v1/config'),
    adminSnapshot: () => json<Answer<typeof AdminSnapshotAnswer>>('POST', '/admin/snapshot', '/api/v1/admin/snapshot'),
    // Account
    me: () => get<Me>('/me', '/api/v1/me'),
    contributions: (q: { from?: number } = {}) => get<Answer<typeof ContributionsAnswer>>('/contributions', '/api/v1/contributions', q),
    pairDevice: (name?: string) =>
      json<Answer<typeof PairAnswer>>('POST', '/devices/pair', '/api/v1/devices/pair', { body: name === undefined ? {} : { name } }),
    confirmDevice: (code: string) => json<Answer<typeof ConfirmAnswer>>('POST', '/devices/confirm', '/api/v1/devices/confirm', { body: { code } }),
    pollPairing: (pairId: string) => get<Answer<typeof PollAnswer>>('/devices/pair/{pairId}', `/api/v1/devices/pair/${seg(pairId)}`),
    devices: () => get<Answer<typeof DevicesAnswer>>('/devices', '/api/v1/devices'),
    deleteDevice: (id: string) => json<Answer<typeof Deleted>>('DELETE', '/devices/{id}', `/api/v1/devices/${seg(id)}`),
    // Market reads
    markets: () => get<Markets>('/ah', '/api/v1/ah'),
    table: (market: string, q: { since?: number } = {}) => get<Answer<typeof TableAnswer>>('/ah/{market}', m(market), q),
    files: (market: string) => get<Answer<typeof FilesAnswer>>('/ah/{market}/files', `${m(market)}/files`),
    item: (market: string, item: number) => get<ItemRead>('/ah/{market}/{item}', `${m(market)}/${seg(item)}`),
    itemCandles: (market: string, item: number, q: { res?: 'm1' | 'h1' | 'd1'; from?: number } = {}) =>
      get<Candles>('/ah/{market}/{item}/candles', `${m(market)}/${seg(item)}/candles`, q),
    batchCandles: (market: string, q: { items: readonly number[]; res?: 'm1' | 'h1' | 'd1'; from?: number }) =>
      get<Answer<typeof BatchCandlesAnswer>>('/ah/{market}/candles', `${m(market)}/candles`, q),
    intraday: (market: string, q: { from?: number } = {}) => get<Answer<typeof IntradayAnswer>>('/ah/{market}/intraday', `${m(market)}/intraday`, q),
    history: (market: string, q: { from?: number } = {}) => get<Answer<typeof HistoryAnswer>>('/ah/{market}/history', `${m(market)}/history`, q),
    itemBook: (market: string, item: number) => get<Answer<typeof ItemBookAnswer>>('/ah/{market}/{item}/book', `${m(market)}/${seg(item)}/book`),
    books: (market: string, q: { from?: number; to?: number } = {}) => get<Answer<typeof BooksAnswer>>('/ah/{market}/books', `${m(market)}/books`, q),
    /** The stored book body as uploaded. */
    bookFile: (market: string, at: number) => get<BookUpload>('/ah/{market}/books/{at}', `${m(market)}/books/${seg(at)}`),
    /** The newest hourly snapshot file (format: files-and-live, Hourly snapshot). */
    snapshot: (market: string) => get<Record<string, unknown>>('/ah/{market}/snapshot', `${m(market)}/snapshot`),
    // Item data
    items: (q: { build?: string } = {}) => get<Answer<typeof ItemFile>>('/items', '/api/v1/items', q),
    searchIndex: (q: { build?: string } = {}) => get<Answer<typeof ItemFile>>('/items/search-index', '/api/v1/items/search-index', q),
    itemRecord: (key: number) => get<Answer<typeof ItemRecordAnswer>>('/items/{key}', `/api/v1/items/${seg(key)}`),
    unknownItems: () => get<{ items: number[]; now: number }>('/items/unknown', '/api/v1/items/unknown'),
    /** Gzipped unless `gzip: false` (spec: the catalogue body may be gzip). */
    reportItems: (body: z.input<typeof CatalogueBody>) =>
      json<{ added: number; known: number }>('POST', '/items/seen', '/api/v1/items/seen', { body, gzip: gzipUploads }),
    // Uploads
    /** Gzipped unless `gzip: false` (spec Uploads: optional `Content-Encoding: gzip`, 32 MiB each way). */
    uploadBook: (body: BookUpload) => json<Upload>('POST', '/ah/books', '/api/v1/ah/books', { body, gzip: gzipUploads }),
    // Settings
    watchlist: () => get<Answer<typeof WatchAnswer>>('/market/watch', '/api/v1/market/watch'),
    putWatchlist: (items: readonly number[]) => json<Answer<typeof WatchAnswer>>('PUT', '/market/watch', '/api/v1/market/watch', { body: { items } }),
    alerts: () => get<Answer<typeof AlertsAnswer>>('/market/alerts', '/api/v1/market/alerts'),
    createAlert: (input: AlertRequest) => json<Answer<typeof AlertAnswer>>('POST', '/market/alerts', '/api/v1/market/alerts', { body: input }),
    replaceAlert: (id: string, input: AlertRequest) =>
      json<Answer<typeof AlertAnswer>>('PUT', '/market/alerts/{id}', `/api/v1/market/alerts/${seg(id)}`, { body: input }),
    deleteAlert: (id: string) => json<Answer<typeof Deleted>>('DELETE', '/market/alerts/{id}', `/api/v1/market/alerts/${seg(id)}`),
    boards: () => get<Boards>('/market/boards', '/api/v1/market/boards'),
    putBoards: (doc: z.input<typeof BoardsDocument>) => json<Boards>('PUT', '/market/boards', '/api/v1/market/boards', { body: doc }),
    // Web Push
    pushKey: () => get<{ publicKey: string | null }>('/push/key', '/api/v1/push/key'),
    pushSubscriptions: () => get<{ subscriptions: Answer<typeof PushSubscriptionView>[] }>('/push/subscription', '/api/v1/push/subscription'),
    putPushSubscription: (subscription: { endpoint: string; keys: { p256dh: string; auth: string } }, prefs?: z.input<typeof PushPrefs> | null) =>
      json<{ subscription: Answer<typeof PushSubscriptionView> }>('PUT', '/push/subscription', '/api/v1/push/subscription', {
        body: prefs === undefined ? { subscription } : { subscription, prefs },
      }),
    deletePushSubscription: (endpoint: string) =>
      json<Answer<typeof Deleted>>('DELETE', '/push/subscription', '/api/v1/push/subscription', { body: { endpoint } }),
    // Updates and downloads
    updateManifest: () => get<Answer<typeof UpdateManifest>>('/update/latest.json', '/api/v1/update/latest.json'),
    /** Where the current desktop installer is (the 302's `Location`). */
    desktopDownload: async (): Promise<string> => (await send('GET', '/api/v1/downloads/desktop/latest', {}, 'manual')).headers.get('location') ?? '',
  };
}

export type HttpClient = ReturnType<typeof httpClient>;
