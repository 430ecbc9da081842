/**
 * The AWS clients every in-process function shares, instrumented as the local stage needs: the IAM call
 * recorder, the `storage` and `table` faults (the outages AWS would answer), the merge crash, and the bucket
 * grants IAM would enforce.
 */

import type { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import type { S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { enforceBucketGrants } from './grants';
import type { CallRecorder } from './iam/calls';
import { recordClientCalls } from './iam/record';
import { currentFunction } from './lambda';
import type { MergeCrash } from './merge-crash';

export interface ServiceClients {
  ddb: DynamoDBDocumentClient;
  s3: S3Client;
  connections: ApiGatewayManagementApiClient;
}

export interface Instrumentation {
  /** Records each call as IAM sees it (the `recordCalls` option). */
  recorder: CallRecorder | null;
  faults: { storage: 'up' | 'down'; table: 'up' | 'down' };
  mergeCrash: MergeCrash;
  buckets: { filesPrefix: string; work: string };
  /** Reports a call the bucket grants refused. */
  denied: (message: string) => void;
}

export function instrumentClients(clients: ServiceClients, on: Instrumentation): void {
  if (on.recorder) recordClientCalls(clients, on.recorder);
  // The `storage` fault makes the service's bucket calls fail, upload bodies included.
  clients.s3.middlewareStack.add(
    (next) => async (args) => {
      if (on.faults.storage === 'down')
        throw Object.assign(new Error('storage fault: the bucket is unreachable'), { name: 'ServiceUnavailable', $fault: 'server' });
      return next(args);
    },
    { step: 'initialize', name: 'localStorageFault' },
  );
  enforceBucketGrants(clients.s3, on.buckets, currentFunction, on.denied);
  // The `table` fault: DynamoDB's answer to an outage (a 500 server fault), for every handler's table call.
  clients.ddb.middlewareStack.add(
    (next) => async (args) => {
      if (on.faults.table === 'down') {
        throw Object.assign(new Error('table fault: the table is unreachable'), {
          name: 'InternalServerError',
          $fault: 'server',
          $metadata: { httpStatusCode: 500 },
        });
      }
      return next(args);
    },
    { step: 'initialize', name: 'localTableFault' },
  );
  clients.s3.middlewareStack.add(on.mergeCrash.middleware, { step: 'initialize', name: 'localMergeCrash' });
  clients.ddb.middlewareStack.add(on.mergeCrash.middleware, { step: 'initialize', name: 'localMergeCrash' });
}
