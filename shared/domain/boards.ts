/**
 * The boards document (spec: "Watchlist, alerts, boards", Limits), in the DESIGN's check order: body rules
 * (400, incl. more than 24 widgets: the route's schema, shared/api/settings.schemas.ts) → counts (409
 * `too_many` with `limit`) → stored size (413), here. Pure.
 */
import { ConflictError, LimitError } from '../errors';

export const BOARDS_LIMITS = { dashboards: 20, screens: 50, widgets: 24, bytes: 65536 } as const;

export interface MarketBoard {
  id: string;
  name: string;
  widgets: Array<Record<string, unknown>>;
}

export interface MarketScreen {
  id: string;
  name: string;
  filters: Record<string, unknown>;
}

export interface BoardsDocument {
  dashboards: MarketBoard[];
  screens: MarketScreen[];
}

/** The document of an account that never stored one. */
export const emptyBoards = (): BoardsDocument => ({ dashboards: [], screens: [] });

/** UTF-8 size of the document as stored (its JSON text). */
export const storedBytes = (doc: unknown): number => new TextEncoder().encode(JSON.stringify(doc)).length;

/**
 * Spec boards limits on a document whose shape the route's schema already holds (shared/api/settings.schemas.ts,
 * 400 `bad_request`): 409 `too_many` with `limit` above 20 dashboards or 50 screens, then 413 `too_large`
 * above 65536 stored bytes.
 */
export function checkBoardsLimits(doc: BoardsDocument): BoardsDocument {
  if (doc.dashboards.length > BOARDS_LIMITS.dashboards) {
    throw new ConflictError('too_many', `at most ${BOARDS_LIMITS.dashboards} dashboards`, { limit: BOARDS_LIMITS.dashboards });
  }
  if (doc.screens.length > BOARDS_LIMITS.screens) {
    throw new ConflictError('too_many', `at most ${BOARDS_LIMITS.screens} screens`, { limit: BOARDS_LIMITS.screens });
  }
  if (storedBytes(doc) > BOARDS_LIMITS.bytes) throw new LimitError('too_large', `the stored document is above ${BOARDS_LIMITS.bytes} bytes`);
  return doc;
}
