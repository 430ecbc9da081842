/** The SQS client of a configuration (AWS only: the local runtime passes its in-process queues instead). */
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Config } from '../../config';
import type { QueuePort } from '../../ports/queues';
import { currentTraceHeader } from '../../telemetry/tracing';
import { SqsQueues } from '../queue';
import type { ClientConfig } from './options';

export const sqsClient = (config: ClientConfig): SQSClient => new SQSClient({ region: config.region });

/** The queues port over SQS, queue names resolved through the configuration's URLs, the sender's trace carried. */
export const sqsQueues = (config: Pick<Config, 'region' | 'endpoints' | 'connectionsEndpoint' | 'queueUrls'>): QueuePort =>
  new SqsQueues(sqsClient(config), config.queueUrls, currentTraceHeader);
