/**
 * Issue 14 point 1-2: a bench figure that cannot be measured is reported MISSING and fails the run, never
 * replaced by another; a run where every figure was measured exits 0 even when a target is missed. And the
 * runner imports every bench module statically (no "module absent" fallback that hides a broken import).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FigureReport, renderMarkdown } from '../bench/report';

const quiet = (lines: string[]) => (line: string) => lines.push(line);

describe('bench report', () => {
  it('prints a figure whose bench threw as MISSING, with the reason, and exits 1', async () => {
    const lines: string[] = [];
    const r = new FigureReport(['a.ok', 'b.one', 'b.two'], quiet(lines));
    await r.section(['a.ok'], () => r.add({ name: 'a.ok', value: 3, unit: 'ms', target: '<= 5', max: 5 }));
    await r.section(['b.one', 'b.two'], async () => {
      r.add({ name: 'b.one', value: 7, unit: 'ms', target: 'report' });
      throw new Error("Cannot find module './reads'");
    });
    expect(r.finish()).toBe(1);
    expect(r.missing).toEqual(['b.two']);
    expect(r.figures).toEqual([
      { name: 'a.ok', value: 3, unit: 'ms', target: '<= 5' },
      { name: 'b.one', value: 7, unit: 'ms', target: 'report' },
      { name: 'b.two', value: null, unit: '', target: '' },
    ]);
    const missingLine = lines.find((l) => l.startsWith('b.two'));
    expect(missingLine).toContain('MISSING');
    expect(missingLine).toContain("Cannot find module './reads'");
  });

  it('a figure never printed, or not a finite number, is MISSING', () => {
    const r = new FigureReport(['x', 'y'], quiet([]));
    r.add({ name: 'x', value: Number.NaN, unit: 'ms', target: 'report' });
    expect(r.finish()).toBe(1);
    expect(r.missing).toEqual(['x', 'y']);
  });

  it('every figure measured exits 0 even when a target is missed (printed MISSED)', () => {
    const lines: string[] = [];
    const r = new FigureReport(['slow'], quiet(lines));
    r.add({ name: 'slow', value: 9000, unit: 'ms', target: '<= 3000', max: 3000 });
    expect(r.finish()).toBe(0);
    expect(lines.find((l) => l.startsWith('slow'))).toMatch(/9000 .*MISSED/);
  });

  it('a figure outside the list cannot stand in for one', () => {
    const r = new FigureReport(['read.item_read_units'], quiet([]));
    expect(() => r.add({ name: 'read.store_level_units', value: 1, unit: 'RCU', target: 'report' })).toThrow(/not in the bench's list/);
  });

  it('the runner imports every bench module statically, with no fallback', () => {
    const run = readFileSync(new URL('../bench/run.ts', import.meta.url), 'utf8');
    expect(run).not.toMatch(/\bimport\s*\(/);
    expect(run).not.toMatch(/optional/);
    for (const m of ['./engine', './merge-cost', './merge-cpu', './reads', './live', './report']) expect(run).toContain(`from '${m}'`);
    for (const f of ['read.history_cold_ms', 'read.intraday_cold_ms', 'files.snapshot_cold_ms', 'live.fanout_2000_ms', 'read.item_read_units'])
      expect(run).toContain(`'${f}'`);
  });

  it('renders the run as one Markdown table headed by its date, commit and load, misses and notes included', async () => {
    const r = new FigureReport(['a.ms', 'b.units', 'c.gone'], quiet([]));
    r.add({ name: 'a.ms', value: 136.3, unit: 'ms', target: '<= 130', max: 130, note: 'mean 137.8 | process 177.8' });
    r.add({ name: 'b.units', value: 480, unit: 'WCU', target: '<= 600', max: 600 });
    await r.section(['c.gone'], () => {
      throw new Error('socket hang up');
    });
    r.finish();
    const md = renderMarkdown(r.rows, {
      started: new Date(Date.UTC(2026, 10, 28, 15, 2)),
      ended: new Date(Date.UTC(2026, 10, 28, 15, 14)),
      commit: 'abc1234',
      node: 'v20.19.0',
      loadStart: 0.21,
      loadEnd: 1.04,
      cpus: 2,
    }).split('\n');
    expect(md[0]).toBe('Run of 2026-11-28, 15:02–15:14 UTC, commit abc1234, Node v20.19.0, 2 cores, load average 0.2 at the start and 1.0 at the end.');
    expect(md).toContain('| `a.ms` | 136.3 | ms | <= 130 | MISSED | mean 137.8 \\| process 177.8 |');
    expect(md).toContain('| `b.units` | 480 | WCU | <= 600 | ok |  |');
    expect(md).toContain('| `c.gone` | – |  |  | MISSING | socket hang up |');
  });
});
