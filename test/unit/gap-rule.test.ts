import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyRows, type GapState, MAX_CHANGES_PER_STEP, nextStep } from '../../shared/client/gap-rule';
import type { AuctionRow } from '../../shared/files/documents';

const url = (seq: number) => `https://cdn/live/v1/m/${seq}-cap.json.gz`;
const known = (from: number, to: number) => new Map(Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => [from + i, url(from + i)]));
const state = (s: Partial<GapState>): GapState => ({ have: null, target: 0, changes: new Map(), checkpoint: null, filesAsked: false, ...s });

describe('gap rule', () => {
  it('does nothing when the table is at or past the target', () => {
    expect(nextStep(state({ have: 5, target: 5 }))).toEqual({ kind: 'none' });
    expect(nextStep(state({ have: 7, target: 5 }))).toEqual({ kind: 'none' });
  });

  it('fetches the changes have+1 … target in seq order when all are known', () => {
    expect(nextStep(state({ have: 3, target: 6, changes: known(1, 9) }))).toEqual({ kind: 'changes', seqs: [4, 5, 6], urls: [url(4), url(5), url(6)] });
  });

  it('treats a notice of exactly have+1 as one change', () => {
    expect(nextStep(state({ have: 41, target: 42, changes: new Map([[42, url(42)]]) }))).toEqual({ kind: 'changes', seqs: [42], urls: [url(42)] });
  });

  it('applies at most 50 changes in one step', () => {
    expect(nextStep(state({ have: 10, target: 60, changes: known(11, 60) })).kind).toBe('changes');
    expect(nextStep(state({ have: 10, target: 61, changes: known(11, 61) }))).toEqual({ kind: 'files' });
  });

  it('starts from a known newer checkpoint when the changes cannot close the gap', () => {
    const checkpoint = { seq: 100, url: 'cp100' };
    expect(nextStep(state({ have: 10, target: 103, changes: known(11, 103), checkpoint }))).toEqual({
      kind: 'checkpoint',
      checkpoint,
      seqs: [101, 102, 103],
      urls: [url(101), url(102), url(103)],
    });
    expect(nextStep(state({ have: null, target: 100, checkpoint }))).toEqual({ kind: 'checkpoint', checkpoint, seqs: [], urls: [] });
    expect(nextStep(state({ have: 98, target: 101, changes: known(101, 101), checkpoint })).kind).toBe('checkpoint');
  });

  it('prefers the changes over a checkpoint when both would do', () => {
    const checkpoint = { seq: 50, url: 'cp50' };
    expect(nextStep(state({ have: 49, target: 51, changes: known(50, 51), checkpoint }))).toEqual({
      kind: 'changes',
      seqs: [50, 51],
      urls: [url(50), url(51)],
    });
  });

  it('never uses a checkpoint at or behind the table, ahead of the target, or followed by an unknown seq', () => {
    expect(nextStep(state({ have: 100, target: 102, changes: new Map([[102, url(102)]]), checkpoint: { seq: 100, url: 'cp' } })).kind).toBe('files');
    expect(nextStep(state({ have: null, target: 99, changes: known(1, 99), checkpoint: { seq: 100, url: 'cp' } })).kind).toBe('files');
    expect(nextStep(state({ have: null, target: 103, changes: known(102, 103), checkpoint: { seq: 100, url: 'cp' } })).kind).toBe('files');
  });

  it('asks the files route once per target, then loads the table', () => {
    expect(nextStep(state({ have: null, target: 3 }))).toEqual({ kind: 'files' });
    expect(nextStep(state({ have: null, target: 3, filesAsked: true }))).toEqual({ kind: 'table' });
    expect(nextStep(state({ have: 1, target: 3, changes: new Map([[3, url(3)]]), filesAsked: true }))).toEqual({ kind: 'table' });
  });

  it('never fetches a change at or behind the table and never more than 50 (property)', () => {
    const arb = fc.record({
      have: fc.option(fc.nat({ max: 160 }), { nil: null }),
      target: fc.nat({ max: 160 }),
      knownSeqs: fc.uniqueArray(fc.integer({ min: 1, max: 160 }), { maxLength: 160 }),
      checkpointSeq: fc.option(fc.integer({ min: 1, max: 160 }), { nil: null }),
      filesAsked: fc.boolean(),
    });
    fc.assert(
      fc.property(arb, ({ have, target, knownSeqs, checkpointSeq, filesAsked }) => {
        const changes = new Map(knownSeqs.map((s) => [s, url(s)]));
        const checkpoint = checkpointSeq === null ? null : { seq: checkpointSeq, url: `cp${checkpointSeq}` };
        const step = nextStep({ have, target, changes, checkpoint, filesAsked });
        const range = (from: number) => Array.from({ length: target - from }, (_, i) => from + 1 + i);
        if (have !== null && have >= target) {
          expect(step.kind).toBe('none');
          return;
        }
        if (step.kind === 'changes') {
          expect(have).not.toBeNull();
          expect(step.seqs).toEqual(range(have!));
          expect(step.seqs.length).toBeLessThanOrEqual(MAX_CHANGES_PER_STEP);
          expect(step.urls).toEqual(step.seqs.map(url));
        } else if (step.kind === 'checkpoint') {
          expect(step.checkpoint.seq).toBeLessThanOrEqual(target);
          if (have !== null) expect(step.checkpoint.seq).toBeGreaterThan(have);
          expect(step.seqs).toEqual(range(step.checkpoint.seq));
          expect(step.seqs.length).toBeLessThanOrEqual(MAX_CHANGES_PER_STEP);
          expect(step.seqs.every((s) => changes.has(s))).toBe(true);
        } else {
          expect(step.kind).toBe(filesAsked ? 'table' : 'files');
          if (have !== null && target - have <= MAX_CHANGES_PER_STEP) expect(range(have).every((s) => changes.has(s))).toBe(false);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('applyRows', () => {
  it('replaces a row when there is none or its at is at least the stored one', () => {
    const table = new Map<number, AuctionRow>([
      [1, [1, 100, 2, 50]],
      [2, [2, 200, 3, 50]],
      [3, [3, 300, 4, 50]],
    ]);
    const applied = applyRows(table, [
      [1, 90, 1, 49],
      [2, null, 0, 50],
      [3, 310, 5, 51],
      [4, 40, 1, 10],
    ]);
    expect(applied).toBe(3);
    expect([...table.values()]).toEqual([
      [1, 100, 2, 50],
      [2, null, 0, 50],
      [3, 310, 5, 51],
      [4, 40, 1, 10],
    ]);
  });
});
