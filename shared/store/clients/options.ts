/**
 * What an SDK client is built from: the region and, in the local runtime, the local endpoints. One SDK client
 * module per service, so a function's composition root loads exactly the clients its manifest access names.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Config } from '../../config';

export type ClientConfig = Pick<Config, 'region' | 'endpoints' | 'connectionsEndpoint'>;

/** The local engines take any credentials; AWS uses the function's role. */
export const localCredentials = (config: ClientConfig) =>
  config.endpoints.dynamodb !== undefined ? { accessKeyId: 'local', secretAccessKey: 'local' } : undefined;

/**
 * A keep-alive connection pool of `maxSockets`, as the SDK's handler options (the SDK builds its own handler
 * from them, so no HTTP handler package is bundled beside the one the runtime's SDK brings).
 */
export const pooled = (maxSockets: number) => ({
  httpAgent: new HttpAgent({ keepAlive: true, maxSockets }),
  httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets }),
});
