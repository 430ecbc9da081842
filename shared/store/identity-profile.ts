/** DynamoDB adapter of an account's profile item: the identity provider's claims (cached) and the contributor window. */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Profile, StoredClaims } from '../ports/identity';
import { isConditionFailure, num, str, strings } from './identity-items';
import { PROFILE_SK, userPk } from './keys';
import type { Table } from './table';
import { applied, unlessLost, updateItem } from './writes';

const key = (userId: string) => ({ pk: userPk(userId), sk: PROFILE_SK });

/** Reads an account's profile (empty when none was stored). */
export async function getProfile(t: Table, userId: string): Promise<Profile> {
  const out = await t.ddb.send(new GetCommand({ TableName: t.name, Key: key(userId), ConsistentRead: true }));
  const item = out.Item;
  return { claims: parseClaims(item?.claims), windowUntil: num(item?.windowUntil) ?? null, claimAt: num(item?.claimAt) ?? null };
}

function parseClaims(v: unknown): StoredClaims | null {
  if (!v || typeof v !== 'object') return null;
  const c = v as Record<string, unknown>;
  const fetchedAt = num(c.fetchedAt);
  if (fetchedAt === undefined) return null;
  return {
    email: str(c.email) ?? null,
    plan: str(c.plan) ?? null,
    contributorUntil: num(c.contributorUntil) ?? null,
    grants: strings(c.grants),
    withhold: strings(c.withhold),
    partner: c.partner === true,
    fetchedAt,
  };
}

/** Stores freshly read claims; the window attributes are untouched (other writers own them). */
export async function putClaims(t: Table, userId: string, claims: StoredClaims): Promise<void> {
  await updateItem(t, { Key: key(userId), UpdateExpression: 'SET claims = :c', ExpressionAttributeValues: { ':c': claims } });
}

/** Raises the window end to `until` unless it is already later; answers the stored end. */
export async function raiseWindow(t: Table, userId: string, until: number): Promise<number> {
  const raised = await applied(
    updateItem(t, {
      Key: key(userId),
      UpdateExpression: 'SET windowUntil = :u',
      ConditionExpression: 'attribute_not_exists(windowUntil) OR windowUntil < :u',
      ExpressionAttributeValues: { ':u': until },
    }),
  );
  return raised ? until : ((await getProfile(t, userId)).windowUntil ?? until);
}

/**
 * Takes the right to write the claim now (first write, or the last one at or before `cutoff`); exactly one
 * concurrent caller wins. Answers the previous write time to give the slot back when the write fails.
 */
export async function takeClaimSlot(t: Table, userId: string, now: number, cutoff: number): Promise<{ won: boolean; previous: number | null }> {
  const out = await unlessLost(
    updateItem(t, {
      Key: key(userId),
      UpdateExpression: 'SET claimAt = :now',
      ConditionExpression: 'attribute_not_exists(claimAt) OR claimAt <= :cutoff',
      ExpressionAttributeValues: { ':now': now, ':cutoff': cutoff },
      ReturnValues: 'UPDATED_OLD',
    }),
  );
  return out ? { won: true, previous: num(out.Attributes?.claimAt) ?? null } : { won: false, previous: null };
}

/** Gives a claim slot back after a failed write, so the next credit tries again. */
export async function releaseClaimSlot(t: Table, userId: string, taken: number, previous: number | null): Promise<void> {
  try {
    await t.ddb.send(
      new UpdateCommand({
        TableName: t.name,
        Key: key(userId),
        UpdateExpression: previous === null ? 'REMOVE claimAt' : 'SET claimAt = :prev',
        ConditionExpression: 'claimAt = :taken',
        ExpressionAttributeValues: previous === null ? { ':taken': taken } : { ':taken': taken, ':prev': previous },
      }),
    );
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
  }
}
