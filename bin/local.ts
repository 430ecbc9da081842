/**
 * `npm start`: the whole service on this machine (`npm start -- --help` lists the flags and environment
 * variables, lib/local/process/cli.ts). A start that fails prints one line saying what to do and stops everything it
 * started; so does Ctrl-C (SIGINT), SIGTERM or SIGHUP at any point, start-up included, and so does the death
 * of whatever started it (lib/local/process/parent-watch.ts): it is a foreground program, never a daemon. Its engines
 * die with it even when it is killed outright (lib/local/engines/engines.ts), and one data folder serves one
 * runtime at a time (lib/local/process/data-lock.ts).
 *
 * It runs as `node --import tsx bin/local.ts`, one process, not through the `tsx` command: that one runs the
 * program in a child and, when a signal reaches it, gives the child 30 ms to acknowledge before it kills it
 * with SIGKILL; a start-up busy for longer (a loaded machine) then left DynamoDB Local and the S3 server
 * running as orphans.
 */

import { StartAborted } from '../lib/local/engines/wait';
import { banner } from '../lib/local/process/banner';
import { parseCli, usage } from '../lib/local/process/cli';
import { watchParent } from '../lib/local/process/parent-watch';
import { startFailure } from '../lib/local/process/start-failure';
import { Runtime } from '../lib/local/runtime';

const cli = parseCli(process.argv.slice(2), process.env);
if (cli.kind === 'help') {
  console.log(usage());
  process.exit(0);
}
if (cli.kind === 'error') {
  console.error(`error: ${cli.message}`);
  process.exit(2);
}
const o = cli.options;
for (const notice of o.notices ?? []) console.log(notice);
const demo = o.demo ? await import('../lib/local/demo/demo') : null;
// The demo replays the last week on a clock that starts in the past (a manual clock: the week before CLOCK_START).
const target = o.clock === 'manual' ? (o.clockStart ?? Date.now()) : undefined;
const rt = new Runtime({
  backend: o.memory ? 'memory' : 'engines',
  port: o.port,
  dataDir: o.dataDir,
  clock: demo && o.clock === 'system' ? 'replay' : o.clock,
  clockStart: demo ? demo.demoClockStart(o.dataDir, target ?? Date.now()) : o.clockStart,
  log: o.log,
  bundles: o.bundles,
});

let stopping = false;
let shown: Awaited<ReturnType<NonNullable<typeof demo>['runDemo']>> | null = null;
// Once the reader of our output is gone (the parent that started us), a write must not crash the stop.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
const stop = async () => {
  if (stopping) return;
  stopping = true;
  shown?.stop();
  await rt.close().catch((err) => console.error(`error while stopping: ${err instanceof Error ? err.message : String(err)}`));
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
// The terminal closed.
process.on('SIGHUP', stop);
watchParent((why) => {
  console.log(`stopping: ${why}`);
  void stop();
});

try {
  await rt.start();
  shown = demo ? await demo.runDemo(rt, { dataDir: o.dataDir, target, progress: (line) => console.log(line) }) : null;
  console.log(`ready ${rt.base}`);
  console.log(banner({ base: rt.base, dataDir: o.dataDir, memory: o.memory, clock: o.clock, now: rt.clock.now() }, shown).join('\n'));
} catch (err) {
  // A stop during start-up is not a failure: `stop` ends the process once everything is down.
  if (stopping || err instanceof StartAborted) await new Promise(() => undefined);
  console.error(`error: ${startFailure(err, o)}`);
  await rt.close().catch(() => undefined);
  process.exit(1);
}
