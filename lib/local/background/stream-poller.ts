/**
 * DynamoDB Streams → Lambda, as the event source mapping does it: polls DynamoDB Local's stream of the table
 * and invokes the consumer with `DynamoDBStreamEvent` batches (INSERT / MODIFY / REMOVE with both images).
 * Records that pass none of the mapping's filters are dropped before batching, as Lambda drops them.
 */

import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { type FilterPattern, passesFilters } from '../../../shared/store/stream-filter';
import { OneAtATime } from './one-at-a-time';

export type StreamConsumer = (event: DynamoDBStreamEvent) => Promise<unknown>;

export class StreamPoller {
  private readonly streams: DynamoDBStreamsClient;
  private streamArn = '';
  private readonly iterators = new Map<string, string | null>();
  /** Newest sequence number delivered per shard, to resume after an expired or trimmed iterator. */
  private readonly lastSeq = new Map<string, string>();
  private readonly polls = new OneAtATime<number>();

  constructor(
    endpoint: string,
    private readonly ddb: DynamoDBClient,
    private readonly tableName: string,
    private readonly consumer: StreamConsumer,
    private readonly batchSize: number,
    private readonly filters: readonly FilterPattern[],
    private readonly onError: (err: unknown) => void,
  ) {
    this.streams = new DynamoDBStreamsClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  }

  /** Starts at the stream's end: records written from now on are delivered (a restart does not replay old ones). */
  async init(fromStart: boolean): Promise<void> {
    const t = await this.ddb.send(new DescribeTableCommand({ TableName: this.tableName }));
    this.streamArn = t.Table?.LatestStreamArn ?? '';
    if (!this.streamArn) throw new Error('the table has no stream');
    await this.refreshShards(fromStart ? 'TRIM_HORIZON' : 'LATEST');
  }

  get busy(): boolean {
    return this.polls.busy;
  }

  /** Waits for a poll in flight (and the consumer it feeds) to end. */
  async idle(): Promise<void> {
    await this.polls.idle();
  }

  /** Polls every shard once and delivers what it finds; returns the number of records delivered. */
  async pollOnce(): Promise<number> {
    return this.polls.run(() => this.poll());
  }

  /** Polls until a full round finds nothing. */
  async drain(): Promise<void> {
    while ((await this.pollOnce()) > 0) {
      // keep going: consumers may have written more records
    }
  }

  private async refreshShards(type: 'TRIM_HORIZON' | 'LATEST'): Promise<void> {
    const d = await this.streams.send(new DescribeStreamCommand({ StreamArn: this.streamArn }));
    for (const shard of d.StreamDescription?.Shards ?? []) {
      const id = shard.ShardId!;
      if (this.iterators.has(id)) continue;
      // Shards that appear after start are new: read them from their beginning.
      const it = await this.streams.send(
        new GetShardIteratorCommand({ StreamArn: this.streamArn, ShardId: id, ShardIteratorType: this.iterators.size === 0 ? type : 'TRIM_HORIZON' }),
      );
      this.iterators.set(id, it.ShardIterator ?? null);
    }
  }

  private async poll(): Promise<number> {
    let delivered = 0;
    try {
      await this.refreshShards('TRIM_HORIZON');
    } catch (err) {
      this.onError(err);
      return 0;
    }
    for (const [shard, iterator] of this.iterators) {
      let it = iterator;
      // One retry: a stale iterator (idle too long, or its records trimmed) resumes after the last record delivered.
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          while (it) {
            const out = await this.streams.send(new GetRecordsCommand({ ShardIterator: it, Limit: 1000 }));
            it = out.NextShardIterator ?? null;
            const read = (out.Records ?? []) as unknown as DynamoDBRecord[];
            const records = read.filter((r) => passesFilters(r, this.filters));
            const newest = read[read.length - 1]?.dynamodb?.SequenceNumber;
            for (let i = 0; i < records.length; i += this.batchSize) {
              const batch = records.slice(i, i + this.batchSize).map((r) => ({ ...r, eventSourceARN: this.streamArn }));
              try {
                await this.consumer({ Records: batch });
              } catch (err) {
                this.onError(err);
              }
              delivered += batch.length;
              const last = batch[batch.length - 1].dynamodb?.SequenceNumber;
              if (last) this.lastSeq.set(shard, last);
            }
            // Filtered records are consumed too: a resumed iterator starts after the newest record read.
            if (newest) this.lastSeq.set(shard, newest);
            if (read.length === 0) break;
          }
          break;
        } catch (err) {
          const name = (err as { name?: string }).name;
          if (attempt > 0 || (name !== 'ExpiredIteratorException' && name !== 'TrimmedDataAccessException')) {
            this.onError(err);
            break;
          }
          it = await this.resume(shard, name === 'TrimmedDataAccessException');
        }
      }
      this.iterators.set(shard, it);
    }
    return delivered;
  }

  private async resume(shard: string, trimmed: boolean): Promise<string | null> {
    const after = this.lastSeq.get(shard);
    try {
      const it = await this.streams.send(
        new GetShardIteratorCommand(
          after && !trimmed
            ? { StreamArn: this.streamArn, ShardId: shard, ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }
            : { StreamArn: this.streamArn, ShardId: shard, ShardIteratorType: 'TRIM_HORIZON' },
        ),
      );
      return it.ShardIterator ?? null;
    } catch (err) {
      this.onError(err);
      return null;
    }
  }
}
