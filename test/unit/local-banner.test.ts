import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Demo } from '../../lib/local/demo/demo';
import { banner } from '../../lib/local/process/banner';

const BASE = 'http://127.0.0.1:8787';
const demo: Demo = {
  userId: 'user_1',
  apiKey: 'ak_key',
  session: 'eyJ.session',
  market: 'forever.normal.horde.us',
  item: { key: 123, name: 'Silken Thread' },
  replayed: { books: 52, ms: 24_000, from: Date.UTC(2026, 10, 18) },
  feeding: true,
  stop: () => undefined,
};

/** Issue 15, point 2: what `npm start` prints after `ready`. */
describe('the lines after ready', () => {
  it('name the docs, the data folder (absolute) and how to stop, with or without the demo', () => {
    const lines = banner({ base: BASE, dataDir: '.data', clock: 'system', now: 0 }, null);
    expect(lines).toEqual([
      `docs:  ${BASE}/docs/api/reference (API reference), ${BASE}/openapi.json (OpenAPI), ${BASE}/ (home)`,
      `data:  ${resolve('.data')} (tables, files, users, API keys and secrets; to start afresh: stop, delete the folder)`,
      'stop:  Ctrl-C',
    ]);
    expect(banner({ base: BASE, dataDir: ':memory:', clock: 'manual', now: Date.UTC(2026, 10, 2) }, null)).toEqual([
      expect.stringMatching(/^docs: /),
      'data:  in memory (DATA_DIR=:memory:): nothing is kept after stop',
      `clock: manual, at 2026-11-02T00:00:00.000Z: POST ${BASE}/_local/clock {"advance": ms} moves it`,
      'stop:  Ctrl-C',
    ]);
  });

  it('say what --memory does: nothing kept, on the in-memory fakes, no Java', () => {
    expect(banner({ base: BASE, dataDir: ':memory:', memory: true, clock: 'system', now: 0 }, null)).toContain(
      'data:  nothing kept (--memory): the whole service on the in-memory fakes, no Java, no storage engine',
    );
  });

  it('give the demo key, session, item and commands first, the docs, data and stop last', () => {
    const lines = banner({ base: BASE, dataDir: '.data', clock: 'system', now: 0 }, demo);
    expect(lines[0]).toBe('demo:  52 books replayed since 2026-11-18 in 24 s; a book to each of 2 markets every 20 s');
    expect(lines).toContain('  API key  ak_key');
    expect(lines).toContain('  session  eyJ.session');
    expect(lines).toContain('  item     123 (Silken Thread) on forever.normal.horde.us');
    expect(lines).toContain(
      `  site     ${BASE}/ in a browser: Sign in as demo@localhost; a desktop app's pairing code is confirmed at ${BASE}/#/devices/confirm`,
    );
    expect(lines).toContain(`  curl -s -H "Authorization: Bearer ak_key" "${BASE}/api/v1/ah/forever.normal.horde.us/123"`);
    expect(lines).toContain(`  curl -s "${BASE}/api/v1/ah/forever.normal.horde.us/123"`);
    expect(lines).toContain(`  curl -s "${BASE}/api/v1/items/123"`);
    expect(lines).toContain(`  #   ${BASE}/item/123?m=forever.normal.horde.us`);
    expect(lines.find((l) => l.startsWith('  node -e'))).toContain(`ws://127.0.0.1:8787/api/v1/live?market=forever.normal.horde.us&token=`);
    expect(lines.slice(-1)).toEqual(['stop:  Ctrl-C']);
  });

  it('say so when a manual clock means no feed', () => {
    expect(banner({ base: BASE, dataDir: '.data', clock: 'manual', now: 0 }, { ...demo, feeding: false })[0]).toMatch(/no feed on the manual clock$/);
  });
});
