import middy from '@middy/core';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { fanout } from '../../shared/live/fanout';
import { redactErrors } from '../../shared/log';
import { services } from '../../shared/services';

/** The table stream's consumer: `hello`, `ah`, `sealed`, `alert`, `roles` and device closes (see shared/live/fanout.ts). */
export const handler = middy<DynamoDBStreamEvent, void>().use(redactErrors()).handler(async (event) => fanout(services(), event));
