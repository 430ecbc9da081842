/**
 * `live.poster_cpu_ratio`: docs/architecture.md's reason for the poster: the SDK command path costs several
 * times the CPU per post. Both paths post the same `ah` to 2000 connections through one in-memory HTTP handler
 * answering 200, so only the client-side work is counted (process CPU time, the least of 3 rounds after a
 * warm-up: other load on the machine only adds to a round). A bench figure, not a test: it is a measurement.
 */
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { ApiGatewayManagementApiClient, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import { ConnectionPoster } from '../../shared/store/connection-poster';

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

async function cpuMs(post: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 200; i++) await post(i);
  let least = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 3; round++) {
    const before = process.cpuUsage();
    await Promise.all(Array.from({ length: SOCKETS }, (_, i) => post(i)));
    const used = process.cpuUsage(before);
    least = Math.min(least, (used.user + used.system) / 1000);
  }
  return least;
}

export async function benchPosterCost(): Promise<{ sdkMs: number; posterMs: number; sockets: number }> {
  const sdk = client();
  const sdkMs = await cpuMs((i) => sdk.send(new PostToConnectionCommand({ ConnectionId: `c${i}`, Data: data })));
  const poster = new ConnectionPoster(client());
  const posterMs = await cpuMs((i) => poster.post(`c${i}`, data));
  return { sdkMs, posterMs, sockets: SOCKETS };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const c = await benchPosterCost();
  console.log(
    `live.poster_cpu_ratio ${(c.posterMs / c.sdkMs).toFixed(2)} (poster ${c.posterMs.toFixed(0)} ms, SDK ${c.sdkMs.toFixed(0)} ms CPU for ${c.sockets} posts)`,
  );
}
