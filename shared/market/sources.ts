/**
 * What market reads read from: the packed-page store, the scan, book and merge logs, and the table for the
 * read cache, bundled once per request so every helper meters into the same `CapacityMeter`.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../clock';
import type { Services } from '../services';
import { BookLog } from '../store/book-log';
import { CapacityMeter, MarketStore } from '../store/market-store';
import { MergeLog } from '../store/merge-log';
import { ScanLog } from '../store/scan-log';

export interface ReadSources {
  store: MarketStore;
  scans: ScanLog;
  books: BookLog;
  merges: MergeLog;
  ddb: DynamoDBDocumentClient;
  table: string;
  clock: Clock;
  meter: CapacityMeter;
  /** The caller may not write the table (the pages function): read caches are not stored (IAM would refuse). */
  readOnly?: boolean;
}

/** The read sources of a service configuration. */
export function readSources(svc: Pick<Services, 'ddb' | 'config' | 'clock'>, meter = new CapacityMeter(), readOnly = false): ReadSources {
  const table = svc.config.tableName;
  return {
    store: new MarketStore(svc.ddb, table, meter),
    scans: new ScanLog(svc.ddb, table, svc.clock),
    books: new BookLog(svc.ddb, table, svc.clock),
    merges: new MergeLog(svc.ddb, table),
    ddb: svc.ddb,
    table,
    clock: svc.clock,
    meter,
    readOnly,
  };
}
