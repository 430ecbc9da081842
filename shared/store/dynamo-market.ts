/** The DynamoDB adapter of the market port: every part over one table. */
import type { MarketPort } from '../ports/market';
import { BookLog } from './book-log';
import { atPort } from './dependency-failure';
import { DynamoAnswers } from './dynamo-answers';
import { DynamoCapStore } from './dynamo-caps';
import { dynamoFilesState } from './dynamo-files-state';
import { RetentionStore } from './market-retention';
import { CapacityMeter, MarketStore } from './market-store';
import { dynamoMergeFailures } from './merge-failures';
import { MergeLog } from './merge-log';
import { ScanLog } from './scan-log';
import type { Table } from './table';

export interface DynamoMarketOptions {
  /** Sums the consumed capacity of page reads and writes (the cost bench). */
  meter?: CapacityMeter;
}

export function dynamoMarket(t: Table, opts: DynamoMarketOptions = {}): MarketPort {
  const meter = opts.meter ?? new CapacityMeter();
  return atPort('table', {
    scope: t.name,
    pages: new MarketStore(t.ddb, t.name, meter, false),
    latest: new MarketStore(t.ddb, t.name, meter, true),
    merges: new MergeLog(t.ddb, t.name),
    scans: new ScanLog(t.ddb, t.name, t.clock),
    books: new BookLog(t.ddb, t.name, t.clock),
    retention: new RetentionStore(t.ddb, t.name),
    failures: dynamoMergeFailures(t),
    caps: new DynamoCapStore(t),
    filesState: dynamoFilesState(t),
    answers: new DynamoAnswers(t),
  });
}
