/**
 * The AWS clients every in-process function shares, instrumented for what only this process can do: the
 * merge crash (the merge's process dying mid-write). Recording, faults and policies of the DynamoDB, S3 and
 * `@connections` calls happen at the local AWS edge (lib/local/aws-edge/), for in-process functions and
 * sandboxes alike.
 */

import type { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import type { S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { MergeCrash } from '../control/merge-crash';

export interface ServiceClients {
  ddb: DynamoDBDocumentClient;
  s3: S3Client;
  connections: ApiGatewayManagementApiClient;
}

export interface Instrumentation {
  mergeCrash: MergeCrash;
}

export function instrumentClients(clients: ServiceClients, on: Instrumentation): void {
  clients.s3.middlewareStack.add(on.mergeCrash.middleware, { step: 'initialize', name: 'localMergeCrash' });
  clients.ddb.middlewareStack.add(on.mergeCrash.middleware, { step: 'initialize', name: 'localMergeCrash' });
}
