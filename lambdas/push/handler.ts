import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { handlePushMessage, parsePushMessage } from '../../shared/push/dispatch';
import { redactErrors } from '../../shared/log';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';
import { type Services, services } from '../../shared/services';

/** One record: false when it must be received again (storage failed); malformed records are dropped. */
async function processRecord(svc: Services, record: SQSRecord): Promise<boolean> {
  const msg = parsePushMessage(record.body);
  if (!msg) {
    svc.log('warn', 'push: malformed message dropped', { messageId: record.messageId });
    return true;
  }
  try {
    await handlePushMessage(svc, msg);
    return true;
  } catch (err) {
    svc.log('error', 'push: message failed', { messageId: record.messageId, error: err instanceof Error ? err.message : String(err) });
    return false;
  }
}

const t = functionTelemetry('push');

/** The push queue's consumer: each message is one account's push round (see shared/push/dispatch.ts). */
export const handler = t.handler(
  middy<SQSEvent, SQSBatchResponse>().use(t.middlewares()).use(redactErrors()).handler(async (event) => {
    const svc = services();
    const done = await Promise.all(event.Records.map((r) => processRecord(svc, r)));
    return { batchItemFailures: event.Records.filter((_, i) => !done[i]).map((r) => ({ itemIdentifier: r.messageId })) };
  }),
);
