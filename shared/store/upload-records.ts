/**
 * DynamoDB adapter of the upload admission records (spec Uploads): the 5-minute limit per caller and market,
 * the claim on a market's `at` (duplicate rule), the first answer per retry identity, and the credit interval
 * per account and market. Limits and claims are conditional writes, so concurrent uploads cannot both pass;
 * each can be released again when storing the upload fails, leaving nothing half-written.
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RetryClaim, Slot, UploadAnswer } from '../ports/uploads';
import { isConditionFailure, ttlAt } from './identity-items';
import { creditIntervalSk, uploadClaimKey, uploadLimitKey, uploadRetryKey, userPk } from './keys';
import type { Table } from './table';
import { applied, deleteItem, putItem, unlessLost, updateItem } from './writes';

/**
 * Takes a "last time" slot when at least `everyMs` passed since the stored time (the spec's boundary: held
 * while less than `everyMs` passed), or when `token` already holds it (an upload resumed after its first
 * attempt died). `token` marks the taker so only it can release the slot.
 */
async function takeSlot(t: Table, key: Record<string, string>, now: number, everyMs: number, token: string): Promise<Slot> {
  const out = await unlessLost(
    updateItem(t, {
      Key: key,
      UpdateExpression: 'SET #last = :now, #token = :token, #ttl = :ttl',
      ConditionExpression: 'attribute_not_exists(#last) OR #last <= :threshold OR #token = :token',
      ExpressionAttributeNames: { '#last': 'last', '#token': 'token', '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':now': now, ':token': token, ':ttl': ttlAt(now + everyMs), ':threshold': now - everyMs },
      ReturnValues: 'ALL_OLD',
    }),
  );
  if (!out) return { won: false };
  const previous = out.Attributes?.last;
  return { won: true, previous: typeof previous === 'number' ? previous : null };
}

/** Puts a slot back as it was, if `token` still holds it. */
async function releaseSlot(t: Table, key: Record<string, string>, token: string, previous: number | null, everyMs: number): Promise<void> {
  try {
    if (previous === null) {
      await t.ddb.send(
        new DeleteCommand({
          TableName: t.name,
          Key: key,
          ConditionExpression: '#token = :token',
          ExpressionAttributeNames: { '#token': 'token' },
          ExpressionAttributeValues: { ':token': token },
        }),
      );
    } else {
      await t.ddb.send(
        new UpdateCommand({
          TableName: t.name,
          Key: key,
          UpdateExpression: 'SET #last = :previous, #ttl = :ttl REMOVE #token',
          ConditionExpression: '#token = :token',
          ExpressionAttributeNames: { '#last': 'last', '#token': 'token', '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':previous': previous, ':token': token, ':ttl': ttlAt(previous + everyMs) },
        }),
      );
    }
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
  }
}

/** Spec Uploads: one accepted book per caller (or `via`) per market every `everyMs`. */
export const takeUploadLimit = (t: Table, caller: string, market: string, now: number, everyMs: number, token: string): Promise<Slot> =>
  takeSlot(t, uploadLimitKey(caller, market), now, everyMs, token);

export const releaseUploadLimit = (t: Table, caller: string, market: string, token: string, previous: number | null, everyMs: number): Promise<void> =>
  releaseSlot(t, uploadLimitKey(caller, market), token, previous, everyMs);

/** Spec credit rule 4: at most one credited upload per account per market every `everyMs`. */
export const takeCreditInterval = (t: Table, userId: string, market: string, now: number, everyMs: number, token: string): Promise<Slot> =>
  takeSlot(t, { pk: userPk(userId), sk: creditIntervalSk(market) }, now, everyMs, token);

export const releaseCreditInterval = (t: Table, userId: string, market: string, token: string, previous: number | null, everyMs: number): Promise<void> =>
  releaseSlot(t, { pk: userPk(userId), sk: creditIntervalSk(market) }, token, previous, everyMs);

/** When the account's last credited upload of the market was (server time), or null. */
export async function lastCreditedAt(t: Table, userId: string, market: string): Promise<number | null> {
  const out = await t.ddb.send(new GetCommand({ TableName: t.name, Key: { pk: userPk(userId), sk: creditIntervalSk(market) }, ConsistentRead: true }));
  return typeof out.Item?.last === 'number' ? out.Item.last : null;
}

/**
 * Spec Uploads, duplicate rule: the first upload to store a market's `at` claims it until `expiresAt`. Won
 * again by the same retry identity (its own earlier attempt); lost when another caller holds it.
 */
export async function claimBookAt(t: Table, market: string, at: number, retryId: string, uploadId: string, expiresAt: number): Promise<boolean> {
  try {
    await t.ddb.send(
      new PutCommand({
        TableName: t.name,
        Item: { ...uploadClaimKey(market, at), retryId, uploadId, ttl: ttlAt(expiresAt) },
        ConditionExpression: 'attribute_not_exists(pk) OR retryId = :retryId',
        ExpressionAttributeValues: { ':retryId': retryId },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionFailure(err)) return false;
    throw err;
  }
}

export async function releaseBookAt(t: Table, market: string, at: number, uploadId: string): Promise<void> {
  try {
    await t.ddb.send(
      new DeleteCommand({
        TableName: t.name,
        Key: uploadClaimKey(market, at),
        ConditionExpression: 'uploadId = :id',
        ExpressionAttributeValues: { ':id': uploadId },
      }),
    );
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
  }
}

const PENDING = 'pending';

/**
 * Claims the retry record, or reads its answer. A claim older than `leaseMs` (longer than the upload
 * function may run) belongs to an attempt that died: it is taken over, so nothing waits on it for ever.
 */
export async function claimRetry(t: Table, retryId: string, uploadId: string, now: number, leaseMs: number, expiresAt: number): Promise<RetryClaim> {
  const table = t.name;
  const key = uploadRetryKey(retryId);
  for (let attempt = 0; attempt < 3; attempt++) {
    const item = (await t.ddb.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item;
    const live = item && !(typeof item.ttl === 'number' && item.ttl * 1000 <= now);
    if (live && item.state !== PENDING) return { kind: 'answered', answer: answerOf(item) };
    if (live && typeof item.claimedAt === 'number' && item.claimedAt + leaseMs > now) return { kind: 'busy' };
    const owner = live && typeof item.uploadId === 'string' ? item.uploadId : uploadId;
    try {
      await t.ddb.send(
        new PutCommand({
          TableName: table,
          Item: { ...key, state: PENDING, uploadId: owner, claimedAt: now, ttl: ttlAt(expiresAt) },
          // Exactly the record that was read: absent (or expired), or the stale claim.
          ...(live
            ? {
                ConditionExpression: 'claimedAt = :claimedAt AND #state = :pending',
                ExpressionAttributeNames: { '#state': 'state' },
                ExpressionAttributeValues: { ':claimedAt': item.claimedAt, ':pending': PENDING },
              }
            : {
                ConditionExpression: 'attribute_not_exists(pk) OR #ttl <= :now',
                ExpressionAttributeNames: { '#ttl': 'ttl' },
                ExpressionAttributeValues: { ':now': Math.floor(now / 1000) },
              }),
        }),
      );
      return { kind: 'claimed', uploadId: owner };
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
    }
  }
  return { kind: 'busy' };
}

/** Puts the claim back when the attempt ends without an answer to keep (an error), so a repeat starts afresh. */
export async function releaseRetry(t: Table, retryId: string, uploadId: string): Promise<void> {
  // Only while this attempt still holds the claim unanswered.
  await applied(
    deleteItem(t, {
      Key: uploadRetryKey(retryId),
      ConditionExpression: 'uploadId = :id AND #state = :pending',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':id': uploadId, ':pending': PENDING },
    }),
  );
}

/** Keeps the claim's answer for retries until `expiresAt`; the first answer written wins. */
export async function keepAnswer(t: Table, retryId: string, uploadId: string, answer: UploadAnswer, expiresAt: number): Promise<void> {
  await applied(
    putItem(t, {
      Item: { ...uploadRetryKey(retryId), state: 'answered', uploadId, ...answer, ttl: ttlAt(expiresAt) },
      ConditionExpression: 'attribute_not_exists(pk) OR (uploadId = :id AND #state = :pending)',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':id': uploadId, ':pending': PENDING },
    }),
  );
}

function answerOf(item: Record<string, unknown>): UploadAnswer {
  const answer: UploadAnswer = { at: Number(item.at), credited: item.credited === true };
  if (typeof item.reason === 'string') answer.reason = item.reason;
  return answer;
}
