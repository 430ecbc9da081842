/**
 * What an SDK client is built from: the region and, in the local runtime, the local endpoints. One SDK client
 * module per service, so a function's composition root loads exactly the clients its manifest access names.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import type { Config } from '../../config';

/**
 * `credentials`: only where the caller is not the process's own identity (the local runtime's in-process
 * functions share one process, each signing as itself; tests reaching the engines directly). Absent, the SDK's
 * default chain finds them: the function's role on AWS, the environment of a local sandbox.
 */
export type ClientConfig = Pick<Config, 'region' | 'endpoints' | 'connectionsEndpoint'> & {
  credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
};

/**
 * A keep-alive connection pool of `maxSockets`, as the SDK's handler options (the SDK builds its own handler
 * from them, so no HTTP handler package is bundled beside the one the runtime's SDK brings).
 */
export const pooled = (maxSockets: number) => ({
  httpAgent: new HttpAgent({ keepAlive: true, maxSockets }),
  httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets }),
});
