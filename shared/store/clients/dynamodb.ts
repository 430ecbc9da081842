/** The DynamoDB document client of a configuration (local endpoint and credentials in the local runtime). */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { base64Decoder } from './base64';
import { type ClientConfig, pooled } from './options';

export function documentClient(config: ClientConfig): DynamoDBDocumentClient {
  const raw = new DynamoDBClient({
    region: config.region,
    endpoint: config.endpoints.dynamodb,
    credentials: config.credentials,
    maxAttempts: 4,
    requestHandler: pooled(200),
    base64Decoder,
  });
  return DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
}
