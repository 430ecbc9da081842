/**
 * The live sockets' records (spec: one socket follows one market and is handed to one hub of it, at most
 * 2000 sockets per hub), and posting to and closing sockets through API Gateway's `@connections`.
 */

import type { Claims, Feature, Role, SocketKind } from '../domain/roles';

/** Sockets per hub (spec Limits). */
export const HUB_SIZE = 2000;

export interface LiveConnection {
  connectionId: string;
  market: string;
  hub: number;
  userId: string;
  kind: SocketKind;
  /** The device of a device socket (its deletion closes the socket with 4401). */
  deviceId?: string;
  claims: Claims;
  /** An API key's scopes (null: all of its user's features). */
  scopes: string[] | null;
  roles: Role[];
  features: Feature[];
  historyDays: number;
  /** When the credential stops being valid (null: a device's, until it is deleted). */
  validUntil: number | null;
  connectedAt: number;
  /**
   * The caller's rate-limit key at the upgrade (the address CloudFront saw, IPv6 by /64). Renewals meter API
   * key lookups by it: a `$default` event's own source address is CloudFront's, shared by every viewer.
   */
  addressKey?: string;
  /** Set once `hello` is being sent: notices before it would precede the first message. */
  ready: boolean;
}

export type NewConnection = Omit<LiveConnection, 'hub' | 'ready'>;

/** What sending to a socket and forgetting it need. */
export type SocketRef = Pick<LiveConnection, 'connectionId' | 'market' | 'hub' | 'userId'>;

/** A socket as the fan-out reads it: where it is and what it may read. */
export interface SocketAudience extends SocketRef {
  ready: boolean;
  features: Feature[];
  historyDays: number;
  /** `features|historyDays`: sockets with the same audience share one message text. */
  audience: string;
}

/** Where a socket is, with how many client messages it sent in the current minute (this one included). */
export interface MessageCount {
  at: SocketRef;
  count: number;
}

/** The fields of a stored socket that change after its upgrade. */
export type ConnectionFields = Partial<Pick<LiveConnection, 'claims' | 'scopes' | 'roles' | 'features' | 'historyDays' | 'validUntil' | 'ready' | 'deviceId'>>;

/** The audience text of a socket's features and history limit. */
export const audienceKey = (features: readonly string[], historyDays: number): string => `${features.join(',')}|${historyDays}`;

/** The sockets' records. */
export interface ConnectionsPort {
  /** Stores a new socket in the market's first hub with room; answers it as stored. */
  add(c: NewConnection): Promise<LiveConnection>;
  /** A socket by connection id, or null when it is gone. */
  get(connectionId: string): Promise<LiveConnection | null>;
  /** A socket's record where a reference says it is, or null when it is gone. */
  at(ref: Pick<LiveConnection, 'connectionId' | 'market' | 'hub'>): Promise<LiveConnection | null>;
  /** Counts a client message of the socket in `minute`, atomically; null when the socket is gone. */
  countMessage(connectionId: string, minute: number): Promise<MessageCount | null>;
  /** Forgets a socket, giving its hub's place back once; answers whether it was stored. */
  remove(ref: SocketRef): Promise<boolean>;
  /** Forgets a socket known only by its id (`$disconnect`). */
  removeById(connectionId: string): Promise<boolean>;
  /** Changes fields of a stored socket; false when it is gone. */
  update(c: LiveConnection, fields: ConnectionFields): Promise<boolean>;
  /** Every socket of a market. */
  ofMarket(market: string): Promise<LiveConnection[]>;
  /** Every socket of a market as the fan-out needs them (a projected read). */
  audiencesOf(market: string): Promise<SocketAudience[]>;
  /** Every socket of an account (optionally of one market). */
  ofUser(userId: string, market?: string): Promise<LiveConnection[]>;
  /**
   * How many sockets the account has stored, across markets (the open-socket cap). Counted from the account's
   * socket entries themselves, which every removal deletes, so the count cannot drift from the records; a
   * socket whose `$disconnect` was missed keeps its place only until a post to it answers 410 (the fan-out
   * forgets it) or, in AWS, the sweep's rule for records older than API Gateway's 2-hour connection limit.
   */
  countOfUser(userId: string): Promise<number>;
}

/** A post's outcome: delivered, or the socket is gone. */
export type PostResult = 'sent' | 'gone';

/** API Gateway's `@connections`: posting to sockets and closing them. */
export interface SocketsPort {
  /** Posts one message to a socket. */
  post(connectionId: string, data: Uint8Array): Promise<PostResult>;
  /**
   * Closes a socket with a close code (the local gateway uses it; API Gateway cannot choose one, so the server
   * tells the client why first). A socket already gone is no error.
   */
  close(connectionId: string, code: number): Promise<void>;
}
