/**
 * The change feed (issue 25 point 2): what the live fan-out and the roles watch hear of the store's writes, in
 * domain terms. In AWS and in the engines' local runtime it is the table's stream, decoded in one adapter
 * (shared/store/change-stream.ts, which also owns the stream filters); in memory the fakes publish the same
 * events on the same writes (shared/store/memory/change-feed.ts). test/contract/changes.contract.test.ts holds
 * the two to the same events.
 *
 * An event is emitted only for a write a consumer acts on, as the stream's records were read before: a new
 * socket record (not its updates), a new merge record (a redelivered merge writes the same one again: no
 * event), a sealed period that moved, a new firing, a change of an account's claims or contributor window (a
 * refresh that changes nothing, a claim slot taken, say nothing), a device deleted.
 */

import { contributorUntil } from '../domain/contributor';
import type { FilesState, SealRes } from '../domain/files-state';
import { SEAL_RES } from '../domain/files-state';
import type { Claims } from '../domain/roles';
import type { LiveConnection } from './connections';
import type { MergeRecord } from './market';
import type { AlertFiredRecord } from './settings';

/** A socket was stored at its upgrade (the fan-out greets it with `hello`). */
export interface SocketOpened {
  type: 'socket-opened';
  socket: LiveConnection;
}

/** A merge committed a new seq of a market (`ah`). */
export interface Merged {
  type: 'merged';
  record: MergeRecord;
}

/** A market's sealed periods moved (`sealed`): the file state after the move and the resolutions that moved. */
export interface FilesMoved {
  type: 'files-moved';
  state: FilesState;
  moved: SealRes[];
}

/** An alert fired on a merge (`alert` to its owner's sockets on that market). */
export interface AlertFired {
  type: 'alert-fired';
  firing: AlertFiredRecord;
}

/** An account's claims or contributor window changed (`roles`, or a close without `live`). */
export interface ProfileChanged {
  type: 'profile-changed';
  userId: string;
  /** The account's claims as stored, the window applied; null before the identity provider was first read. */
  claims: Claims | null;
  windowUntil: number | null;
}

/** A device was deleted (its sockets close with 4401). */
export interface DeviceRemoved {
  type: 'device-removed';
  userId: string;
  deviceId: string;
}

export type ChangeEvent = SocketOpened | Merged | FilesMoved | AlertFired | ProfileChanged | DeviceRemoved;

/** Hears a batch of events, in the order they were written (per partition, as a stream shard keeps them). */
export type ChangeListener = (events: readonly ChangeEvent[]) => Promise<void>;

/**
 * The stream consumer's event when the change feed is not the table's stream: the local runtime's memory mode
 * invokes the consumer with the memory feed's events (lib/local/memory/), as the stream's mapping invokes it
 * with records in AWS.
 */
export interface ChangeBatch {
  changes: readonly ChangeEvent[];
}

/** Where writers tell of their changes (the memory fakes; the table's stream needs no one to tell it). */
export interface ChangeSink {
  publish(event: ChangeEvent): void;
}

/** A feed the service subscribes its consumer to. */
export interface ChangeFeed {
  /** Adds a listener; answers the function that removes it. */
  subscribe(listener: ChangeListener): () => void;
}

/** A profile as stored (or as a stream image holds it): the claims that make roles, and the contributor window. */
export interface ProfileView {
  claims: { plan?: unknown; contributorUntil?: unknown; grants?: unknown; withhold?: unknown } | null;
  windowUntil: number | null;
}

const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The account's claims with the window applied, as the roles watch applies them. */
function rolesOf(p: ProfileView): { claims: Claims | null; windowUntil: number | null } {
  const c = p.claims;
  if (!c) return { claims: null, windowUntil: p.windowUntil };
  return {
    claims: {
      plan: typeof c.plan === 'string' ? c.plan : null,
      contributorUntil: contributorUntil(p.windowUntil, typeof c.contributorUntil === 'number' ? c.contributorUntil : null),
      grants: strs(c.grants),
      withhold: strs(c.withhold),
    },
    windowUntil: p.windowUntil,
  };
}

/** The event of a profile write, or null when the account's roles inputs did not change (both sides use it). */
export function profileChange(userId: string, before: ProfileView | null, after: ProfileView): ProfileChanged | null {
  const prev = rolesOf(before ?? { claims: null, windowUntil: null });
  const next = rolesOf(after);
  if (JSON.stringify(prev) === JSON.stringify(next)) return null;
  return { type: 'profile-changed', userId, ...next };
}

/** The event of a file state write, or null when no sealed period moved (a snapshot hour alone says nothing). */
export function filesMove(before: FilesState, after: FilesState): FilesMoved | null {
  const moved = SEAL_RES.filter((res) => after.sealed[res] !== null && after.sealed[res] !== before.sealed[res]);
  return moved.length === 0 ? null : { type: 'files-moved', state: after, moved };
}
