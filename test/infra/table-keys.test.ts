import { describe, expect, it } from 'vitest';
import type { FunctionName } from '../../shared/topology';
import { actionsOf, mentions, ofType, type Statement, statementsOf, synth } from './synth';

/**
 * The partition key families each function's code touches (its ports' adapters and the port methods its code
 * calls), written out here rather than taken from the manifest (issue 23 point 5), as `dynamodb:LeadingKeys`
 * patterns. `write`: it may write items of those families too (market pages only with the explicit allowance
 * least-privilege.test.ts checks).
 */
const CALLERS = ['USER#*', 'DEVTOK#*', 'APIKEY#*', 'RATE#*'];
const SOCKETS = ['CONN#*', 'LIVE#*', 'LIVEC#*', 'USER#*'];
const MARKET = ['MKT#*', 'FILES#*', 'CAP#*'];
const CATALOGUE = ['ITEMS', 'CAT#*', 'CATREP#*', 'CATACC#*', 'CATALOGUE'];

const EXPECTED: Record<FunctionName, { keys: string[]; write: boolean }> = {
  api: {
    keys: [...CALLERS, 'PAIR#*', 'PAIRCODE#*', ...MARKET, 'VIEW#*', 'UPL#*', ...CATALOGUE, 'ALERTS#*', 'ALERTFIRED#*', 'PUSHEP#*'],
    write: true,
  },
  upload: { keys: [...CALLERS, ...MARKET, 'UPL#*', ...CATALOGUE], write: true },
  pages: { keys: [...CALLERS, ...MARKET, 'VIEW#*', ...CATALOGUE], write: false },
  'ws-connect': { keys: [...CALLERS, ...SOCKETS], write: true },
  'ws-message': { keys: [...CALLERS, ...SOCKETS], write: true },
  'ws-disconnect': { keys: SOCKETS, write: true },
  merge: { keys: [...MARKET, 'USER#*', 'ALERTS#*', 'ALERTFIRED#*', 'PUSHEP#*'], write: true },
  fanout: { keys: [...SOCKETS, ...MARKET], write: true },
  push: { keys: ['USER#*', 'PUSHEP#*'], write: true },
  seal: { keys: MARKET, write: true },
  snapshot: { keys: [...MARKET, 'VIEW#*', ...CATALOGUE], write: true },
  retention: { keys: [...MARKET, 'UPL#*', ...CATALOGUE], write: true },
  items: { keys: [...CATALOGUE, ...MARKET], write: true },
  'live-sweep': { keys: [...CALLERS, ...SOCKETS], write: true },
  redrive: { keys: MARKET, write: false },
};

const READS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'];
const WRITES = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
const sorted = (list: string[]): string[] => [...new Set(list)].sort();

/** A function's Allow statements on the table itself (not its stream). */
function tableAllows(stage: string, name: FunctionName): Statement[] {
  const s = synth(stage);
  const [[tableId]] = ofType(s, 'AWS::DynamoDB::Table');
  return statementsOf(s, name).filter(
    (st) =>
      st.Effect === 'Allow' &&
      mentions(st.Resource, tableId) &&
      actionsOf(st).some((a) => a.startsWith('dynamodb:')) &&
      !JSON.stringify(st.Resource).includes('StreamArn'),
  );
}

describe('least privilege inside the table: each function touches only its key families', () => {
  for (const stage of ['dev', 'production', 'preview-abc']) {
    it(`lists exactly each function's partition key families in its table policy (${stage})`, () => {
      for (const [name, want] of Object.entries(EXPECTED) as Array<[FunctionName, (typeof EXPECTED)[FunctionName]]>) {
        const allows = tableAllows(stage, name);
        expect(allows, `${name}: one statement grants the table`).toHaveLength(1);
        const [st] = allows;
        expect(sorted(actionsOf(st)), name).toEqual(sorted(want.write ? [...READS, ...WRITES] : READS));
        expect(sorted((st.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] ?? []) as string[]), name).toEqual(sorted(want.keys));
        // ForAllValues passes a request without leading keys: the Null check refuses it.
        expect(st.Condition?.Null, name).toEqual({ 'dynamodb:LeadingKeys': 'false' });
        expect(Object.keys(st.Condition ?? {}).sort(), name).toEqual(['ForAllValues:StringLike', 'Null']);
      }
    });
  }

  it('lets no function scan the table, nor use a table-wide wildcard action', () => {
    const s = synth('dev');
    for (const name of Object.keys(EXPECTED) as FunctionName[]) {
      for (const st of statementsOf(s, name).filter((x) => x.Effect === 'Allow')) {
        for (const a of actionsOf(st)) {
          expect(a === 'dynamodb:Scan' || a === 'dynamodb:*' || a === '*', `${name} ${a}`).toBe(false);
        }
      }
    }
  });

  it('leaves API key verdicts, device tokens and hourly answers out of the socket and push functions', () => {
    for (const name of ['ws-disconnect', 'push', 'fanout'] as const) {
      const keys = (tableAllows('dev', name)[0].Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] ?? []) as string[];
      expect(keys.length, `${name}: an allow-list of key families`).toBeGreaterThan(0);
      for (const forbidden of ['APIKEY#*', 'DEVTOK#*', 'VIEW#*']) expect(keys, name).not.toContain(forbidden);
    }
  });
});
