/**
 * The live socket of one market in the browser, through the project's typed live client
 * (shared/client/live-client.ts) and its gap rule. The browser's credential is the `__session` cookie
 * (HttpOnly, so the page never holds it): the socket's upgrade and the client's file and table requests
 * carry it because they go to this origin; a provider that has a token (Clerk) passes it instead. The
 * socket closes when the page leaves the route.
 */
import { LiveClient, type OpenSocket, platformSocket } from '../../shared/client/live-client';
import type { Session } from '../session';
import type { Row } from './markets';

export interface LiveFeed {
  client: LiveClient;
  close(): void;
}

/** `fetch` for the client: a same-origin request with the cookie, without an empty `Authorization` (a cookie session has no token to send). */
const cookieFetch: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  if (/^Bearer\s*$/i.test(headers.get('authorization') ?? '')) headers.delete('authorization');
  return fetch(input, { ...init, headers, credentials: 'same-origin' });
};

/**
 * The browser's WebSocket, without an empty `?token=`: a cookie session has no token, and the service reads a
 * `token` parameter, even an empty one, as the credential instead of the cookie (401).
 */
const cookieSocket: OpenSocket = (url, headers, on) => platformSocket(url.replace(/&token=(?=&|$)/, ''), headers, on);

/**
 * Opens the market's socket and calls `onTable` whenever its table moved (the gap rule applied a change, a
 * checkpoint or the table route). Closed by `close()` or when the location's hash changes.
 */
export async function openLiveFeed(session: Session, market: string, onTable: (table: ReadonlyMap<number, Row>) => void): Promise<LiveFeed> {
  const token = (await session.auth.token()) ?? '';
  const client = new LiveClient({
    base: location.origin,
    market,
    token,
    tokenIn: 'query',
    fetch: cookieFetch,
    openSocket: token ? undefined : cookieSocket,
    follow: true,
  });
  client.on('seq', () => onTable(client.table));
  const close = () => {
    removeEventListener('hashchange', close);
    client.close();
  };
  addEventListener('hashchange', close);
  try {
    await client.connect();
  } catch (err) {
    close();
    throw err;
  }
  return { client, close };
}
