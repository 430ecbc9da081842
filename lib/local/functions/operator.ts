/**
 * Every port over one platform: what the runtime's own calls outside any invocation use (the control API's
 * publishing) and what tests read and write the service's state through. Built by the same `portsOver` as
 * every function's `awsServices` (shared/platform/aws-services.ts), with every port; no function is
 * composed this way.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { portsOver } from '../../../shared/platform/aws-services';
import { PORT_NAMES } from '../../../shared/platform/granted';
import type { ClientName, Platform } from '../../../shared/platform/platform';
import { TABLE_ADAPTERS } from '../../../shared/platform/table-adapters';
import type { Services } from '../../../shared/services';

/** Every port, and the raw clients they are built on. */
export type OperatorServices = Services & { ddb: DynamoDBDocumentClient; s3: S3Client };

export function operatorServices(p: Platform<ClientName>): OperatorServices {
  return { ...portsOver(PORT_NAMES, p, TABLE_ADAPTERS), ddb: p.ddb(), s3: p.s3() };
}
