/**
 * `npm start`: the whole service on this machine. Environment: PORT (default 8787), DATA_DIR (default
 * `.data`; `:memory:` keeps nothing), CLOCK=manual with CLOCK_START=<ms>. `npm start -- --demo` feeds
 * realistic synthetic books so a newcomer sees data.
 */
import { startRuntime } from '../lib/local/runtime';

const port = Number(process.env.PORT ?? 8787);
const clockStart = process.env.CLOCK_START ? Number(process.env.CLOCK_START) : undefined;
if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, not ${process.env.PORT}`);
if (clockStart !== undefined && !Number.isSafeInteger(clockStart)) throw new Error('CLOCK_START must be Unix ms');

const rt = await startRuntime({
  port,
  dataDir: process.env.DATA_DIR ?? '.data',
  clock: process.env.CLOCK === 'manual' ? 'manual' : 'system',
  clockStart,
  log: process.env.LOG !== 'quiet',
});

console.log(`ready ${rt.base}`);

if (process.argv.includes('--demo')) {
  const { runDemo } = await import('../lib/local/demo');
  await runDemo(rt);
}

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await rt.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
