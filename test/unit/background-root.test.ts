/**
 * Every root that is not an HTTP API runs its events through one middy chain (shared/telemetry/background-root.ts):
 * the function's telemetry, then the redaction of any error leaving it (redrive's root had no redaction before).
 * And the local runtime's one-run-at-a-time rule (lib/local/background/one-at-a-time.ts), shared by the
 * scheduler and the stream poller.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OneAtATime } from '../../lib/local/background/one-at-a-time';
import { backgroundRoot } from '../../shared/telemetry/background-root';
import { functionTelemetry } from '../../shared/telemetry/function-telemetry';
import { FUNCTIONS } from '../../shared/topology';

const ROOT = join(__dirname, '..', '..');
const HTTP_ROOTS = new Set(['api', 'upload', 'pages']);

describe('background roots', () => {
  it.each(FUNCTIONS.filter((f) => !HTTP_ROOTS.has(f.name)).map((f) => f.name))('lambdas/%s/handler.ts runs through backgroundRoot', (fn) => {
    expect(readFileSync(join(ROOT, 'lambdas', fn, 'handler.ts'), 'utf8')).toMatch(/backgroundRoot</);
  });

  it('redacts a secret from an error leaving the root, and answers what the handler answers', async () => {
    const t = functionTelemetry('redrive');
    const ok = backgroundRoot<{ n: number }, number>(t, async (event) => event.n * 2);
    expect(await ok({ n: 21 }, {} as never)).toBe(42);
    const secret = 'sk_live_0123456789abcdef0123456789abcdef';
    const failing = backgroundRoot<object, void>(t, async () => {
      throw new Error(`storage refused Authorization: Bearer ${secret}`);
    });
    const err = await failing({}, {} as never).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(Error);
    expect(String(err?.message)).not.toContain(secret);
  });
});

describe('one run at a time', () => {
  it('starts a second run only once the first has ended, and is busy meanwhile', async () => {
    const serial = new OneAtATime<string>();
    const order: string[] = [];
    let release!: () => void;
    const first = serial.run(
      () =>
        new Promise<string>((resolve) => {
          order.push('first started');
          release = () => resolve('first');
        }),
    );
    const second = serial.run(async () => {
      order.push('second started');
      return 'second';
    });
    await new Promise((r) => setTimeout(r, 5));
    expect(serial.busy).toBe(true);
    expect(order).toEqual(['first started']);
    release();
    expect(await first).toBe('first');
    expect(await second).toBe('second');
    expect(order).toEqual(['first started', 'second started']);
    expect(serial.busy).toBe(false);
  });

  it('idle() waits out a failing run without throwing; a run waiting on it sees the failure', async () => {
    const serial = new OneAtATime<number>();
    const failing = serial.run(async () => {
      await new Promise((r) => setTimeout(r, 5));
      throw new Error('consumer failed');
    });
    const waiting = serial.run(async () => 1);
    await expect(serial.idle()).resolves.toBeUndefined();
    await expect(failing).rejects.toThrow('consumer failed');
    await expect(waiting).rejects.toThrow('consumer failed');
  });
});
