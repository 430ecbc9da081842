/**
 * The shared live client on the `ws` library (a dev dependency the client itself does not import): it sends
 * the credential as a header and reports a refused upgrade's status, as the tests need.
 */
import WebSocket from 'ws';
import { type LiveClientOptions, type OpenSocket, LiveClient as SharedLiveClient } from '../../shared/client/live-client';
import { wsLibrarySocket } from '../../shared/client/sockets';

export type { AuthMessage, HelloMessage, LiveMessage } from '../../shared/client/live-client';
export { LiveUpgradeError } from '../../shared/client/live-client';

/** A socket of the `ws` library. */
export const wsSocket: OpenSocket = wsLibrarySocket(WebSocket);

/**
 * How long the tests' live clients wait for a hello, a message or a close when a test does not say: a loaded
 * 2-core machine running the engines (DynamoDB Local at a core) can take well past the client's own 10 s.
 */
export const TEST_WAIT_MS = 60_000;

/** The shared live client, opening its socket with `ws`, waiting {@link TEST_WAIT_MS} unless told. */
export class LiveClient extends SharedLiveClient {
  constructor(opts: LiveClientOptions) {
    super({ openSocket: wsSocket, waitMs: TEST_WAIT_MS, ...opts });
  }
}
