import { describe, expect, it } from 'vitest';
import { FUNCTIONS, type FunctionName } from '../../lib/topology';
import { type Statement, actionsOf, environmentOf, ofType, statementsOf, synth } from './synth';

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

  it('grants bucket access exactly as each spec says', () => {
    const s = synth('dev');
    for (const spec of FUNCTIONS) {
      const st = statementsOf(s, spec.name);
      expect(allows(st, 's3:GetObject'), spec.name).toBe(spec.access.bucket !== 'none');
      expect(allows(st, 's3:PutObject'), spec.name).toBe(spec.access.bucket === 'write');
    }
  });

  it('gives the work bucket (internal state) only to the functions whose spec lists it, and its name only to them', () => {
    const s = synth('dev');
    const [[workId]] = ofType(s, 'AWS::S3::Bucket').filter(([id]) => id.startsWith('WorkBucket'));
    const expected = FUNCTIONS.filter((f) => f.access.workBucket === 'write').map((f) => f.name);
    expect(expected.sort()).toEqual(['api', 'snapshot']);
    for (const spec of FUNCTIONS) {
      const onWork = statementsOf(s, spec.name).filter((st) => st.Effect === 'Allow' && JSON.stringify(st.Resource).includes(`"${workId}"`));
      const has = spec.access.workBucket === 'write';
      expect(onWork.some((st) => actionsOf(st).some((a) => a.startsWith('s3:PutObject'))), spec.name).toBe(has);
      expect(onWork.some((st) => actionsOf(st).some((a) => a.startsWith('s3:GetObject'))), spec.name).toBe(has);
      expect('WORK_BUCKET_NAME' in environmentOf(s, spec.name), spec.name).toBe(has);
    }
  });

  it('lets only connection-pushing functions manage connections', () => {
    const s = synth('dev');
    for (const spec of FUNCTIONS) {
      expect(allows(statementsOf(s, spec.name), 'execute-api:ManageConnections'), spec.name).toBe(spec.access.connections === true);
    }
  });

  it('lets only listed functions read each secret', () => {
    const s = synth('dev');
    const [[identityId], [vapidId]] = ['SecretsIdentity', 'SecretsVapid'].map((p) => ofType(s, 'AWS::SecretsManager::Secret').find(([id]) => id.startsWith(p)) as [string, unknown]);
    for (const spec of FUNCTIONS) {
      const reads = statementsOf(s, spec.name).filter((st) => st.Effect === 'Allow' && actionsOf(st).includes('secretsmanager:GetSecretValue'));
      const readable = reads.map((st) => JSON.stringify(st.Resource));
      expect(readable.some((r) => r.includes(identityId)), `${spec.name} identity`).toBe(spec.access.secrets?.includes('identity') ?? false);
      expect(readable.some((r) => r.includes(vapidId)), `${spec.name} vapid`).toBe(spec.access.secrets?.includes('vapid') ?? false);
    }
  });

  it('lets upload send only to merge queues and merge only to the push queue', () => {
    const s = synth('dev');
    const sendTargets = (name: FunctionName) =>
      statementsOf(s, name)
        .filter((st) => actionsOf(st).includes('sqs:SendMessage'))
        .map((st) => JSON.stringify(st.Resource));
    expect(sendTargets('upload')).toHaveLength(6);
    expect(sendTargets('upload').every((r) => r.includes('MergeQueues'))).toBe(true);
    expect(sendTargets('merge')).toHaveLength(1);
    expect(sendTargets('merge')[0]).toContain('PushQueue');
    expect(sendTargets('api')).toHaveLength(7);
    expect(sendTargets('pages')).toHaveLength(0);
  });

  it('limits a preview to its own prefix of the shared dev bucket', () => {
    const st = statementsOf(synth('preview-abc'), 'snapshot').filter((x) => actionsOf(x).some((a) => a.startsWith('s3:')));
    // The preview's own work bucket aside: its objects are all the preview's.
    const objectResources = st
      .flatMap((x) => (Array.isArray(x.Resource) ? x.Resource : [x.Resource]))
      .map((r) => JSON.stringify(r))
      .filter((r) => r.includes('/') && !r.includes('"WorkBucket'));
    expect(objectResources.length).toBeGreaterThan(0);
    for (const r of objectResources) expect(r).toContain('/preview-abc/*');
  });

  it('gives no function a managed policy: each role writes only its own log group', () => {
    const s = synth('dev');
    const roles = ofType(s, 'AWS::IAM::Role').filter(([id]) => id.startsWith('Functions'));
    expect(roles).toHaveLength(FUNCTIONS.length);
    for (const [, role] of roles) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });
});
