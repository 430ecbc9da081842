import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MARKET, makeBook, uploadBook } from '../support/books';
import { pairDevice } from '../support/devices';
import { type Local, startLocal } from '../support/local';

const MINUTE = 60_000;

type Emf = Record<string, unknown> & {
  _aws: { CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string; Unit: string }> }> };
};

/** The EMF lines (metrics) among the lines heard. */
const emf = (lines: string[]): Emf[] => lines.filter((l) => l.includes('"_aws"')).map((l) => JSON.parse(l) as Emf);
/** The sum of a metric's values over the EMF lines of a service (a name counted twice in one flush is an array). */
const total = (lines: Emf[], service: string, name: string): number =>
  lines.filter((l) => l.service === service && name in l).reduce((s, l) => s + [l[name]].flat().reduce((a: number, v) => a + Number(v), 0), 0);

/**
 * Integration (issue 12, point 4): the local runtime's functions write Powertools' structured lines (request
 * id, cold start, service = function) and EMF metrics to the runtime's log sink, as they would in AWS.
 */
describe('telemetry through the local runtime', () => {
  let local: Local;
  const heard: string[] = [];

  beforeAll(async () => {
    local = await startLocal();
    local.runtime.tapLog((line) => heard.push(line));
  });
  afterAll(() => local.close());

  it('counts an accepted and a refused upload, the merge, and a read by status class', async () => {
    const now = await local.now();
    const user = await local.user({ plan: 'premium' });
    const device = await pairDevice(local, user.id);
    const key = await local.apiKey(user.id);
    heard.length = 0;
    expect((await uploadBook(local, device.token, makeBook(now - MINUTE, { keys: 40 }))).status).toBe(200);
    expect(await uploadBook(local, device.token, { ...makeBook(now - MINUTE), market: 'nope' })).toMatchObject({ status: 400, body: { error: 'bad_market' } });
    await local.settle();
    expect((await local.api('GET', `/api/v1/ah/${MARKET}`, { token: key })).status).toBe(200);
    expect((await local.api('GET', `/api/v1/ah/${MARKET}/no-such-thing`, { token: key })).status).toBe(400);
    expect((await local.api('GET', '/api/v1/ah/nope', { token: key })).status).toBe(400);

    const metrics = emf(heard);
    for (const l of metrics) expect(l._aws.CloudWatchMetrics[0].Namespace).toBe('MarketData');
    // Uploads: one accepted, one refused with its code as a dimension; both answers counted by class.
    expect(total(metrics, 'upload', 'uploads_accepted')).toBe(1);
    const refused = metrics.filter((l) => l.service === 'upload' && 'uploads_refused' in l);
    expect(refused.map((l) => [l.code, l.uploads_refused, l._aws.CloudWatchMetrics[0].Dimensions])).toEqual([['bad_market', 1, [['service', 'code']]]]);
    expect(total(metrics, 'upload', 'answers_2xx')).toBe(1);
    expect(total(metrics, 'upload', 'answers_4xx')).toBe(1);
    // The merge: its market as a dimension, 40 rows changed, a duration, the page writes' units.
    const merged = metrics.filter((l) => l.service === 'merge' && 'merge_rows_changed' in l);
    expect(merged.map((l) => [l.market, l.merge_rows_changed])).toEqual([[MARKET, 40]]);
    expect(metrics.filter((l) => l.service === 'merge' && typeof l.merge_duration_ms === 'number' && l.market === MARKET)).toHaveLength(1);
    expect(total(metrics, 'merge', 'write_units')).toBeGreaterThan(0);
    // The reads: a 200 and two 400s of the api function.
    expect(total(metrics, 'api', 'answers_2xx')).toBe(1);
    expect(total(metrics, 'api', 'answers_4xx')).toBe(2);
    expect(total(metrics, 'api', 'answers_5xx')).toBe(0);
  });

  it('writes the merge log line with Powertools fields: service, cold start, request id, timestamp', async () => {
    const lines = heard.filter((l) => !l.includes('"_aws"')).map((l) => JSON.parse(l) as Record<string, unknown>);
    const merge = lines.find((l) => l.message === 'merge');
    expect(merge).toMatchObject({
      level: 'info',
      service: 'merge',
      function_name: 'merge',
      market: MARKET,
      cold_start: expect.any(Boolean),
      timestamp: expect.any(String),
    });
    expect(merge?.function_request_id).toMatch(/^[0-9a-f-]{36}$/);
  });
});
