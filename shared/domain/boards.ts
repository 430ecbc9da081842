/**
 * The boards document (spec: "Watchlist, alerts, boards", Limits). Pure validation in the DESIGN's check
 * order: body rules (400, incl. more than 24 widgets) → counts (409 `too_many` with `limit`) → stored size (413).
 */
import { ConflictError, type DomainError, LimitError, ValidationError } from '../errors';

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

const ID = /^[A-Za-z0-9_-]{1,40}$/;
const WIDGET_TYPE = /^[a-z0-9_-]{1,32}$/;
const NAME_MAX = 60;

const bad = (message: string): DomainError => new ValidationError('bad_request', message);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const chars = (s: string): number => [...s].length;

function id(v: unknown, what: string): string {
  if (typeof v !== 'string' || !ID.test(v)) throw bad(`${what} id must be 1..40 characters of A-Z a-z 0-9 _ -`);
  return v;
}

function name(v: unknown, what: string): string {
  if (typeof v !== 'string' || chars(v) < 1 || chars(v) > NAME_MAX) throw bad(`${what} name must be 1..${NAME_MAX} characters`);
  return v;
}

function unique(ids: string[], what: string): void {
  if (new Set(ids).size !== ids.length) throw bad(`${what} ids must be unique`);
}

function widget(v: unknown, at: string): Record<string, unknown> {
  if (!isObject(v)) throw bad(`widget ${at} must be an object`);
  id(v.id, `widget ${at}`);
  if (typeof v.type !== 'string' || !WIDGET_TYPE.test(v.type)) throw bad(`widget ${at} type must be 1..32 characters of a-z 0-9 _ -`);
  // Other widget fields belong to the client and are kept as given.
  return { ...v };
}

function board(v: unknown, i: number): MarketBoard {
  if (!isObject(v)) throw bad(`dashboard ${i} must be an object`);
  const boardId = id(v.id, `dashboard ${i}`);
  if (!Array.isArray(v.widgets)) throw bad(`dashboard ${boardId} needs a widgets array`);
  if (v.widgets.length > BOARDS_LIMITS.widgets) throw bad(`dashboard ${boardId} has more than ${BOARDS_LIMITS.widgets} widgets`);
  const widgets = v.widgets.map((w, j) => widget(w, `${boardId}/${j}`));
  unique(
    widgets.map((w) => w.id as string),
    `widget (dashboard ${boardId})`,
  );
  return { id: boardId, name: name(v.name, `dashboard ${boardId}`), widgets };
}

function screen(v: unknown, i: number): MarketScreen {
  if (!isObject(v)) throw bad(`screen ${i} must be an object`);
  const screenId = id(v.id, `screen ${i}`);
  if (!isObject(v.filters)) throw bad(`screen ${screenId} needs a filters object`);
  return { id: screenId, name: name(v.name, `screen ${screenId}`), filters: { ...v.filters } };
}

/** UTF-8 size of the document as stored (its JSON text). */
export const storedBytes = (doc: unknown): number => new TextEncoder().encode(JSON.stringify(doc)).length;

/**
 * Spec boards rules: validates a PUT body into the document to store. 400 `bad_request` for a broken rule,
 * 409 `too_many` with `limit` above 20 dashboards or 50 screens, 413 `too_large` above 65536 stored bytes.
 */
export function parseBoards(raw: unknown): BoardsDocument {
  if (!isObject(raw)) throw bad('the body must be a boards document {dashboards, screens}');
  if (!Array.isArray(raw.dashboards) || !Array.isArray(raw.screens)) throw bad('`dashboards` and `screens` must be arrays');
  const doc: BoardsDocument = { dashboards: raw.dashboards.map(board), screens: raw.screens.map(screen) };
  unique(
    doc.dashboards.map((b) => b.id),
    'dashboard',
  );
  unique(
    doc.screens.map((s) => s.id),
    'screen',
  );
  if (doc.dashboards.length > BOARDS_LIMITS.dashboards) {
    throw new ConflictError('too_many', `at most ${BOARDS_LIMITS.dashboards} dashboards`, { limit: BOARDS_LIMITS.dashboards });
  }
  if (doc.screens.length > BOARDS_LIMITS.screens) {
    throw new ConflictError('too_many', `at most ${BOARDS_LIMITS.screens} screens`, { limit: BOARDS_LIMITS.screens });
  }
  if (storedBytes(doc) > BOARDS_LIMITS.bytes) throw new LimitError('too_large', `the stored document is above ${BOARDS_LIMITS.bytes} bytes`);
  return doc;
}
