import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { handlePushMessage, parsePushMessage } from '../../shared/push/dispatch';
import type { ServicesOf } from '../../shared/services';
import { backgroundRoot } from '../../shared/telemetry/background-root';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';

/** One record: false when it must be received again (storage failed); malformed records are dropped. */
async function processRecord(svc: ServicesOf<'push'>, record: SQSRecord): Promise<boolean> {
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

/** The root of `push`, on the ports its manifest access grants: the accounts' settings and the push queue. */
export function createHandler(svc: ServicesOf<'push'>) {
  /** The push queue's consumer: each message is one account's push round (see shared/push/dispatch.ts). */
  return backgroundRoot<SQSEvent, SQSBatchResponse>(t, async (event) => {
    const done = await Promise.all(event.Records.map((r) => processRecord(svc, r)));
    return { batchItemFailures: event.Records.filter((_, i) => !done[i]).map((r) => ({ itemIdentifier: r.messageId })) };
  });
}
