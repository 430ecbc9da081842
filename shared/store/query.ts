import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandInput, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';

type QueryInput = Omit<QueryCommandInput, 'ExclusiveStartKey'>;

/**
 * A Query's pages, following `LastEvaluatedKey` until the last one or until the caller stops. `input` may be
 * a function, asked before each page (a `Limit` that shrinks as results come in).
 */
export async function* queryPages(ddb: DynamoDBDocumentClient, input: QueryInput | (() => QueryInput)): AsyncGenerator<QueryCommandOutput> {
  let start: Record<string, unknown> | undefined;
  do {
    const page = await ddb.send(new QueryCommand({ ...(typeof input === 'function' ? input() : input), ExclusiveStartKey: start }));
    yield page;
    start = page.LastEvaluatedKey;
  } while (start);
}

/** Every item a Query matches, following `LastEvaluatedKey` page by page. */
export async function queryAll(ddb: DynamoDBDocumentClient, input: QueryInput): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of queryPages(ddb, input)) items.push(...(page.Items ?? []));
  return items;
}
