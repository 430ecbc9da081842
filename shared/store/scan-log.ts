/**
 * The scan log (spec Retention: market, at, items, complete, credited, uploader; kept 30 days, never
 * answered): one entry per merged or quarantined upload, sorted by observation time `at`.
 */
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type Clock, DAY_MS, systemClock } from '../clock';
import type { ScanLogEntry, ScanLogPort } from '../ports/market';
import { isLive } from './identity-items';
import { scanLogPk, scanLogSk } from './keys';
import { queryAll } from './query';

export const SCAN_LOG_KEEP_MS = 30 * DAY_MS;

export class ScanLog implements ScanLogPort {
  /** `clock` decides which entries have expired (DynamoDB deletes lazily); pass the service clock. */
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Writes an entry; `id` (the upload id) makes a redelivered merge overwrite rather than double it. */
  async put(e: ScanLogEntry, id: string): Promise<void> {
    const item = { pk: scanLogPk(e.market), sk: scanLogSk(e.at, id), ...e, ttl: Math.ceil((Math.max(e.at, e.mergedAt) + SCAN_LOG_KEEP_MS) / 1000) };
    await this.ddb.send(new PutCommand({ TableName: this.table, Item: item }));
  }

  /** Live entries with `fromAt <= at <= toAt`, ascending by `at`. */
  async between(market: string, fromAt: number, toAt: number): Promise<ScanLogEntry[]> {
    const now = this.clock.now();
    const out: ScanLogEntry[] = [];
    if (fromAt > toAt) return out;
    const items = await queryAll(this.ddb, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': scanLogPk(market), ':from': scanLogSk(Math.max(0, fromAt), ''), ':to': scanLogSk(Math.max(0, toAt), '~') },
    });
    for (const item of items) if (isLive(item, now)) out.push(toEntry(item));
    return out;
  }
}

function toEntry(item: Record<string, unknown>): ScanLogEntry {
  return {
    market: String(item.market),
    at: Number(item.at),
    items: Number(item.items),
    complete: item.complete === true,
    credited: item.credited === true,
    uploader: String(item.uploader),
    mergedAt: Number(item.mergedAt),
  };
}
