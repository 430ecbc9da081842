/**
 * A market's file state (one item, apart from the market META that merges commit conditionally): the newest
 * sealed period per resolution (spec `sealed: {m1: block, h1: hour, d1: day}`), the paths of the newest
 * files the files route and `hello` point to, and the newest snapshot hour. The seal job's update of this
 * item is the record the fan-out turns into `sealed` messages (old and new image compared).
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Services } from '../services';
import { isConditionFailure } from '../store/identity-items';
import { filesStateKey } from '../store/keys';

export type SealRes = 'm1' | 'h1' | 'd1';
/** Resolutions in the order a seal run writes them. */
export const SEAL_RES: readonly SealRes[] = ['m1', 'h1', 'd1'];

export interface Sealed {
  m1: number | null;
  h1: number | null;
  d1: number | null;
}

export interface FilesState {
  market: string;
  sealed: Sealed;
  /** Newest minute block file (capped path). */
  m1Path?: string;
  /** Newest public hour file. */
  h1Path?: string;
  /** Newest public day file (7 days). */
  d1Path?: string;
  /** Newest full day file (90 days, capped path). */
  d1cPath?: string;
  /** Newest volume file (capped path). */
  volumePath?: string;
  /** Hour of the newest immutable snapshot file, null before the first. */
  snapHour: number | null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Reads the state from a stored item (also a stream image, once unmarshalled). */
export function filesStateOf(market: string, item: Record<string, unknown> | undefined): FilesState {
  return {
    market,
    sealed: { m1: num(item?.m1), h1: num(item?.h1), d1: num(item?.d1) },
    m1Path: str(item?.m1Path),
    h1Path: str(item?.h1Path),
    d1Path: str(item?.d1Path),
    d1cPath: str(item?.d1cPath),
    volumePath: str(item?.volumePath),
    snapHour: num(item?.snapHour),
  };
}

/** The market's file state (empty before its first seal or snapshot). */
export async function getFilesState(svc: Services, market: string): Promise<FilesState> {
  const out = await svc.ddb.send(new GetCommand({ TableName: svc.config.tableName, Key: filesStateKey(market), ConsistentRead: true }));
  return filesStateOf(market, out.Item);
}

/**
 * Moves a resolution's sealed period from `previous` to `next` with the newest paths; false when another run
 * moved it meanwhile (two seal runs never both advance one period).
 */
export async function advanceSealed(svc: Services, market: string, res: SealRes, previous: number | null, next: number, paths: Record<string, string>): Promise<boolean> {
  const names: Record<string, string> = { '#r': res, '#m': 'market' };
  const values: Record<string, unknown> = { ':next': next, ':market': market };
  const sets = ['#r = :next', '#m = :market'];
  for (const [k, v] of Object.entries(paths)) {
    names[`#${k}`] = k;
    values[`:${k}`] = v;
    sets.push(`#${k} = :${k}`);
  }
  if (previous !== null) values[':prev'] = previous;
  try {
    await svc.ddb.send(
      new UpdateCommand({
        TableName: svc.config.tableName,
        Key: filesStateKey(market),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: previous === null ? 'attribute_not_exists(#r)' : '#r = :prev',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (err) {
    if (isConditionFailure(err)) return false;
    throw err;
  }
}

/** Records the newest snapshot hour (never moving it back). */
export async function recordSnapshotHour(svc: Services, market: string, hour: number): Promise<void> {
  try {
    await svc.ddb.send(
      new UpdateCommand({
        TableName: svc.config.tableName,
        Key: filesStateKey(market),
        UpdateExpression: 'SET snapHour = :h, #m = :market',
        ConditionExpression: 'attribute_not_exists(snapHour) OR snapHour < :h',
        ExpressionAttributeNames: { '#m': 'market' },
        ExpressionAttributeValues: { ':h': hour, ':market': market },
      }),
    );
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
  }
}
