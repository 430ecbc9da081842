import { describe, expect, it } from 'vitest';
import { FUNCTIONS, type FunctionName } from '../../shared/topology';
import { actionsOf, environmentOf, mentions, ofType, resourcesOf, type Statement, statementsOf, synth } from './synth';

/**
 * Written out here rather than taken from the manifest, so a manifest change that grants one more function
 * cannot move the expectation with it (docs/deploying.md: only merge, seal and retention may write `MKT#`).
 */
const MARKET_PAGE_WRITERS: FunctionName[] = ['merge', 'retention', 'seal'];
/** Functions that post to, describe or close sockets (docs/security.md). */
const CONNECTION_MANAGERS: FunctionName[] = ['fanout', 'live-sweep', 'ws-message'];
/** Who reads each secret, from the code that reads it. */
const SECRET_READERS: Record<'identity' | 'vapid' | 'vapidPublic' | 'origin' | 'uploader', FunctionName[]> = {
  identity: ['api', 'live-sweep', 'merge', 'upload', 'ws-connect', 'ws-message'],
  // Only the push function signs pushes; the api tells browsers the public key (issue 23 point 5).
  vapid: ['push'],
  vapidPublic: ['api'],
  origin: ['api', 'pages', 'upload', 'ws-connect'],
  uploader: ['upload'],
};

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
  it('lets only merge, seal and retention write market pages', () => {
    expect(marketPageWriters('dev').sort()).toEqual(MARKET_PAGE_WRITERS);
    expect(marketPageWriters('production').sort()).toEqual(MARKET_PAGE_WRITERS);
    expect(marketPageWriters('preview-abc').sort()).toEqual(MARKET_PAGE_WRITERS);
  });

  it('denies other writers every write whose partition key starts with MKT#', () => {
    const s = synth('dev');
    const writers = FUNCTIONS.filter((f) => allows(statementsOf(s, f.name), 'dynamodb:PutItem') && !MARKET_PAGE_WRITERS.includes(f.name));
    expect(writers.length).toBeGreaterThan(0);
    for (const spec of writers) {
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

  it('gives the work bucket (internal state) only to the functions whose spec lists it, and its name only to them', () => {
    const s = synth('dev');
    const [[workId]] = ofType(s, 'AWS::S3::Bucket').filter(([id]) => id.startsWith('WorkBucket'));
    const expected = FUNCTIONS.filter((f) => f.access.workBucket === 'write').map((f) => f.name);
    expect(expected.sort()).toEqual(['api', 'snapshot']);
    for (const spec of FUNCTIONS) {
      const onWork = statementsOf(s, spec.name).filter((st) => st.Effect === 'Allow' && JSON.stringify(st.Resource).includes(`"${workId}"`));
      const has = spec.access.workBucket === 'write';
      expect(
        onWork.some((st) => actionsOf(st).some((a) => a.startsWith('s3:PutObject'))),
        spec.name,
      ).toBe(has);
      expect(
        onWork.some((st) => actionsOf(st).some((a) => a.startsWith('s3:GetObject'))),
        spec.name,
      ).toBe(has);
      expect('WORK_BUCKET_NAME' in environmentOf(s, spec.name), spec.name).toBe(has);
    }
  });

  it('lets only connection-pushing functions manage connections', () => {
    const s = synth('dev');
    for (const spec of FUNCTIONS) {
      expect(allows(statementsOf(s, spec.name), 'execute-api:ManageConnections'), spec.name).toBe(CONNECTION_MANAGERS.includes(spec.name));
    }
  });

  it('lets only listed functions read each secret', () => {
    const s = synth('dev');
    for (const name of ['identity', 'vapid', 'vapidPublic', 'origin', 'uploader'] as const) {
      // `SecretsVapid<hash>` and `SecretsVapidPublic<hash>`: the construct id exactly, then CDK's 8-character hash.
      const id = new RegExp(`^Secrets${name[0].toUpperCase()}${name.slice(1)}[0-9A-F]{8}$`);
      const [secretId] = ofType(s, 'AWS::SecretsManager::Secret').find(([logical]) => id.test(logical)) as [string, unknown];
      for (const spec of FUNCTIONS) {
        const reads = statementsOf(s, spec.name).filter((st) => st.Effect === 'Allow' && actionsOf(st).includes('secretsmanager:GetSecretValue'));
        expect(
          reads.some((st) => JSON.stringify(st.Resource).includes(secretId)),
          `${spec.name} ${name}`,
        ).toBe(SECRET_READERS[name].includes(spec.name));
      }
    }
  });

  it('lets upload send only to merge queues, merge only to the push queue and the rejected merges', () => {
    const s = synth('dev');
    // A scheduled function's own failed-runs queue is Lambda's on-failure destination (issue 26 point 3), not its code's.
    const sendTargets = (name: FunctionName) =>
      statementsOf(s, name)
        .filter((st) => actionsOf(st).includes('sqs:SendMessage'))
        .flatMap((st) => resourcesOf(st).map((r) => JSON.stringify(r)))
        .filter((r) => !r.includes(`Schedules${name.replace('-', '')}FailedRuns`));
    expect(sendTargets('upload')).toHaveLength(6);
    expect(sendTargets('upload').every((r) => r.includes('MergeQueues'))).toBe(true);
    expect(sendTargets('merge')).toHaveLength(2);
    expect(sendTargets('merge').filter((r) => r.includes('PushQueue'))).toHaveLength(1);
    expect(sendTargets('merge').filter((r) => r.includes('MergeQueuesRejected'))).toHaveLength(1);
    expect(sendTargets('redrive')).toHaveLength(7);
    expect(sendTargets('redrive').every((r) => r.includes('MergeQueues') && !r.includes('DeadLetters'))).toBe(true);
    expect(sendTargets('api')).toHaveLength(0);
    expect(sendTargets('pages')).toHaveLength(0);
  });

  it('lets only the redrive function take the merge dead letters, and gives it nothing to write but queues', () => {
    const s = synth('dev');
    const merge = ofType(s, 'AWS::SQS::Queue').filter(([, q]) => q.Properties.RedrivePolicy && q.Properties.FifoQueue);
    const dlqs = merge.map(
      ([, q]) => (q.Properties.RedrivePolicy as { deadLetterTargetArn: { 'Fn::GetAtt': [string, string] } }).deadLetterTargetArn['Fn::GetAtt'][0],
    );
    expect(dlqs).toHaveLength(6);
    const takes = (name: FunctionName, id: string) =>
      statementsOf(s, name).some(
        (st) =>
          st.Effect === 'Allow' && actionsOf(st).includes('sqs:ReceiveMessage') && actionsOf(st).includes('sqs:DeleteMessage') && mentions(st.Resource, id),
      );
    for (const spec of FUNCTIONS) for (const dlq of dlqs) expect(takes(spec.name, dlq), `${spec.name} ${dlq}`).toBe(spec.name === 'redrive');
    const st = statementsOf(s, 'redrive');
    expect(allows(st, 'dynamodb:GetItem')).toBe(true);
    for (const action of TABLE_WRITES) expect(allows(st, action), action).toBe(false);
    expect(allows(st, 's3:GetObject')).toBe(true);
    expect(allows(st, 's3:PutObject')).toBe(false);
    expect(allows(st, 's3:DeleteObject')).toBe(false);
    expect(allows(st, 'execute-api:ManageConnections')).toBe(false);
    expect(allows(st, 'secretsmanager:GetSecretValue')).toBe(false);
  });

  it('lets the merge function back off failed messages of its own queues only', () => {
    const s = synth('dev');
    const merge = ofType(s, 'AWS::SQS::Queue').filter(([, q]) => q.Properties.RedrivePolicy && q.Properties.FifoQueue);
    const hides = (name: FunctionName) =>
      statementsOf(s, name)
        .filter((st) => st.Effect === 'Allow' && actionsOf(st).includes('sqs:ChangeMessageVisibility'))
        .flatMap((st) => resourcesOf(st).map((r) => JSON.stringify(r)));
    for (const [id] of merge)
      expect(
        hides('merge').some((r) => r.includes(`"${id}"`)),
        id,
      ).toBe(true);
    expect(hides('merge')).toHaveLength(merge.length);
    expect(hides('upload')).toHaveLength(0);
  });

  it('limits a preview to its own prefix of the shared dev bucket', () => {
    const st = statementsOf(synth('preview-abc'), 'snapshot').filter((x) => actionsOf(x).some((a) => a.startsWith('s3:')));
    // The preview's own work bucket aside: its objects are all the preview's.
    const objectResources = st
      .flatMap((x) => (Array.isArray(x.Resource) ? x.Resource : [x.Resource]))
      .map((r) => JSON.stringify(r))
      .filter((r) => r.includes('/') && !r.includes('"WorkBucket'));
    expect(objectResources.length).toBeGreaterThan(0);
    for (const r of objectResources) expect(r).toContain('/preview-abc/');
  });

  it('gives no function a managed policy: each role writes only its own log group', () => {
    const s = synth('dev');
    const roles = ofType(s, 'AWS::IAM::Role').filter(([id]) => id.startsWith('Functions'));
    expect(roles).toHaveLength(FUNCTIONS.length);
    for (const [, role] of roles) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });
});
