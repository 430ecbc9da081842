/**
 * Book and snapshot file reads (spec Market reads: item book, books list, book file, hourly snapshot).
 * Books need `books`; the snapshot is public and always hourly. Stored gzip bodies pass through when the
 * caller accepts gzip, else they are decompressed.
 */
import { secondsToNextHour } from '../clock';
import { parseItemKey } from '../domain/item-key';
import { NotFoundError } from '../errors';
import { liveHeaders } from '../http/answer-cache';
import { fitAnswer } from '../http/answer-files';
import type { Route, RoutesOf } from '../http/handler';
import { storedJson } from '../http/respond';
import type { HttpResult } from '../http/types';
import { bookSummary, itemBookEntries, readBookFile } from '../market/book-read';
import { bookRange } from '../market/query-rules';
import { latestSnapshotFile } from '../market/snapshot-read';
import { readSources } from '../market/sources';
import { BooksQuery } from './market-books.schemas';
import { parseAs } from './zod-parse';

/** A stored book or snapshot file as the caller accepts it. */
const fileAnswer = (raw: Buffer, gzip: boolean, acceptEncoding: string | undefined, cacheControl: string): HttpResult =>
  storedJson(raw, gzip, acceptEncoding, { 'cache-control': cacheControl });

/** GET /api/v1/ah/:market/:item/book: `{market, item, at, entries: [price, stack, band, n][], now}` from the current book. */
export const getItemBook: Route = {
  access: { kind: 'public', feature: 'books' },
  async handle({ req, svc }) {
    const market = req.params.market;
    const key = parseItemKey(req.params.item);
    const meta = await readSources(svc).store.meta(market);
    const book = meta.currentBook;
    const entries = book ? await itemBookEntries(svc, market, book.ref, key) : [];
    const body = { market, item: key, at: book ? book.at : null, entries, now: svc.clock.now() };
    return { statusCode: 200, headers: liveHeaders(), body: JSON.stringify(body) };
  },
};

/** GET /api/v1/ah/:market/books?from&to: `{market, books: [{at, complete, auctions, entries, url}], now}`, newest first. */
export const getBooks: Route = {
  access: { kind: 'public', feature: 'books' },
  async handle({ req, svc }) {
    const now = svc.clock.now();
    const { from, to } = bookRange(now, parseAs(BooksQuery, req.query, 'bad_query'));
    const market = req.params.market;
    const list = await readSources(svc).books.between(market, from, to);
    const books = list.map((b) => bookSummary(svc.config.cdnBase, b, b.path));
    return { statusCode: 200, headers: liveHeaders(), body: JSON.stringify({ market, books, now }) };
  },
};

/** GET /api/v1/ah/:market/books/:at: the stored book body; `Cache-Control: private, max-age=86400`; 404 `unknown_book`. */
export const getBookFile: Route = {
  access: { kind: 'public', feature: 'books' },
  async handle({ req, svc }) {
    const text = req.params.at ?? '';
    const at = /^(0|[1-9][0-9]{0,15})$/.test(text) ? Number(text) : Number.NaN;
    const entry = Number.isSafeInteger(at) ? await readSources(svc).books.get(req.params.market, at) : null;
    const file = entry ? await readBookFile(svc, entry.path) : null;
    if (!file) throw new NotFoundError('unknown_book', 'no stored book was observed at that time');
    const ae = req.headers['accept-encoding'];
    // One stored book is the same answer for every `books` caller: a big one is one file per hour and encoding.
    return fitAnswer(svc, fileAnswer(file.raw, file.gzip, ae, 'private, max-age=86400'), ae, { kind: 'hourly', key: `book#${entry?.path}` });
  },
};

/** GET /api/v1/ah/:market/snapshot: the newest hourly snapshot file, for everyone; 404 before the first. */
export const getSnapshot: Route = {
  access: { kind: 'public', keyExempt: true },
  async handle({ req, svc }) {
    // The pointer and the immutable hourly file it names, kept by a warm instance (snapshot-read.ts).
    const latest = await latestSnapshotFile(svc, req.params.market);
    if (!latest) throw new NotFoundError('not_found', 'no hourly snapshot has been written yet');
    const { path, file } = latest;
    const gzip = file.contentEncoding === 'gzip' || (file.data[0] === 0x1f && file.data[1] === 0x8b);
    // The pointer is rewritten shortly after the hour: two minutes of slack keep edges from caching the old one.
    const ae = req.headers['accept-encoding'];
    const answer = fileAnswer(file.data, gzip, ae, `public, max-age=${secondsToNextHour(svc.clock.now()) + 120}`);
    return fitAnswer(svc, answer, ae, { kind: 'hourly', key: `snapshot#${path}` });
  },
};

/** Route keys of the book and snapshot file reads (shared/topology.ts). */
export const marketBookRoutes = {
  'GET /api/v1/ah/{market}/{item}/book': getItemBook,
  'GET /api/v1/ah/{market}/books': getBooks,
  'GET /api/v1/ah/{market}/books/{at}': getBookFile,
  'GET /api/v1/ah/{market}/snapshot': getSnapshot,
} satisfies RoutesOf<'api'>;
