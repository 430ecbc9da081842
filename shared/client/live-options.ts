/**
 * The live client's options, its refused-upgrade error and what it records (shared/client/live-client.ts),
 * apart so the client module stays readable.
 */
import type { AuctionRow } from '../files/documents';
import type { BackoffOptions } from './backoff';
import type { OpenSocket } from './sockets';

/** The upgrade was refused with an HTTP status (401, 403, 400, 426). */
export class LiveUpgradeError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`live upgrade refused with ${status}`);
    this.name = 'LiveUpgradeError';
  }
}

export interface ReconnectOptions extends BackoffOptions {
  /** Give up after this many failed attempts in a row (default: never). */
  maxAttempts?: number;
  /** The jitter's source (default Math.random). */
  random?: () => number;
}

export interface LiveClientOptions {
  /** The service's base URL, e.g. `http://127.0.0.1:8787`. */
  base: string;
  market: string;
  /** A session token, device token or API key (or give {@link getToken}). */
  token?: string;
  /**
   * A fresh credential for each (re)connection and renewal: sessions and device tokens expire, and a socket
   * whose credential stopped being valid is closed with 4401 (spec: live socket credential rules).
   */
  getToken?: () => string | Promise<string>;
  /**
   * Send the credential as `Authorization: Bearer` or as `?token=` (browsers). Default: the header, except
   * on the platform's WebSocket (browsers, Node 22), which cannot send one.
   */
  tokenIn?: 'header' | 'query';
  /** Keep the table by the gap rule; default: while the caller has `prices.live`. */
  follow?: boolean;
  /** A table kept from an earlier socket, and its seq. */
  table?: Map<number, AuctionRow>;
  have?: number | null;
  fetch?: typeof fetch;
  /** The WebSocket implementation (default: the platform's, else the `ws` package loaded lazily; see `defaultSocket` in ./sockets). */
  openSocket?: OpenSocket;
  /**
   * Reconnect when the socket closes after its `hello` (not after `LiveClient.close`, a 4403 or a
   * refused upgrade that a retry cannot mend), with backoff, a fresh token from {@link getToken}, and the
   * table and gap rule state kept. Default: off.
   */
  reconnect?: boolean | ReconnectOptions;
  /** How long `connect`, `auth`, `renew` and the `waitFor…` calls wait when not told (default 10 s). */
  waitMs?: number;
}

/** What the client fetched: change and checkpoint URLs in order, and how often it asked the files and table routes. */
export type FetchLog = { change: string[]; checkpoint: string[]; files: number; table: number };

export type ChangeBody = { v: 1; market: string; seq: number; at: number; rows: AuctionRow[] };
