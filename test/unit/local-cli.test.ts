import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT, FLAGS, parseCli, usage } from '../../lib/local/process/cli';

/** Issue 15, point 2: `npm start -- --help` lists every flag and environment variable; anything else is one line. */
describe('npm start command line', () => {
  it('starts with the documented defaults', () => {
    expect(parseCli([], {})).toEqual({
      kind: 'start',
      options: { demo: false, port: 8787, dataDir: '.data', memory: false, clock: 'system', clockStart: undefined, log: 'human', bundles: false },
    });
    expect(parseCli(['--demo'], { PORT: '0', DATA_DIR: ':memory:', CLOCK: 'manual', CLOCK_START: '1700000000000', LOG: 'quiet' })).toEqual({
      kind: 'start',
      options: { demo: true, port: 0, dataDir: ':memory:', memory: false, clock: 'manual', clockStart: 1_700_000_000_000, log: 'quiet', bundles: false },
    });
  });

  it('takes --bundles: every function from its deploy bundle', () => {
    const cli = parseCli(['--bundles'], {});
    expect(cli.kind === 'start' && cli.options.bundles).toBe(true);
    expect(usage()).toMatch(/^ {2}--bundles +run every function from the esbuild bundle synth deploys/m);
  });

  /** Issue 25, point 8: the JSON lines buried the printed key and commands; a terminal gets human lines. */
  it('prints short human lines by default, the JSON lines (metrics included) with LOG=json, errors only with LOG=quiet', () => {
    const log = (env: Record<string, string>) => {
      const cli = parseCli([], env);
      return cli.kind === 'start' ? cli.options.log : cli;
    };
    expect(log({})).toBe('human');
    expect(log({ LOG: 'info' })).toBe('human');
    expect(log({ LOG: 'json' })).toBe('json');
    expect(log({ LOG: 'quiet' })).toBe('quiet');
    expect(usage()).toMatch(/^ {2}LOG +`info` \(default: short human lines, no metrics\), `json`/m);
  });

  /** Issue 25, point 8: `npm start --demo` (no `--`) reaches the script only as npm's npm_config_demo. */
  it('takes a flag given to npm itself (npm_config_<flag>=true) as the flag', () => {
    const options = (env: Record<string, string>, argv: string[] = []) => {
      const cli = parseCli(argv, env);
      if (cli.kind !== 'start') throw new Error(JSON.stringify(cli));
      return cli.options;
    };
    expect(options({ npm_config_demo: 'true' }).demo).toBe(true);
    expect(options({ npm_config_bundles: 'true' }).bundles).toBe(true);
    expect(options({ npm_config_memory: 'true' })).toMatchObject({ memory: true, dataDir: ':memory:' });
    expect(options({ npm_config_demo: 'false' }).demo).toBe(false);
    expect(options({}).demo).toBe(false);
    // npm keeps --help for itself; only our own flags are read.
    expect(parseCli([], { npm_config_help: 'true' }).kind).toBe('start');
    expect(usage()).toContain('npm_config_demo=true');
  });

  /**
   * DESIGN.md's local contract names `--memory` (issue 25 point 4, a changed behaviour): the whole service on the
   * in-memory fakes, no Java. A DATA_DIR folder means nothing there: said in one line, and the start goes on
   * (no folder made or locked); `--bundles` needs the engines and is refused with it in one line.
   */
  it('takes --memory as the in-memory fakes with no Java; says a DATA_DIR folder is not used; refuses --bundles with it', () => {
    expect(parseCli(['--memory'], {})).toMatchObject({ kind: 'start', options: { memory: true, dataDir: ':memory:' } });
    expect(parseCli(['--memory'], {})).not.toHaveProperty('options.notices');
    expect(parseCli(['--memory'], { DATA_DIR: ':memory:' })).toMatchObject({ kind: 'start', options: { memory: true, dataDir: ':memory:' } });
    expect(parseCli(['--memory'], { DATA_DIR: '/tmp/somewhere' })).toMatchObject({
      kind: 'start',
      options: { memory: true, dataDir: ':memory:', notices: ['DATA_DIR="/tmp/somewhere" is not used: --memory keeps nothing'] },
    });
    const both = parseCli(['--memory', '--bundles'], {});
    expect(both.kind).toBe('error');
    expect(both.kind === 'error' && both.message).toMatch(/^--bundles .*--memory .*drop one of them$/);
    expect(usage()).toMatch(/^ {2}--memory +run the whole service on the in-memory fakes: no Java/m);
    expect(usage()).not.toMatch(/Java still needed/);
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
      [{ LOG: 'verbose' }, /LOG is "info", "json" or "quiet", not "verbose"/],
      [{ LOG: 'toString' }, /LOG is "info", "json" or "quiet", not "toString"/],
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
    const read = new Set([...readFileSync(new URL('../../lib/local/process/cli.ts', import.meta.url), 'utf8').matchAll(/\benv\.([A-Z_]+)/g)].map((m) => m[1]));
    expect([...read].sort()).toEqual(ENVIRONMENT.map((e) => e.name).sort());
    for (const name of read) expect(text).toMatch(new RegExp(`^  ${name} `, 'm'));
    expect(text).toContain('--demo');
    expect(text).toContain('--bundles');
    expect(text).toContain('--memory');
  });
});
