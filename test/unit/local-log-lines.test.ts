import { describe, expect, it } from 'vitest';
import { humanLine, printedLine } from '../../lib/local/process/log-lines';

/** A merge log line as the functions write it (Powertools fields, then the line's own). */
const MERGE = JSON.stringify({
  level: 'info',
  message: 'merge',
  timestamp: '2026-11-28T04:31:07.123Z',
  service: 'merge',
  cold_start: true,
  function_name: 'merge',
  function_memory_size: 1024,
  function_request_id: '1b4e28ba-2fa1-11d2-883f-0016a0c1e3b1',
  market: 'forever.normal.alliance.us',
  rows: 40,
});
const EMF = JSON.stringify({
  _aws: { Timestamp: 1, CloudWatchMetrics: [{ Namespace: 'MarketData', Dimensions: [['service']], Metrics: [{ Name: 'answers_2xx', Unit: 'Count' }] }] },
  service: 'api',
  answers_2xx: 1,
});

/** Issue 25, point 8: on a terminal, short human lines; metrics only when asked (LOG=json). */
describe('the lines npm start prints', () => {
  it('turns a log line into one short line: time, level, service, message, its own fields', () => {
    expect(humanLine(MERGE)).toBe('04:31:07 info  merge: merge market=forever.normal.alliance.us rows=40');
  });

  it('drops metric blobs and keeps a line that is not JSON as it came', () => {
    expect(humanLine(EMF)).toBeNull();
    expect(humanLine('plain text')).toBe('plain text');
  });

  it('keeps one line of a stack and at most 240 characters', () => {
    const error = JSON.stringify({
      level: 'error',
      message: 'schedule seal failed',
      timestamp: '2026-11-28T04:31:07.123Z',
      service: 'market-data',
      error: `Error: boom\n    at x (file.ts:1:1)\n${'    at y\n'.repeat(50)}`,
      detail: 'x'.repeat(500),
    });
    const line = humanLine(error)!;
    expect(line).not.toContain('\n');
    expect(line.startsWith('04:31:07 error market-data: schedule seal failed error=Error: boom detail=xxx')).toBe(true);
    expect(line.length).toBeLessThanOrEqual(240);
  });

  it('prints per mode: human lines without metrics, the JSON lines as they are, or errors only', () => {
    expect(printedLine('human', MERGE, 'info')).toMatch(/^04:31:07 info {2}merge: merge /);
    expect(printedLine('human', EMF, 'info')).toBeNull();
    expect(printedLine('json', MERGE, 'info')).toBe(MERGE);
    expect(printedLine('json', EMF, 'info')).toBe(EMF);
    expect(printedLine('quiet', MERGE, 'info')).toBeNull();
    expect(printedLine('quiet', MERGE.replace('"info"', '"error"'), 'error')).toMatch(/^04:31:07 error merge: merge /);
  });
});
