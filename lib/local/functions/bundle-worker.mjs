/**
 * The bootstrap of one function's sandbox in the local runtime's `--bundles` mode (lib/local/functions/sandboxes.ts):
 * a worker thread, started with exactly that function's environment, that imports the deploy bundle as the
 * Lambda Node.js runtime does (`import()` of `index.mjs`, external `@aws-sdk/*` resolved beside it) and takes
 * invocations by message. Plain JavaScript, run without tsx: nothing of the project's sources is loaded here.
 *
 * Two things only the local runtime needs, done here and never in production code:
 * - the service clock: `Date.now()` and `new Date()` read the time the runtime writes into a shared buffer
 *   (a manual clock stands still, as it does for in-process handlers);
 * - the SDK's signing time: the wall clock, as the local servers check it (the SDK adds its clock offset);
 * - the network: SQS calls go to the runtime's local SQS endpoint. The queue URLs the function is configured
 *   with already point there; a request to the host of a URL the code derives from an event source ARN
 *   (`https://sqs.<region>.amazonaws.com/…`) is sent there too, as a DNS entry would.
 */

import http from 'node:http';
import https from 'node:https';
import { syncBuiltinESMExports } from 'node:module';
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';

const { file, clock, sqsEndpoint, sdkShim, sdkClients } = workerData;
process.setSourceMapsEnabled(true);

// The clock: [mode, value]; mode 0 the wall clock, 1 a fixed time (manual clock), 2 the wall clock plus an offset.
const cells = new BigInt64Array(clock);
const RealDate = Date;
const wallNow = RealDate.now.bind(RealDate);
const serviceNow = () => {
  const mode = Atomics.load(cells, 0);
  const value = Number(Atomics.load(cells, 1));
  return mode === 1n ? value : mode === 2n ? wallNow() + value : wallNow();
};
class ServiceDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(serviceNow());
    else super(...args);
  }
  static now() {
    return serviceNow();
  }
}
globalThis.Date = ServiceDate;

// The SDK clients the bundle imports share one base class (resolved beside the bundle, as the bundle resolves
// them): each call signs with the wall clock, which the servers check (s3rver refuses a request 15 minutes off),
// and SQS calls go to the local endpoint.
const { load } = await import(pathToFileURL(sdkShim).href);

// The network, as a DNS entry for SQS would: the deploy bundles carry their own SDK (the hook below does not
// reach it), and the SQS client sends a call to the host of its QueueUrl, which the code derives from an event
// source ARN as on AWS (`https://sqs.<region>.amazonaws.com/…`). Such a request goes to the local SQS
// endpoint instead, unchanged (signed for the AWS host, which the endpoint accepts).
const SQS_HOST = /^sqs\.[a-z0-9-]+\.amazonaws\.com$/;
const localSqs = new URL(sqsEndpoint);
const sqsAgent = new http.Agent({ keepAlive: true });
const httpsRequest = https.request;
https.request = function (options, ...rest) {
  const hostname = typeof options === 'object' && options !== null && !(options instanceof URL) ? (options.hostname ?? options.host) : undefined;
  if (typeof hostname !== 'string' || !SQS_HOST.test(hostname)) return httpsRequest.call(this, options, ...rest);
  return http.request(
    { ...options, protocol: 'http:', host: localSqs.hostname, hostname: localSqs.hostname, port: Number(localSqs.port), agent: sqsAgent },
    ...rest,
  );
};
syncBuiltinESMExports();
const patched = new Set();
const toLocalSqs = (url) => {
  const u = new URL(url);
  return u.origin === new URL(sqsEndpoint).origin ? url : `${sqsEndpoint}${u.pathname}`;
};
for (const name of sdkClients) {
  // One is enough (they share the base class); a package that does not resolve is left to the bundle's own import to report.
  const mod = await load(name).catch(() => ({}));
  const client = Object.values(mod).find((v) => typeof v === 'function' && /Client$/.test(v.name) && typeof v.prototype?.send === 'function');
  const base = client && Object.getPrototypeOf(client.prototype);
  if (!base || patched.has(base)) continue;
  patched.add(base);
  const send = base.send;
  base.send = function (command, ...rest) {
    if (this.config) this.config.systemClockOffset = wallNow() - serviceNow();
    if (typeof command?.input?.QueueUrl === 'string') command.input.QueueUrl = toLocalSqs(command.input.QueueUrl);
    return send.call(this, command, ...rest);
  };
}

const errorOf = (err) => ({
  errorType: err instanceof Error ? err.name : typeof err,
  errorMessage: err instanceof Error ? err.message : String(err),
  stack: err instanceof Error ? err.stack : undefined,
});

let handler;
try {
  const mod = await import(pathToFileURL(file).href);
  handler = mod.handler;
  if (typeof handler !== 'function') throw Object.assign(new Error(`${file} exports no function named handler`), { name: 'Runtime.HandlerNotFound' });
} catch (err) {
  parentPort.postMessage({ type: 'init-error', error: errorOf(err) });
  // Nothing more to do: the runtime ends this sandbox.
  await new Promise(() => undefined);
}
parentPort.postMessage({ type: 'ready', url: pathToFileURL(file).href });

parentPort.on('message', async (m) => {
  if (m.type !== 'invoke') return;
  const context = {
    ...m.context,
    callbackWaitsForEmptyEventLoop: false,
    // Lambda's deadline is wall time, whatever the service clock says.
    getRemainingTimeInMillis: () => Math.max(0, m.deadline - wallNow()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
  try {
    // Lambda hands the handler a parsed JSON event and serializes what it returns.
    const result = await handler(JSON.parse(m.event), context);
    parentPort.postMessage({ type: 'result', id: m.id, result: result === undefined ? undefined : JSON.stringify(result) });
  } catch (err) {
    parentPort.postMessage({ type: 'error', id: m.id, error: errorOf(err) });
  }
});
