/**
 * Issue 24.7: the client is a package an integrator installs from a tarball. `npm pack` in packages/client
 * builds it (esbuild + tsc) and packs it; the tarball is installed into an empty project offline, with `ws`
 * as Node 20 needs; the README's example, taken from its code block as written, runs against a local
 * runtime and prints what it promises; and the package's declarations type-check a TypeScript consumer under
 * `moduleResolution: "nodenext"` (the strictest), with answer types that are not `any`.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Local, startLocal } from '../support/local';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const PACKAGE_DIR = join(ROOT, 'packages/client');

/** The README's example: the first `js` code block under "## Example". */
function readmeExample(): string {
  const readme = readFileSync(join(PACKAGE_DIR, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Example'));
  const block = section.match(/```js\n([\s\S]*?)```/);
  if (!block) throw new Error('no js code block under "## Example" in packages/client/README.md');
  return block[1];
}

/** A TypeScript consumer: compiles only if the declarations resolve and carry the answer types. */
const CONSUMER = `import { ApiError, httpClient, LiveClient, type Me, type Upload } from 'market-data-client';

const api = httpClient({ base: 'http://127.0.0.1:1', apiKey: 'ak_x' });
export async function check(): Promise<[Me, Upload, number | null]> {
  const me: Me = await api.me();
  // @ts-expect-error: an answer is typed, not any
  const wrong: number = me.user;
  const up = await api.uploadBook({ market: 'forever.normal.alliance.us', at: 1, complete: true, auctions: 0, entries: [] });
  const live = new LiveClient({ base: 'http://127.0.0.1:1', market: 'forever.normal.alliance.us', getToken: async () => 'ak_x', reconnect: true });
  const hello = await live.connect();
  void wrong;
  void ApiError;
  return [me, up, hello.at];
}
`;

/** Type-checks `files` in `dir` with the repo's tsc in a child process (in this one it would stall the runtime). */
async function typeErrors(dir: string, files: string[]): Promise<string> {
  const config = {
    compilerOptions: {
      noEmit: true,
      strict: true,
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      allowJs: true,
      checkJs: true,
      skipLibCheck: false,
      types: ['node'],
    },
    files,
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config));
  try {
    await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir]);
    return '';
  } catch (err) {
    return (err as { stdout?: string }).stdout || String(err);
  }
}

describe('the client package', () => {
  let local: Local;
  let dir: string;

  beforeAll(async () => {
    local = await startLocal();
    dir = mkdtempSync(join(tmpdir(), 'client-package-'));
  });
  afterAll(async () => {
    await local?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('packs, installs from the tarball, and runs the README example as written against the local runtime', async () => {
    const packed = await run('npm', ['pack', '--pack-destination', dir, '--json', '--silent'], { cwd: PACKAGE_DIR });
    const [{ filename, files }] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as [{ filename: string; files: { path: string }[] }];
    const paths = files.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/types/shared/client/index.d.ts']));
    expect(paths.filter((p) => p.endsWith('.ts') && !p.endsWith('.d.ts'))).toEqual([]);

    const app = join(dir, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'integrator', private: true, type: 'module' }));
    // As the README says: the tarball, and ws on Node 20 (no global WebSocket there).
    await run('npm', ['install', join(dir, filename), 'ws', '--offline', '--no-audit', '--no-fund', '--silent'], { cwd: app });
    const installed = JSON.parse(readFileSync(join(app, 'node_modules/market-data-client/package.json'), 'utf8'));
    expect(installed.peerDependenciesMeta).toEqual({ ws: { optional: true } });

    writeFileSync(join(app, 'example.mjs'), readmeExample());
    const user = await local.user({ plan: 'premium' });
    const key = await local.apiKey(user.id);
    const { stdout } = await run('node', ['example.mjs'], { cwd: app, env: { ...process.env, MARKET_BASE: local.base, MARKET_TOKEN: key }, timeout: 60_000 });

    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^live: forever\.normal\.alliance\.us at seq 0, features .*\bprices\.live\b/);
    expect(lines[1]).toBe('uploaded: credited false (too_small)');
    expect(lines[2]).toBe('item 25: 500 copper, 20 listed (seq 1)');

    // The types: the example itself (checkJs) and a TypeScript consumer, under nodenext resolution.
    mkdirSync(join(app, 'node_modules/@types'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules/@types/node'), join(app, 'node_modules/@types/node'));
    writeFileSync(join(app, 'consumer.ts'), CONSUMER);
    expect(await typeErrors(app, ['example.mjs', 'consumer.ts'])).toBe('');
  });
});
