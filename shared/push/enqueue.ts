/**
 * Queuing a push message, apart from delivering one: the merge (through alert evaluation) only queues, and
 * importing this does not import the delivery (web-push and its crypto, CommonJS that esbuild cannot shake and
 * that evaluates at import), which the merge's and redrive's cold start would otherwise pay.
 */
import type { Services } from '../services';
import type { PushMessage } from './window';

export const PUSH_QUEUE_NAME = 'push';
/** SQS delays are at most 15 minutes. */
const MAX_DELAY_SECONDS = 900;

/** Queues a push message (the merge's alerts of one account, or a flush after `delayMs`). */
export async function enqueuePush(svc: Pick<Services, 'queues'>, messages: PushMessage[], delayMs = 0): Promise<void> {
  if (messages.length === 0) return;
  const delaySeconds = Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil(delayMs / 1000)));
  await svc.queues.send(
    PUSH_QUEUE_NAME,
    messages.map((m) => ({ body: JSON.stringify(m), delaySeconds })),
  );
}
