/**
 * What `npm start` prints after `ready <base>`: with `--demo`, the credentials and copy-paste commands of
 * the demo; always, where the docs are, where the data is kept and how to stop. Plain text, no colour, so
 * it reads the same in a terminal, a log file and a test.
 */
import { resolve } from 'node:path';
import { DEFAULT_MARKET } from '../../../shared/domain/market';
import { type Demo, FEED_EVERY_MS } from '../demo/demo';

export interface ReadyContext {
  base: string;
  dataDir: string;
  /** `--memory`: said as such, with what it does today (lib/local/process/cli.ts). */
  memory?: boolean;
  clock: 'manual' | 'system';
  now: number;
}

/** The docs, the data folder and how to stop. */
export function readyLines(c: ReadyContext): string[] {
  const data = c.memory
    ? 'nothing kept (--memory): the whole service on the in-memory fakes, no Java, no storage engine'
    : c.dataDir === ':memory:'
      ? 'in memory (DATA_DIR=:memory:): nothing is kept after stop'
      : `${resolve(c.dataDir)} (tables, files, users, API keys and secrets; to start afresh: stop, delete the folder)`;
  const lines = [`docs:  ${c.base}/docs/api/reference (API reference), ${c.base}/openapi.json (OpenAPI), ${c.base}/ (home)`, `data:  ${data}`];
  if (c.clock === 'manual') lines.push(`clock: manual, at ${new Date(c.now).toISOString()}: POST ${c.base}/_local/clock {"advance": ms} moves it`);
  lines.push('stop:  Ctrl-C');
  return lines;
}

/** The demo's credentials and commands to paste (curl, and a live socket through the `ws` package of this repository). */
export function demoLines(base: string, d: Demo): string[] {
  const item = `${base}/api/v1/ah/${d.market}/${d.item.key}`;
  const page = `${base}/item/${d.item.key}${d.market === DEFAULT_MARKET ? '' : `?m=${d.market}`}`;
  const socket = `${base.replace(/^http/, 'ws')}/api/v1/live?market=${d.market}&token=`;
  // An API key's socket lasts 5 minutes unless `auth` renews it (spec: live socket credential rules).
  const ws = `node -e "const T='${d.apiKey}',s=new(require('ws'))('${socket}'+T);s.on('message',m=>console.log(String(m)));s.on('close',(c,r)=>console.log('closed',c,String(r)));setInterval(()=>s.send(JSON.stringify({t:'auth',token:T})),24e4)"`;
  const replay =
    d.replayed.books > 0
      ? `${d.replayed.books} books replayed since ${new Date(d.replayed.from).toISOString().slice(0, 10)} in ${(d.replayed.ms / 1000).toFixed(0)} s; `
      : '';
  return [
    `demo:  ${replay}${d.feeding ? `a book to each of 2 markets every ${FEED_EVERY_MS / 1000} s` : 'no feed on the manual clock'}`,
    `  API key  ${d.apiKey}`,
    '           premium user demo@localhost, no scopes: every feature of the plan, prices.live included',
    `  session  ${d.session}`,
    '           a session token of the same user, 24 h',
    `  item     ${d.item.key} (${d.item.name}) on ${d.market}`,
    `  site     ${base}/ in a browser: Sign in as demo@localhost; a desktop app's pairing code is confirmed at ${base}/#/devices/confirm`,
    'try (paste into a shell in this folder):',
    '  # a live read with the key: the row as merged ("live": true)',
    `  curl -s -H "Authorization: Bearer ${d.apiKey}" "${item}"`,
    '  # the same read anonymously: the market as of the top of the hour ("live": false)',
    `  curl -s "${item}"`,
    '  # the item data (name, quality, icon); its page is for a browser:',
    `  curl -s "${base}/api/v1/items/${d.item.key}"`,
    `  #   ${page}`,
    `  # the live socket: a message after every merge (Ctrl-C ends it)`,
    `  ${ws}`,
  ];
}

/** Everything printed after `ready`: the demo's lines first, then the docs, data and how to stop. */
export function banner(c: ReadyContext, demo: Demo | null): string[] {
  return [...(demo ? demoLines(c.base, demo) : []), ...readyLines(c)];
}
