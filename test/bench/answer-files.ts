/**
 * Figures for big answers (issue 13 point 3): a 30-day history of a 20000-key market through the redirect
 * (303, then the file host) against the time the function spends building it, and the file sizes.
 * Run alone with `npx tsx test/bench/answer-files.ts`.
 */
import { startRuntime } from '../../lib/local/runtime';
import { DAY_MS, dayOf, type ManualClock } from '../../shared/clock';
import { fillBigMarket } from '../support/big-market';

const MARKET = 'forever.rp.horde.us';
const NOW = Date.UTC(2026, 11, 2, 10, 30, 0);

const rt = await startRuntime({ port: 0, dataDir: ':memory:', clock: 'manual', clockStart: NOW - 31 * DAY_MS, log: false });
try {
  await fillBigMarket(rt.clock as ManualClock, MARKET, NOW);
  const post = async (path: string, body: unknown) =>
    (await (
      await fetch(`${rt.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    ).json()) as Record<string, string>;
  const user = await post('/_local/users', { plan: 'premium' });
  const { token } = await post('/_local/sessions', { userId: user.id, expiresIn: 86_400 });
  for (const encoding of ['identity', 'gzip', 'identity', 'gzip']) {
    const t0 = performance.now();
    const res = await fetch(`${rt.base}/api/v1/ah/${MARKET}/history?from=${dayOf(NOW) - 30}`, {
      headers: { authorization: `Bearer ${token}`, 'accept-encoding': encoding },
      redirect: 'manual',
    });
    const t1 = performance.now();
    const file = await fetch(res.headers.get('location') ?? '', { headers: { 'accept-encoding': encoding } });
    const body = (await file.arrayBuffer()).byteLength;
    // fetch inflates gzip: the stored (transferred) size is the file's Content-Length.
    const bytes = Number(file.headers.get('content-length') ?? body);
    const t2 = performance.now();
    console.log(
      `${encoding}: ${res.status} in ${(t1 - t0).toFixed(0)} ms (answer built, written, redirect), file ${file.headers.get('content-encoding') ?? 'plain'} ${(bytes / 1e6).toFixed(1)} MB in ${(t2 - t1).toFixed(0)} ms`,
    );
  }
} finally {
  await rt.close();
}
