import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { rebuildCurrentItems } from '../../shared/items/publish';
import { redactErrors } from '../../shared/log';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';
import { services } from '../../shared/services';

const t = functionTelemetry('items');

/** The items schedule (every 10 minutes): rebuilds the current build's merged item files when due. */
export const handler = t.handler(
  middy<ScheduledEvent, { build: string | null; hash: string | null }>().use(t.middlewares()).use(redactErrors()).handler(async () => rebuildCurrentItems(services())),
);
