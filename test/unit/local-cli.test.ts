import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT, FLAGS, parseCli, usage } from '../../lib/local/cli';

/** Issue 15, point 2: `npm start -- --help` lists every flag and environment variable; anything else is one line. */
describe('npm start command line', () => {
  it('starts with the documented defaults', () => {
    expect(parseCli([], {})).toEqual({
      kind: 'start',
      options: { demo: false, port: 8787, dataDir: '.data', clock: 'system', clockStart: undefined, log: true, bundles: false },
    });
    expect(parseCli(['--demo'], { PORT: '0', DATA_DIR: ':memory:', CLOCK: 'manual', CLOCK_START: '1700000000000', LOG: 'quiet' })).toEqual({
      kind: 'start',
      options: { demo: true, port: 0, dataDir: ':memory:', clock: 'manual', clockStart: 1_700_000_000_000, log: false, bundles: false },
    });
  });

  it('takes --bundles: every function from its deploy bundle', () => {
    const cli = parseCli(['--bundles'], {});
    expect(cli.kind === 'start' && cli.options.bundles).toBe(true);
    expect(usage()).toMatch(/^ {2}--bundles +run every function from the esbuild bundle synth deploys/m);
  });

  it('answers --help and -h with help, whatever else is given', () => {
    expect(parseCli(['--help'], {})).toEqual({ kind: 'help' });
    expect(parseCli(['--demo', '-h'], { PORT: 'nope' })).toEqual({ kind: 'help' });
  });

  it('refuses an unknown flag or argument in one line naming the flags', () => {
    for (const argv of [['--dmeo'], ['demo'], ['--demo', '--port=9000']]) {
      const cli = parseCli(argv, {});
      expect(cli.kind).toBe('error');
      const message = (cli as { message: string }).message;
      expect(message).not.toContain('\n');
      expect(message).toContain('--demo');
      expect(message).toContain('--help');
    }
  });

  it('refuses bad environment values in one line naming what is allowed', () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ PORT: '70000' }, /PORT must be a port number 0\.\.65535/],
      [{ PORT: '80a' }, /PORT must be a port number/],
      [{ PORT: '-1' }, /PORT must be a port number/],
      [{ CLOCK: 'fast' }, /CLOCK is "system" or "manual", not "fast"/],
      [{ CLOCK_START: 'yesterday' }, /CLOCK_START must be Unix ms/],
      [{ LOG: 'verbose' }, /LOG is "info" or "quiet", not "verbose"/],
    ];
    for (const [env, message] of cases) {
      const cli = parseCli([], env);
      expect(cli).toMatchObject({ kind: 'error', message: expect.stringMatching(message) });
      expect((cli as { message: string }).message).not.toContain('\n');
    }
  });

  it('lists every flag and every environment variable it reads in the help', () => {
    const text = usage();
    for (const f of FLAGS) expect(text).toContain(f.flag);
    // Whatever the parser reads from the environment is listed (so a new variable cannot go undocumented).
    const read = new Set([...readFileSync(new URL('../../lib/local/cli.ts', import.meta.url), 'utf8').matchAll(/\benv\.([A-Z_]+)/g)].map((m) => m[1]));
    expect([...read].sort()).toEqual(ENVIRONMENT.map((e) => e.name).sort());
    for (const name of read) expect(text).toMatch(new RegExp(`^  ${name} `, 'm'));
    expect(text).toContain('--demo');
    expect(text).toContain('--bundles');
  });
});
