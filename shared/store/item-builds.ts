/**
 * Published item builds in DynamoDB (spec api.md: Item data, Versioning): one record per build (its merged
 * files' hash and what they include) and the current build, which `items/v1/current.json` mirrors.
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { MergedState } from '../domain/items';
import type { Services } from '../services';
import { isConditionFailure, num, str } from './identity-items';
import { ITEMS_CURRENT_SK, ITEMS_PK, itemBuildSk } from './keys';

export interface BuildRecord extends MergedState {
  build: string;
  source: string;
  /** When the generated files were (last) published: a merge started before a republish must not be recorded. */
  publishedAt: number;
  /** Time of the newest accepted-name change the merged files include. */
  changedAt: number | null;
}

export interface CurrentBuild {
  build: string;
  hash: string | null;
  at: number;
}

const table = (svc: Services): string => svc.config.tableName;

/** A build's record, or null for a build never published. */
export async function getBuild(svc: Services, build: string): Promise<BuildRecord | null> {
  const res = await svc.ddb.send(new GetCommand({ TableName: table(svc), Key: { pk: ITEMS_PK, sk: itemBuildSk(build) }, ConsistentRead: true }));
  const i = res.Item;
  if (!i) return null;
  return {
    build,
    source: str(i.source) ?? '',
    publishedAt: num(i.publishedAt) ?? 0,
    hash: str(i.hash) ?? null,
    mergedAt: num(i.mergedAt) ?? null,
    revision: num(i.revision) ?? -1,
    changedAt: num(i.changedAt) ?? null,
  };
}

/** Records freshly published generated files: any merged files of an earlier publication no longer count. */
export async function putPublishedBuild(svc: Services, build: string, source: string, publishedAt: number): Promise<BuildRecord> {
  const record: BuildRecord = { build, source, publishedAt, hash: null, mergedAt: null, revision: -1, changedAt: null };
  await svc.ddb.send(new PutCommand({ TableName: table(svc), Item: { pk: ITEMS_PK, sk: itemBuildSk(build), ...record } }));
  return record;
}

/**
 * Records a build's merged files unless the generated files were republished meanwhile or a merge including a
 * newer name revision was recorded first; false when the record was left alone.
 */
export async function recordMerged(svc: Services, rec: BuildRecord, merged: Pick<BuildRecord, 'hash' | 'mergedAt' | 'revision' | 'changedAt'>): Promise<boolean> {
  try {
    await svc.ddb.send(
      new UpdateCommand({
        TableName: table(svc),
        Key: { pk: ITEMS_PK, sk: itemBuildSk(rec.build) },
        UpdateExpression: 'SET #h = :h, mergedAt = :m, revision = :r, changedAt = :c',
        ConditionExpression: 'publishedAt = :p AND revision <= :r',
        ExpressionAttributeNames: { '#h': 'hash' },
        ExpressionAttributeValues: { ':h': merged.hash, ':m': merged.mergedAt, ':r': merged.revision, ':c': merged.changedAt, ':p': rec.publishedAt },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionFailure(err)) return false;
    throw err;
  }
}

/** The current build, or null before anything was published. */
export async function getCurrent(svc: Services): Promise<CurrentBuild | null> {
  const res = await svc.ddb.send(new GetCommand({ TableName: table(svc), Key: { pk: ITEMS_PK, sk: ITEMS_CURRENT_SK }, ConsistentRead: true }));
  const i = res.Item;
  const build = str(i?.build);
  return build ? { build, hash: str(i?.hash) ?? null, at: num(i?.at) ?? 0 } : null;
}

/** Makes a build current (publishing). */
export async function setCurrent(svc: Services, current: CurrentBuild): Promise<void> {
  await svc.ddb.send(new PutCommand({ TableName: table(svc), Item: { pk: ITEMS_PK, sk: ITEMS_CURRENT_SK, ...current } }));
}

/** Points the current build at new merged files, unless another build became current meanwhile; false then. */
export async function updateCurrentFiles(svc: Services, current: CurrentBuild): Promise<boolean> {
  try {
    await svc.ddb.send(
      new PutCommand({
        TableName: table(svc),
        Item: { pk: ITEMS_PK, sk: ITEMS_CURRENT_SK, ...current },
        ConditionExpression: '#b = :b',
        ExpressionAttributeNames: { '#b': 'build' },
        ExpressionAttributeValues: { ':b': current.build },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionFailure(err)) return false;
    throw err;
  }
}
