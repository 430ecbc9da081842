/**
 * The DynamoDB adapter of the hour's reused answers: bodies gzip-compressed and split into chunks below
 * DynamoDB's 400 KB item limit (history answers of a big market run to megabytes), expiring when their hour ends;
 * and of finished days' answer fragments, chunked the same way, expiring once retention has dropped their day.
 */
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip, gunzipSync, gzip, gzipSync } from 'node:zlib';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { HOUR_MS, hourOf } from '../clock';
import type { AnswerStore } from '../ports/market';
import { isConditionFailure } from './identity-items';
import { fragmentPk, spilledAnswerKey, viewAnswerPk } from './keys';
import type { Table } from './table';

/** Chunk sort keys: an answer's are `0`, `1`, … (its head `0`); a fragment's `f0`, `f1`, … so nothing counting answers' heads counts them. */
const ANSWER = '';
const FRAGMENT = 'f';
/** Below the 400 KB item limit with room for the key and attributes. */
const CHUNK_BYTES = 350_000;

const gunzipAsync = promisify(gunzip);
const gzipAsync = promisify(gzip);
/** Past any fragment's size (a whole-market day is ~0.5 MB inflated): a damaged trailer cannot ask for more. */
const MAX_INFLATED = 64 * 1024 * 1024;

/**
 * Inflates off the main thread (a cold history answer inflates ~60 fragments, ~30 MB, which would otherwise
 * hold the event loop while other fragments' responses wait) into one buffer of the size gzip's trailer states
 * (ISIZE) instead of 16 KB pieces joined afterwards.
 */
function inflate(packed: Buffer): Promise<Buffer> {
  const size = packed.length >= 18 ? packed.readUInt32LE(packed.length - 4) : 0;
  return gunzipAsync(packed, { chunkSize: Math.min(Math.max(size + 1, 1024), MAX_INFLATED) });
}

interface StoredChunk {
  sk: string;
  id: string;
  d: Uint8Array;
  n?: number;
  ttl: number;
}

export class DynamoAnswers implements AnswerStore {
  constructor(private readonly t: Table) {}

  /** The stored body, or null when absent, expired or incomplete (a concurrent writer's chunks mixed in). */
  async read(hash: string, now: number): Promise<string | null> {
    const packed = await this.readChunks(viewAnswerPk(hash), ANSWER, now);
    return packed === null ? null : gunzipSync(packed).toString('utf8');
  }

  /** Writes the chunks, the head last: a reader seeing the head with its `id` finds every chunk of that write. */
  async write(hash: string, body: string, now: number): Promise<void> {
    await this.writeChunks(viewAnswerPk(hash), ANSWER, gzipSync(body, { level: 1 }), Math.ceil(((hourOf(now) + 1) * HOUR_MS) / 1000));
  }

  /** A fragment that does not inflate (damaged) is absent: its period is built from its pages. */
  async readFragment(key: string, now: number): Promise<Uint8Array | null> {
    const packed = await this.readChunks(fragmentPk(key), FRAGMENT, now);
    return packed === null ? null : inflate(packed).catch(() => null);
  }

  async writeFragment(key: string, data: Uint8Array, expiresAt: number): Promise<void> {
    // Off the main thread, as reads inflate: a run of 30 final days is ~20 MB to compress, which would hold the
    // event loop while the answer's other fragments and pages wait.
    await this.writeChunks(fragmentPk(key), FRAGMENT, await gzipAsync(data, { level: 1 }), Math.ceil(expiresAt / 1000));
  }

  /**
   * The chunks under `pk` joined, or null when absent, expired or incomplete. The head first (it names the
   * count and the write), then every other chunk at once: a Query would page through them one megabyte at a
   * time, one round trip after another (a 30-day run of final days is ~15 chunks, ~7 pages).
   */
  private async readChunks(pk: string, sk: string, now: number): Promise<Buffer | null> {
    const chunk = async (i: number) =>
      (await this.t.ddb.send(new GetCommand({ TableName: this.t.name, Key: { pk, sk: `${sk}${i}` } }))).Item as StoredChunk | undefined;
    const head = await chunk(0);
    if (!head || typeof head.n !== 'number' || head.ttl * 1000 <= now) return null;
    const rest = await Promise.all(Array.from({ length: head.n - 1 }, (_, i) => chunk(i + 1)));
    const parts = [head, ...rest];
    // A chunk of another write (a concurrent writer's) or a missing one: incomplete.
    if (parts.some((c) => c?.id !== head.id)) return null;
    // One copy: the chunks' own bytes joined (copying each first doubled it).
    return Buffer.concat(parts.map((c) => (c as StoredChunk).d));
  }

  /** Writes `packed` in chunks under `pk`, the head last (with the count and this write's `id`). */
  private async writeChunks(pk: string, sk: string, packed: Buffer, ttl: number): Promise<void> {
    const id = randomBytes(6).toString('base64url');
    const n = Math.max(1, Math.ceil(packed.length / CHUNK_BYTES));
    const item = (i: number) => ({ pk, sk: `${sk}${i}`, id, d: packed.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES), ttl });
    await Promise.all(Array.from({ length: n - 1 }, (_, i) => this.t.ddb.send(new PutCommand({ TableName: this.t.name, Item: item(i + 1) }))));
    await this.t.ddb.send(new PutCommand({ TableName: this.t.name, Item: { ...item(0), n } }));
  }

  async spilledFile(key: string, now: number): Promise<string | null> {
    const out = await this.t.ddb.send(new GetCommand({ TableName: this.t.name, Key: spilledAnswerKey(key), ConsistentRead: true }));
    const found = out.Item as { path?: string; ttl?: number } | undefined;
    return found?.path && (found.ttl ?? 0) * 1000 > now ? found.path : null;
  }

  async recordSpilledFile(key: string, path: string, now: number): Promise<string> {
    const ttl = Math.ceil(((hourOf(now) + 1) * HOUR_MS) / 1000);
    try {
      await this.t.ddb.send(
        new PutCommand({
          TableName: this.t.name,
          Item: { ...spilledAnswerKey(key), path, ttl },
          ConditionExpression: 'attribute_not_exists(pk) OR #ttl <= :now',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':now': Math.floor(now / 1000) },
        }),
      );
      return path;
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
      return (await this.spilledFile(key, now)) ?? path;
    }
  }
}
