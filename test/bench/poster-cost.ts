/**
 * `live.poster_cpu_ratio`: docs/architecture.md's reason for the poster: the SDK command path costs several
 * times the CPU per post. Both paths post the same `ah` to 2000 connections through one in-memory HTTP handler
 * answering 200, so only the client-side work is counted (main-thread CPU, the median of the shared
 * discipline's runs after its warm-up, test/bench/cpu-sample.ts). A bench figure, not a test: it is a measurement.
 */
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { ApiGatewayManagementApiClient, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import { ConnectionPoster } from '../../shared/store/connection-poster';
import { type CpuStats, sampleCpuAlternating } from './cpu-sample';

const handler = {
  handle: async () => ({ response: { statusCode: 200, headers: {}, body: Readable.from([Buffer.alloc(0)]) } }),
  updateHttpClientConfig: () => undefined,
  httpHandlerConfigs: () => ({}),
};
const client = () =>
  new ApiGatewayManagementApiClient({
    region: 'eu-west-1',
    endpoint: 'https://abc123.execute-api.eu-west-1.amazonaws.com/prod',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    requestHandler: handler as never,
  });
const data = Buffer.from(
  JSON.stringify({
    t: 'ah',
    market: 'forever.normal.alliance.us',
    seq: 1234,
    url: 'https://files.example/live/v1/forever.normal.alliance.us/1234-AAAAAAAAAAAAAAAAAAAAAA.json.gz',
    at: 1_717_000_000_000,
  }),
);
const SOCKETS = 2000;

/** Both paths alternate run by run (test/bench/cpu-sample.ts), each run posting to every socket at once. */
export async function benchPosterCost(): Promise<{ sdkMs: number; posterMs: number; sockets: number; sdk: CpuStats; poster: CpuStats }> {
  const sdkClient = client();
  const posterClient = new ConnectionPoster(client());
  const all = (post: (i: number) => Promise<unknown>) => async () => {
    await Promise.all(Array.from({ length: SOCKETS }, (_, i) => post(i)));
  };
  const [sdk, poster] = await sampleCpuAlternating([
    all((i) => sdkClient.send(new PostToConnectionCommand({ ConnectionId: `c${i}`, Data: data }))),
    all((i) => posterClient.post(`c${i}`, data)),
  ]);
  return { sdkMs: sdk.thread.median, posterMs: poster.thread.median, sockets: SOCKETS, sdk, poster };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const c = await benchPosterCost();
  console.log(
    `live.poster_cpu_ratio ${(c.posterMs / c.sdkMs).toFixed(2)} (poster ${c.posterMs.toFixed(0)} ms, SDK ${c.sdkMs.toFixed(0)} ms CPU for ${c.sockets} posts)`,
  );
}
