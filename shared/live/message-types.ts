/**
 * The live socket's messages as they travel (spec files-and-live: Events), in one module: the server builds
 * them (shared/live/messages.ts, fanout.ts, socket.ts) and the TypeScript live client reads them
 * (shared/client/live-client.ts). Types only, so a client takes nothing else of the server with it.
 */
import type { Caps } from '../domain/caps';

/** The newest sealed period per resolution (null before the first). */
export type Sealed = { m1: number | null; h1: number | null; d1: number | null };

export type SealRes = keyof Sealed;

/** A checkpoint a message told of. */
export interface CheckpointRef {
  seq: number;
  url: string;
}

/** The first message: where the market is and what the caller may read. */
export interface HelloMessage {
  t: 'hello';
  market: string;
  seq: number;
  at: number | null;
  checkpoint: CheckpointRef | null;
  changes: [number, string][];
  sealed: Sealed;
  caps: Caps;
  roles: string[];
  features: string[];
  now: number;
}

/** A merge: `url` (the change file) only with `prices.live`; `book` with `books` when the merge was a book. */
export interface AhMessage {
  t: 'ah';
  market: string;
  seq: number;
  url?: string;
  at: number;
  book?: string;
}

/** A period was sealed: the newest one of its resolution, with the file the caller may read. */
export interface SealedMessage {
  t: 'sealed';
  market: string;
  res: SealRes;
  start: number;
  url: string;
}

/** One of the caller's alerts on this market fired. */
export interface AlertMessage {
  t: 'alert';
  alert: Record<string, unknown>;
}

/** The caller's roles and features changed. */
export interface RolesMessage {
  t: 'roles';
  roles: string[];
  features: string[];
}

/** The answer to a renewal (`until` null for a device). */
export interface AuthMessage {
  t: 'auth';
  until: number | null;
}

export type LiveErrorCode = 'bad_message' | 'unauthenticated' | 'unavailable';

/** A bad client message or a failed renewal. */
export interface ErrorMessage {
  t: 'error';
  error: LiveErrorCode;
}

/** Every message the server sends. */
export type LiveMessage = HelloMessage | AhMessage | SealedMessage | AlertMessage | RolesMessage | AuthMessage | ErrorMessage;

/** The one message a client sends: a renewal with a fresh credential. */
export interface AuthRequestMessage {
  t: 'auth';
  token: string;
}
