import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ofType, synth } from '../infra/synth';
import { runChild } from '../support/run-child';

const root = join(__dirname, '..', '..');
const fixture = join(root, 'test', 'fixtures', 'cost-figures.json');
const dir = mkdtempSync(join(tmpdir(), 'cost-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `npm run cost -- …` as a user runs it. */
const cost = (...args: string[]) => runChild('npm', ['run', '--silent', 'cost', '--', ...args], { cwd: root, timeout: 180_000 });

describe('npm run cost', () => {
  it('writes {total_usd_month, lines: [{name, usd_month}]} and prints the table from a bench figures file', async () => {
    const out = join(dir, 'bill.json');
    const run = await cost('--figures', fixture, '--json', out);
    expect(run.status, run.stderr).toBe(0);
    const bill = JSON.parse(readFileSync(out, 'utf8')) as { total_usd_month: number; lines: Array<{ name: string; usd_month: number }> };
    expect(typeof bill.total_usd_month).toBe('number');
    expect(bill.lines.length).toBeGreaterThan(10);
    for (const l of bill.lines) {
      expect(Object.keys(l).sort()).toEqual(['name', 'usd_month']);
      expect(typeof l.name).toBe('string');
      expect(Number.isFinite(l.usd_month)).toBe(true);
    }
    const sum = bill.lines.reduce((s, l) => s + l.usd_month, 0);
    expect(Math.abs(sum - bill.total_usd_month)).toBeLessThan(0.01 * bill.lines.length);
    const names = bill.lines.map((l) => l.name);
    for (const expected of [
      'DynamoDB writes: merges',
      'DynamoDB reads: API reads',
      'Lambda merge (GB-s)',
      'Lambda requests',
      'API Gateway HTTP requests',
      'WebSocket messages',
      'WebSocket connection minutes',
      'S3 PUT/LIST requests',
      'S3 GET requests',
      'SQS requests',
      'EventBridge schedules',
      'DynamoDB storage',
      'S3 storage',
      // What an operator pays besides requests (issue 26 point 9).
      'CloudWatch Logs ingestion',
      'CloudWatch Logs storage',
      'CloudWatch custom metrics',
      'CloudWatch alarms',
      'CloudWatch dashboards',
      'X-Ray traces',
      'WAF',
      'Secrets Manager',
      'CloudFront: anonymous reads',
      'CloudFront: signed-in traffic',
      'CloudFront Functions',
      'DynamoDB units: anonymous misses',
    ]) {
      expect(names).toContain(expected);
    }
    // The alarms line counts production's synthesized alarms; the logs line names the measured bytes; what is left out is said.
    const alarms = ofType(synth('production'), 'AWS::CloudWatch::Alarm').length;
    expect(run.stdout).toMatch(new RegExp(`^CloudWatch alarms\\s+\\$\\d+\\.\\d\\d\\s+${alarms} alarms reading \\d+ metrics`, 'm'));
    expect(run.stdout).toMatch(/^CloudWatch Logs ingestion .*log lines .* \(measured\)/m);
    expect(run.stdout).toMatch(/^left out: .*support plans.*availability zones/m);
    expect(run.stdout).toMatch(/^total\s+\$\d+\.\d\d/m);
    expect(run.stdout).toMatch(/biggest line: .+ To halve it: /);
    expect(run.stdout).toMatch(/as of \d{4}-\d\d-\d\d/);
  });

  it('fails naming a figure the file lacks', async () => {
    const figures = (JSON.parse(readFileSync(fixture, 'utf8')) as Array<{ name: string }>).filter((f) => f.name !== 'cost.hour.wcu');
    const partial = join(dir, 'partial.json');
    writeFileSync(partial, JSON.stringify(figures));
    const run = await cost('--figures', partial, '--json', join(dir, 'never.json'));
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('"cost.hour.wcu"');
  });

  it('says it needs figures when given none', async () => {
    const run = await cost();
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/needs measured figures.*--figures PATH.*--measure/s);
  });
});
