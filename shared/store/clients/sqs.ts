/** The SQS client of a configuration (AWS only: the local runtime passes its in-process queues instead). */
import { SQSClient } from '@aws-sdk/client-sqs';
import type { ClientConfig } from './options';

export const sqsClient = (config: ClientConfig): SQSClient => new SQSClient({ region: config.region });
