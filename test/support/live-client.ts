/**
 * The shared live client on the `ws` library (a dev dependency the client itself does not import): it sends
 * the credential as a header and reports a refused upgrade's status, as the tests need.
 */
import WebSocket from 'ws';
import { type LiveClientOptions, type OpenSocket, LiveClient as SharedLiveClient } from '../../shared/client/live-client';

export type { AuthMessage, HelloMessage, LiveMessage } from '../../shared/client/live-client';
export { LiveUpgradeError } from '../../shared/client/live-client';

/** A socket of the `ws` library. */
export const wsSocket: OpenSocket = (url, headers, on) => {
  const ws = new WebSocket(url, { headers });
  ws.on('unexpected-response', (_req, res) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      body += chunk;
    });
    res.on('end', () => on.refused(res.statusCode ?? 0, body));
  });
  ws.on('error', (err) => on.error(err));
  ws.on('close', (code, reason) => on.close(code, reason.toString()));
  ws.on('message', (data) => on.message(data.toString()));
  return { send: (text) => ws.send(text), close: (code) => ws.close(code) };
};

/** The shared live client, opening its socket with `ws`. */
export class LiveClient extends SharedLiveClient {
  constructor(opts: LiveClientOptions) {
    super({ openSocket: wsSocket, ...opts });
  }
}
