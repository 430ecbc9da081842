/**
 * Stored books (spec Retention: book snapshots kept 30 days): one entry per merged book, by its `at`,
 * pointing at the book file in the files bucket.
 */
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type Clock, DAY_MS, systemClock } from '../clock';
import type { BookLogEntry, BookLogPort } from '../ports/market';
import { isLive } from './identity-items';
import { bookLogPk, bookLogSk } from './keys';
import { queryAll } from './query';

export const BOOK_LOG_KEEP_MS = 30 * DAY_MS;

export class BookLog implements BookLogPort {
  /** `clock` decides which entries have expired (DynamoDB deletes lazily); pass the service clock. */
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Writes an entry; the same market and `at` overwrite (a redelivered merge writes the same entry). */
  async put(e: BookLogEntry): Promise<void> {
    const item = { pk: bookLogPk(e.market), sk: bookLogSk(e.at), ...e, ttl: Math.ceil((Math.max(e.at, e.mergedAt) + BOOK_LOG_KEEP_MS) / 1000) };
    await this.ddb.send(new PutCommand({ TableName: this.table, Item: item }));
  }

  /** Live entries with `fromAt <= at <= toAt`, newest first. */
  async between(market: string, fromAt: number, toAt: number): Promise<BookLogEntry[]> {
    const now = this.clock.now();
    const out: BookLogEntry[] = [];
    if (fromAt > toAt) return out;
    const items = await queryAll(this.ddb, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': bookLogPk(market), ':from': bookLogSk(Math.max(0, fromAt)), ':to': bookLogSk(Math.max(0, toAt)) },
      ScanIndexForward: false,
    });
    for (const item of items) if (isLive(item, now)) out.push(toEntry(item));
    return out;
  }

  /** The entry of the book observed at `at` (null when none or expired). */
  async get(market: string, at: number): Promise<BookLogEntry | null> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.table, Key: { pk: bookLogPk(market), sk: bookLogSk(at) } }));
    return isLive(out.Item, this.clock.now()) ? toEntry(out.Item) : null;
  }
}

function toEntry(item: Record<string, unknown>): BookLogEntry {
  return {
    market: String(item.market),
    at: Number(item.at),
    complete: item.complete === true,
    auctions: Number(item.auctions),
    entries: Number(item.entries),
    path: String(item.path),
    mergedAt: Number(item.mergedAt),
  };
}
