/**
 * Fired alerts reaching an open page (spec: "Firing sends `{t: "alert", alert}` to the account's live
 * sockets"): one live socket per market the caller has alerts in, through the typed live client
 * (shared/client/live-client.ts), reconnecting with its backoff. The client is loaded on demand, so pages
 * without alerts never fetch it.
 *
 * The credential: with Clerk the provider gives a session token, sent as `?token=` (a browser's WebSocket
 * cannot send headers). The local provider's session is an HttpOnly cookie the page cannot read, and the
 * browser sends it with the upgrade by itself (the service takes the cookie from the deployment's own
 * origin): the socket then carries no token, and the client's placeholder credential never leaves the page.
 */
import type { LiveClient, OpenSocket } from '../../shared/client/live-client';
import type { MarketAlert } from '../../shared/domain/alerts';
import type { Session } from '../session';

/** The client's credential when the browser's cookie is the credential: never sent (see `socketFor`). */
const COOKIE = 'cookie-session';

export interface AlertFeed {
  close(): void;
}

/** Opens the platform WebSocket with the credential as `?token=`, or with none when the cookie carries it. */
function socketFor(platform: OpenSocket): OpenSocket {
  return (url, headers, on) => {
    const bearer = headers.authorization?.replace(/^Bearer /, '');
    return platform(bearer && bearer !== COOKIE ? `${url}&token=${encodeURIComponent(bearer)}` : url, {}, on);
  };
}

/**
 * Follows the `alert` messages of `markets` and calls `onAlert` with each fired alert; `onOpen` once every
 * socket said hello; `onTrouble` with a sentence when a socket cannot be opened (the page then says fired
 * alerts show after a reload).
 */
export async function followAlerts(
  session: Session,
  markets: readonly string[],
  onAlert: (alert: MarketAlert) => void,
  onTrouble: (sentence: string) => void,
  onOpen: () => void = () => undefined,
): Promise<AlertFeed> {
  const { LiveClient, platformSocket } = await import('../../shared/client/live-client');
  const clients: LiveClient[] = [];
  const hellos: Promise<unknown>[] = [];
  for (const market of new Set(markets)) {
    const client = new LiveClient({
      base: location.origin,
      market,
      getToken: async () => (await session.auth.token()) ?? COOKIE,
      tokenIn: 'header',
      openSocket: socketFor(platformSocket),
      follow: false,
      reconnect: { maxAttempts: 8 },
    });
    client.on('message', (msg: { t: string; alert?: unknown }) => {
      if (msg.t === 'alert' && msg.alert) onAlert(msg.alert as MarketAlert);
    });
    client.on('gave-up', () => onTrouble('Fired alerts cannot reach this page right now: reload it to see their state.'));
    clients.push(client);
    hellos.push(client.connect());
  }
  Promise.all(hellos).then(onOpen, () => onTrouble('Fired alerts cannot reach this page right now: reload it to see their state.'));
  return {
    close: () => {
      for (const c of clients) c.close();
    },
  };
}
