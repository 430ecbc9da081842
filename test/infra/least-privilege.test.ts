import { describe, expect, it } from 'vitest';
import { FUNCTIONS, type FunctionName } from '../../lib/topology';
import { type Statement, actionsOf, ofType, statementsOf, synth } from './synth';

const TABLE_WRITES = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

const allows = (statements: Statement[], action: string): boolean =>
  statements.some((st) => st.Effect === 'Allow' && actionsOf(st).some((a) => a === action || (a.endsWith('*') && action.startsWith(a.slice(0, -1)))));

/** The explicit deny of writes to market pages, if the function has it. */
const marketPageDeny = (statements: Statement[]): Statement | undefined =>
  statements.find((st) => st.Effect === 'Deny' && TABLE_WRITES.every((a) => actionsOf(st).includes(a)) && st.Condition !== undefined);

/** Functions that can write market pages: they may write the table and nothing denies `MKT#` keys. */
function marketPageWriters(stage: string): FunctionName[] {
  const s = synth(stage);
  return FUNCTIONS.filter((spec) => {
    const st = statementsOf(s, spec.name);
    return allows(st, 'dynamodb:PutItem') && marketPageDeny(st) === undefined;
  }).map((spec) => spec.name);
}

describe('least privilege', () => {
  it('lets only the functions with marketPages access (merge among them) write market pages', () => {
    const expected = FUNCTIONS.filter((f) => f.access.marketPages).map((f) => f.name).sort();
    expect(expected).toContain('merge');
    expect(expected).not.toContain('pages');
    expect(marketPageWriters('dev').sort()).toEqual(expected);
    expect(marketPageWriters('production').sort()).toEqual(expected);
  });

  it('denies other writers every write whose partition key starts with MKT#', () => {
    const s = synth('dev');
    for (const spec of FUNCTIONS.filter((f) => f.access.table === 'write' && !f.access.marketPages)) {
      expect(marketPageDeny(statementsOf(s, spec.name))?.Condition, spec.name).toEqual({ 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': ['MKT#*'] } });
    }
  });

  it('keeps the pages function from writing the table or the bucket', () => {
    const st = statementsOf(synth('dev'), 'pages');
    expect(allows(st, 'dynamodb:GetItem')).toBe(true);
    for (const action of [...TABLE_WRITES, 'dynamodb:PartiQLInsert']) expect(allows(st, action), action).toBe(false);
    expect(allows(st, 's3:GetObject')).toBe(true);
    expect(allows(st, 's3:PutObject')).toBe(false);
    expect(allows(st, 's3:DeleteObject')).toBe(false);
  });

  it('lets only connection-pushing functions manage connections', () => {
    const s = synth('dev');
    for (const spec of FUNCTIONS) {
      expect(allows(statementsOf(s, spec.name), 'execute-api:ManageConnections'), spec.name).toBe(spec.access.connections === true);
    }
  });

  it('lets only listed functions read each secret', () => {
    const s = synth('dev');
    for (const name of ['identity', 'vapid', 'origin', 'uploader'] as const) {
      const [secretId] = ofType(s, 'AWS::SecretsManager::Secret').find(([id]) => id.toLowerCase().startsWith(`secrets${name}`)) as [string, unknown];
      for (const spec of FUNCTIONS) {
        const reads = statementsOf(s, spec.name).filter((st) => st.Effect === 'Allow' && actionsOf(st).includes('secretsmanager:GetSecretValue'));
        expect(reads.some((st) => JSON.stringify(st.Resource).includes(secretId)), `${spec.name} ${name}`).toBe(spec.access.secrets?.includes(name) ?? false);
      }
    }
  });

  it('gives no function a managed policy: each role writes only its own log group', () => {
    const s = synth('dev');
    const roles = ofType(s, 'AWS::IAM::Role').filter(([id]) => id.startsWith('Functions'));
    expect(roles).toHaveLength(FUNCTIONS.length);
    for (const [, role] of roles) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });
});
