/** Creates the local table and bucket like the stack does, and sweeps expired items as DynamoDB TTL does (lazily). */
import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient, ResourceInUseException } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { DeleteCommand, type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE_INDEXES, TABLE_KEYS } from '../../../shared/store/table-schema';

export async function ensureTable(ddb: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await ddb.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: TABLE_KEYS.partitionKey, AttributeType: 'S' },
          { AttributeName: TABLE_KEYS.sortKey, AttributeType: 'S' },
          ...TABLE_INDEXES.flatMap((i) => [
            { AttributeName: i.partitionKey, AttributeType: 'S' as const },
            { AttributeName: i.sortKey, AttributeType: 'S' as const },
          ]).filter(
            (a, n, all) =>
              all.findIndex((b) => b.AttributeName === a.AttributeName) === n &&
              a.AttributeName !== TABLE_KEYS.partitionKey &&
              a.AttributeName !== TABLE_KEYS.sortKey,
          ),
        ],
        KeySchema: [
          { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: TABLE_INDEXES.length
          ? TABLE_INDEXES.map((i) => ({
              IndexName: i.name,
              KeySchema: [
                { AttributeName: i.partitionKey, KeyType: 'HASH' as const },
                { AttributeName: i.sortKey, KeyType: 'RANGE' as const },
              ],
              Projection: { ProjectionType: 'ALL' as const },
            }))
          : undefined,
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      }),
    );
  } catch (err) {
    if (!(err instanceof ResourceInUseException)) throw err;
  }
  await ddb.send(new DescribeTableCommand({ TableName: tableName }));
}

export async function ensureBucket(s3: S3Client, bucket: string): Promise<void> {
  try {
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (err) {
    const name = (err as { name?: string }).name;
    if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw err;
  }
}

/** Deletes items whose `ttl` (seconds) has passed on the service clock. */
export async function sweepExpired(doc: DynamoDBDocumentClient, tableName: string, nowMs: number): Promise<number> {
  let deleted = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: '#t < :now',
        ExpressionAttributeNames: { '#t': TABLE_KEYS.ttlAttribute, '#pk': 'pk', '#sk': 'sk' },
        ExpressionAttributeValues: { ':now': Math.floor(nowMs / 1000) },
        ProjectionExpression: '#pk, #sk',
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      await doc.send(new DeleteCommand({ TableName: tableName, Key: { pk: item.pk, sk: item.sk } }));
      deleted++;
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return deleted;
}
