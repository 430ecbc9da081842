/**
 * The local runtime as its own process with logging on, for tests that read everything it writes (stdout
 * and stderr). Started by test/support/logged-service.ts on the run's shared engines; prints `ready <base>`.
 */
import { startRuntime } from '../../lib/local/runtime';

const env = process.env;
const rt = await startRuntime({
  port: 0,
  dataDir: env.LOGGED_DATA_DIR ?? ':memory:',
  clock: 'manual',
  clockStart: Number(env.LOGGED_CLOCK_START),
  dynamodbEndpoint: env.LOGGED_DYNAMODB_ENDPOINT,
  s3Endpoint: env.LOGGED_S3_ENDPOINT,
  name: env.LOGGED_NAME,
  log: true,
});
console.log(`ready ${rt.base}`);

const stop = async () => {
  await rt.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The test holds our stdin: when it goes away (even killed), so do we.
process.stdin.on('end', stop);
process.stdin.resume();
