/**
 * A market's file state (one item, apart from the market META that merges commit conditionally): the newest
 * sealed period per resolution (spec `sealed: {m1: block, h1: hour, d1: day}`), the paths of the newest
 * files the files route and `hello` point to, and the newest snapshot hour. The seal job's update of this
 * item is the record the fan-out turns into `sealed` messages (old and new image compared).
 */

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
