import { describe, expect, it } from 'vitest';
import { evaluate, globMatch, type ResolvedStatement } from '../../lib/local/iam/policy';

const TABLE = 'arn:aws:dynamodb:us-east-1:000000000000:table/market-data-x';
const BUCKET = 'arn:aws:s3:::market-files-x';

/** The shapes the stack's role policies have (lib/constructs/service-function.ts). */
const WRITER: ResolvedStatement[] = [
  { Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:BatchWriteItem'], Resource: [TABLE, `${TABLE}/index/*`] },
  {
    Sid: 'DenyMarketPageWrites',
    Effect: 'Deny',
    Action: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'],
    Resource: TABLE,
    Condition: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': ['MKT#*'] } },
  },
  { Effect: 'Allow', Action: 's3:GetObject*', Resource: `${BUCKET}/books/*` },
  { Effect: 'Allow', Action: 's3:ListBucket', Resource: BUCKET, Condition: { StringLike: { 's3:prefix': ['books/*'] } } },
];

describe('IAM policy evaluation', () => {
  it('allows a call an Allow statement matches', () => {
    const d = evaluate(WRITER, { action: 'dynamodb:PutItem', resource: TABLE, context: { 'dynamodb:LeadingKeys': ['ACC#1'] } });
    expect(d.effect).toBe('allow');
  });

  it('lets an explicit Deny win over an Allow', () => {
    const d = evaluate(WRITER, { action: 'dynamodb:PutItem', resource: TABLE, context: { 'dynamodb:LeadingKeys': ['MKT#normal-alliance#1'] } });
    expect(d).toMatchObject({ effect: 'deny', statement: { Sid: 'DenyMarketPageWrites' } });
  });

  it("applies the LeadingKeys condition to any of a batch's keys, and not to reads", () => {
    const batch = (keys: string[]) =>
      evaluate(WRITER, { action: 'dynamodb:BatchWriteItem', resource: TABLE, context: { 'dynamodb:LeadingKeys': keys } }).effect;
    expect(batch(['ACC#1', 'ACC#2'])).toBe('allow');
    expect(batch(['ACC#1', 'MKT#rp-horde#7'])).toBe('deny');
    expect(evaluate(WRITER, { action: 'dynamodb:GetItem', resource: TABLE, context: { 'dynamodb:LeadingKeys': ['MKT#x'] } }).effect).toBe('allow');
    // ForAnyValue over no keys at all does not hold: the deny does not apply.
    expect(evaluate(WRITER, { action: 'dynamodb:PutItem', resource: TABLE }).effect).toBe('allow');
  });

  it('matches wildcard resources and actions, and a GSI only through its /index/ resource', () => {
    expect(evaluate(WRITER, { action: 'dynamodb:Query', resource: `${TABLE}/index/gsi1` }).effect).toBe('allow');
    expect(evaluate(WRITER, { action: 's3:GetObjectVersion', resource: `${BUCKET}/books/a/b.json` }).effect).toBe('allow');
    expect(evaluate(WRITER, { action: 'S3:getobject', resource: `${BUCKET}/books/x` }).effect).toBe('allow');
    expect(evaluate(WRITER, { action: 's3:GetObject', resource: `${BUCKET}/live/x` }).effect).toBe('implicit-deny');
    expect(
      evaluate([{ Effect: 'Allow', Action: 'dynamodb:Query', Resource: TABLE }], { action: 'dynamodb:Query', resource: `${TABLE}/index/gsi1` }).effect,
    ).toBe('implicit-deny');
  });

  it('holds a condition on a single-valued key (s3:prefix) and denies a listing without it', () => {
    expect(evaluate(WRITER, { action: 's3:ListBucket', resource: BUCKET, context: { 's3:prefix': ['books/normal/'] } }).effect).toBe('allow');
    expect(evaluate(WRITER, { action: 's3:ListBucket', resource: BUCKET, context: { 's3:prefix': ['live/'] } }).effect).toBe('implicit-deny');
    expect(evaluate(WRITER, { action: 's3:ListBucket', resource: BUCKET }).effect).toBe('implicit-deny');
  });

  it('denies a call no statement names', () => {
    expect(evaluate(WRITER, { action: 'sqs:SendMessage', resource: 'arn:aws:sqs:us-east-1:000000000000:push' }).effect).toBe('implicit-deny');
    expect(evaluate([], { action: 'dynamodb:GetItem', resource: TABLE }).effect).toBe('implicit-deny');
  });

  it('supports NotAction, ForAllValues and the negated operators, and refuses an operator it does not know', () => {
    const st: ResolvedStatement[] = [
      {
        Effect: 'Allow',
        NotAction: 'iam:*',
        Resource: '*',
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['ACC#*'] }, StringNotEquals: { 'aws:SourceVpc': 'vpc-1' } },
      },
    ];
    expect(evaluate(st, { action: 'dynamodb:PutItem', resource: TABLE, context: { 'dynamodb:LeadingKeys': ['ACC#1', 'ACC#2'] } }).effect).toBe('allow');
    expect(evaluate(st, { action: 'dynamodb:PutItem', resource: TABLE, context: { 'dynamodb:LeadingKeys': ['ACC#1', 'MKT#2'] } }).effect).toBe('implicit-deny');
    expect(evaluate(st, { action: 'iam:PassRole', resource: TABLE }).effect).toBe('implicit-deny');
    expect(evaluate(st, { action: 'dynamodb:PutItem', resource: TABLE, context: { 'aws:SourceVpc': ['vpc-1'] } }).effect).toBe('implicit-deny');
    expect(() =>
      evaluate([{ Effect: 'Allow', Action: '*', Resource: '*', Condition: { IpAddress: { 'aws:SourceIp': '10.0.0.0/8' } } }], {
        action: 'x:Y',
        resource: 'r',
        context: { 'aws:SourceIp': ['10.1.1.1'] },
      }),
    ).toThrow(/IpAddress/);
  });

  it('models ForAllValues and ForAnyValue on dynamodb:LeadingKeys as AWS does: vacuous over no keys, hence the Null guard', () => {
    const families = (guarded: boolean): ResolvedStatement[] => [
      {
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:Scan', 'dynamodb:PutItem', 'dynamodb:BatchWriteItem'],
        Resource: TABLE,
        Condition: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['CONN#*', 'LIVE#*', 'ITEMS'] },
          ...(guarded ? { Null: { 'dynamodb:LeadingKeys': 'false' } } : {}),
        },
      },
    ];
    const effect = (st: ResolvedStatement[], action: string, keys?: string[]) =>
      evaluate(st, { action, resource: TABLE, ...(keys ? { context: { 'dynamodb:LeadingKeys': keys } } : {}) }).effect;
    for (const guarded of [false, true]) {
      const st = families(guarded);
      // Every request value must match one policy value: a batch with one key outside is refused whole.
      expect(effect(st, 'dynamodb:PutItem', ['CONN#a'])).toBe('allow');
      expect(effect(st, 'dynamodb:BatchWriteItem', ['CONN#a', 'LIVE#m', 'ITEMS'])).toBe('allow');
      expect(effect(st, 'dynamodb:BatchWriteItem', ['CONN#a', 'APIKEY#x'])).toBe('implicit-deny');
      // `LIVE#*` does not reach `LIVEC#`, and an exact pattern matches only itself.
      expect(effect(st, 'dynamodb:PutItem', ['LIVEC#m#0001'])).toBe('implicit-deny');
      expect(effect(st, 'dynamodb:GetItem', ['ITEMSX'])).toBe('implicit-deny');
    }
    // No leading keys at all (a Scan, an empty set): ForAllValues holds vacuously, so only the Null guard refuses it.
    expect(effect(families(false), 'dynamodb:Scan')).toBe('allow');
    expect(effect(families(false), 'dynamodb:Query', [])).toBe('allow');
    expect(effect(families(true), 'dynamodb:Scan')).toBe('implicit-deny');
    expect(effect(families(true), 'dynamodb:Query', [])).toBe('implicit-deny');
    // ForAnyValue needs one matching value: over no keys it does not hold, so a Deny with it does not apply.
    const deny: ResolvedStatement[] = [
      { Effect: 'Allow', Action: 'dynamodb:*', Resource: TABLE },
      { Effect: 'Deny', Action: 'dynamodb:PutItem', Resource: TABLE, Condition: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': ['MKT#*'] } } },
    ];
    expect(effect(deny, 'dynamodb:PutItem')).toBe('allow');
    expect(effect(deny, 'dynamodb:PutItem', ['USER#1', 'MKT#m'])).toBe('deny');
  });

  it('reads * and ? as IAM does: across slashes and colons, one character', () => {
    expect(globMatch('arn:aws:execute-api:us-east-1:0:api/live/*/@connections/*', 'arn:aws:execute-api:us-east-1:0:api/live/POST/@connections/abc=')).toBe(
      true,
    );
    expect(globMatch('a?c', 'abc')).toBe(true);
    expect(globMatch('a?c', 'abbc')).toBe(false);
    expect(globMatch('a.c', 'abc')).toBe(false);
  });
});
