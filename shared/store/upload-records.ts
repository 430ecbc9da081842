/**
 * DynamoDB adapter of the upload admission records (spec Uploads): the 5-minute limit per caller and market,
 * the claim on a market's `at` (duplicate rule), the first answer per retry identity, and the credit interval
 * per account and market. Limits and claims are conditional writes, so concurrent uploads cannot both pass;
 * each can be released again when storing the upload fails, leaving nothing half-written.
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Services } from '../services';
import { isConditionFailure, ttlAt } from './identity-items';
import { creditIntervalSk, uploadClaimKey, uploadLimitKey, uploadRetryKey, userPk } from './keys';

/** A slot taken: `previous` is what it held before, to put back on release. */
export type Slot = { won: true; previous: number | null } | { won: false };

/** The answer an upload got (spec Uploads: `{at, credited, reason?}`). */
export interface UploadAnswer {
  at: number;
  credited: boolean;
  reason?: string;
}

/**
 * Takes a "last time" slot when at least `everyMs` passed since the stored time (the spec's boundary: held
 * while less than `everyMs` passed), or when `token` already holds it (an upload resumed after its first
 * attempt died). `token` marks the taker so only it can release the slot.
 */
async function takeSlot(svc: Services, key: Record<string, string>, now: number, everyMs: number, token: string): Promise<Slot> {
  try {
    const out = await svc.ddb.send(
      new UpdateCommand({
        TableName: svc.config.tableName,
        Key: key,
        UpdateExpression: 'SET #last = :now, #token = :token, #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(#last) OR #last <= :threshold OR #token = :token',
        ExpressionAttributeNames: { '#last': 'last', '#token': 'token', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':now': now, ':token': token, ':ttl': ttlAt(now + everyMs), ':threshold': now - everyMs },
        ReturnValues: 'ALL_OLD',
      }),
    );
    const previous = out.Attributes?.last;
    return { won: true, previous: typeof previous === 'number' ? previous : null };
  } catch (err) {
    if (isConditionFailure(err)) return { won: false };
    throw err;
  }
}

/** Puts a slot back as it was, if `token` still holds it. */
async function releaseSlot(svc: Services, key: Record<string, string>, token: string, previous: number | null, everyMs: number): Promise<void> {
  try {
    if (previous === null) {
      await svc.ddb.send(
        new DeleteCommand({ TableName: svc.config.tableName, Key: key, ConditionExpression: '#token = :token', ExpressionAttributeNames: { '#token': 'token' }, ExpressionAttributeValues: { ':token': token } }),
      );
    } else {
      await svc.ddb.send(
        new UpdateCommand({
          TableName: svc.config.tableName,
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
export const takeUploadLimit = (svc: Services, caller: string, market: string, now: number, everyMs: number, token: string): Promise<Slot> =>
  takeSlot(svc, uploadLimitKey(caller, market), now, everyMs, token);

export const releaseUploadLimit = (svc: Services, caller: string, market: string, token: string, previous: number | null, everyMs: number): Promise<void> =>
  releaseSlot(svc, uploadLimitKey(caller, market), token, previous, everyMs);

/** Spec credit rule 4: at most one credited upload per account per market every `everyMs`. */
export const takeCreditInterval = (svc: Services, userId: string, market: string, now: number, everyMs: number, token: string): Promise<Slot> =>
  takeSlot(svc, { pk: userPk(userId), sk: creditIntervalSk(market) }, now, everyMs, token);

export const releaseCreditInterval = (svc: Services, userId: string, market: string, token: string, previous: number | null, everyMs: number): Promise<void> =>
  releaseSlot(svc, { pk: userPk(userId), sk: creditIntervalSk(market) }, token, previous, everyMs);

/** When the account's last credited upload of the market was (server time), or null. */
export async function lastCreditedAt(svc: Services, userId: string, market: string): Promise<number | null> {
  const out = await svc.ddb.send(new GetCommand({ TableName: svc.config.tableName, Key: { pk: userPk(userId), sk: creditIntervalSk(market) }, ConsistentRead: true }));
  return typeof out.Item?.last === 'number' ? out.Item.last : null;
}

/**
 * Spec Uploads, duplicate rule: the first upload to store a market's `at` claims it until `expiresAt`. Won
 * again by the same retry identity (its own earlier attempt); lost when another caller holds it.
 */
export async function claimBookAt(svc: Services, market: string, at: number, retryId: string, uploadId: string, expiresAt: number): Promise<boolean> {
  try {
    await svc.ddb.send(
      new PutCommand({
        TableName: svc.config.tableName,
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

export async function releaseBookAt(svc: Services, market: string, at: number, uploadId: string): Promise<void> {
  try {
    await svc.ddb.send(
      new DeleteCommand({ TableName: svc.config.tableName, Key: uploadClaimKey(market, at), ConditionExpression: 'uploadId = :id', ExpressionAttributeValues: { ':id': uploadId } }),
    );
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
  }
}

/**
 * The retry record of an upload (spec Uploads, Retry): claimed by the attempt that admits it, then holding
 * its answer. `busy`: another attempt holds a fresh claim; `claimed`: this attempt admits the upload under
 * `uploadId` (its own, or that of an attempt whose claim went stale: the steps keyed by it are idempotent).
 */
export type RetryClaim = { kind: 'answered'; answer: UploadAnswer } | { kind: 'claimed'; uploadId: string } | { kind: 'busy' };

const PENDING = 'pending';

/**
 * Claims the retry record, or reads its answer. A claim older than `leaseMs` (longer than the upload
 * function may run) belongs to an attempt that died: it is taken over, so nothing waits on it for ever.
 */
export async function claimRetry(svc: Services, retryId: string, uploadId: string, now: number, leaseMs: number, expiresAt: number): Promise<RetryClaim> {
  const table = svc.config.tableName;
  const key = uploadRetryKey(retryId);
  for (let attempt = 0; attempt < 3; attempt++) {
    const item = (await svc.ddb.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item;
    const live = item && !(typeof item.ttl === 'number' && item.ttl * 1000 <= now);
    if (live && item.state !== PENDING) return { kind: 'answered', answer: answerOf(item) };
    if (live && typeof item.claimedAt === 'number' && item.claimedAt + leaseMs > now) return { kind: 'busy' };
    const owner = live && typeof item.uploadId === 'string' ? item.uploadId : uploadId;
    try {
      await svc.ddb.send(
        new PutCommand({
          TableName: table,
          Item: { ...key, state: PENDING, uploadId: owner, claimedAt: now, ttl: ttlAt(expiresAt) },
          // Exactly the record that was read: absent (or expired), or the stale claim.
          ...(live
            ? { ConditionExpression: 'claimedAt = :claimedAt AND #state = :pending', ExpressionAttributeNames: { '#state': 'state' }, ExpressionAttributeValues: { ':claimedAt': item.claimedAt, ':pending': PENDING } }
            : { ConditionExpression: 'attribute_not_exists(pk) OR #ttl <= :now', ExpressionAttributeNames: { '#ttl': 'ttl' }, ExpressionAttributeValues: { ':now': Math.floor(now / 1000) } }),
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
export async function releaseRetry(svc: Services, retryId: string, uploadId: string): Promise<void> {
  try {
    await svc.ddb.send(
      new DeleteCommand({
        TableName: svc.config.tableName,
        Key: uploadRetryKey(retryId),
        ConditionExpression: 'uploadId = :id AND #state = :pending',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':id': uploadId, ':pending': PENDING },
      }),
    );
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
  }
}

/** Keeps the claim's answer for retries until `expiresAt`; the first answer written wins. */
export async function keepAnswer(svc: Services, retryId: string, uploadId: string, answer: UploadAnswer, expiresAt: number): Promise<void> {
  try {
    await svc.ddb.send(
      new PutCommand({
        TableName: svc.config.tableName,
        Item: { ...uploadRetryKey(retryId), state: 'answered', uploadId, ...answer, ttl: ttlAt(expiresAt) },
        ConditionExpression: 'attribute_not_exists(pk) OR (uploadId = :id AND #state = :pending)',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':id': uploadId, ':pending': PENDING },
      }),
    );
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
  }
}

function answerOf(item: Record<string, unknown>): UploadAnswer {
  const answer: UploadAnswer = { at: Number(item.at), credited: item.credited === true };
  if (typeof item.reason === 'string') answer.reason = item.reason;
  return answer;
}
