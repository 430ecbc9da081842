/**
 * A function's role statements from a synthesized template, with every intrinsic (Ref, Fn::GetAtt,
 * Fn::Join, pseudo parameters; a preview's dev bucket is a Ref to its SSM parameter) resolved to the names a
 * local runtime uses, so recorded calls can be evaluated against them (lib/local/iam/policy.ts). The mapping
 * is read from the template itself: the logical ids the functions' environment names as TABLE_NAME,
 * BUCKET_NAME, WORK_BUCKET_NAME and QUEUE_URLS (queue names), and the WebSocket API with its stage. The
 * template must be synthesized for the local account and region (LOCAL_ACCOUNT, LOCAL_REGION) so the literal
 * parts of its ARNs match too.
 */
import type { FunctionName } from '../../../shared/topology';
import { type LocalNames, queueArn } from './calls';
import type { ResolvedStatement } from './policy';

interface Resource {
  Type: string;
  Properties?: Record<string, unknown>;
}

export interface TemplateJson {
  Resources: Record<string, Resource>;
}

type Resolver = (value: unknown) => string;

const refOf = (v: unknown): string | undefined => (v && typeof v === 'object' ? ((v as { Ref?: string }).Ref ?? undefined) : undefined);
/** The queue a `{ Fn::GetAtt: [<queue>, QueueName] }` names. */
const queueNameOf = (v: unknown): string | undefined => {
  const att = v && typeof v === 'object' ? (v as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'] : undefined;
  return att?.[1] === 'QueueName' ? att[0] : undefined;
};

/** What the template calls the resources a local runtime names: logical ids by role. */
interface TemplateIds {
  table?: string;
  bucket?: string;
  work?: string;
  /** Queue logical id → manifest queue name. */
  queues: Map<string, string>;
  liveApi?: string;
  liveStage?: string;
  filesPrefix: string;
}

const functions = (t: TemplateJson): Array<[string, Resource]> => Object.entries(t.Resources).filter(([, r]) => r.Type === 'AWS::Lambda::Function');

const variablesOf = (r: Resource): Record<string, unknown> =>
  (r.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};

/** The logical ids behind the functions' environment, and the WebSocket API. */
export function templateIds(t: TemplateJson): TemplateIds {
  const ids: TemplateIds = { queues: new Map(), filesPrefix: '' };
  for (const [, fn] of functions(t)) {
    const env = variablesOf(fn);
    ids.table ??= refOf(env.TABLE_NAME);
    ids.bucket ??= refOf(env.BUCKET_NAME);
    ids.work ??= refOf(env.WORK_BUCKET_NAME);
    if (typeof env.FILES_PREFIX === 'string') ids.filesPrefix = env.FILES_PREFIX;
    // QUEUE_URLS is a join of `{"<name>":"`, { Fn::GetAtt: [<queue>, QueueName] }, `","<name>":"`, …
    const join = (env.QUEUE_URLS as { 'Fn::Join'?: [string, unknown[]] } | undefined)?.['Fn::Join'];
    join?.[1].forEach((part, i) => {
      const ref = queueNameOf(part);
      const before = join[1][i - 1];
      const name = typeof before === 'string' ? before.match(/"([^"]+)":"$/)?.[1] : undefined;
      if (ref && name) ids.queues.set(ref, name);
    });
  }
  for (const [id, r] of Object.entries(t.Resources)) {
    if (r.Type === 'AWS::ApiGatewayV2::Api' && r.Properties?.ProtocolType === 'WEBSOCKET') ids.liveApi = id;
  }
  for (const [, r] of Object.entries(t.Resources)) {
    if (r.Type === 'AWS::ApiGatewayV2::Stage' && ids.liveApi && refOf(r.Properties?.ApiId) === ids.liveApi) ids.liveStage = String(r.Properties?.StageName);
  }
  return ids;
}

/** A resolver of intrinsics to local names; anything it does not know becomes a value no ARN matches. */
export function resolver(t: TemplateJson, names: LocalNames, ids = templateIds(t)): Resolver {
  const tableArn = `arn:aws:dynamodb:${names.region}:${names.account}:table/${names.table}`;
  const ref = (id: string): string => {
    const pseudo: Record<string, string> = {
      'AWS::Partition': 'aws',
      'AWS::Region': names.region,
      'AWS::AccountId': names.account,
      'AWS::URLSuffix': 'amazonaws.com',
    };
    if (pseudo[id]) return pseudo[id];
    if (id === ids.table) return names.table;
    if (id === ids.bucket) return names.bucket;
    if (id === ids.work) return names.work;
    if (id === ids.liveApi) return names.liveApiId;
    const queue = ids.queues.get(id);
    if (queue) return `https://sqs.${names.region}.amazonaws.com/${names.account}/${queue}`;
    if (t.Resources[id]?.Type === 'AWS::SecretsManager::Secret') return `arn:aws:secretsmanager:${names.region}:${names.account}:secret:${id}`;
    return `unresolved:Ref:${id}`;
  };
  const getAtt = (id: string, attribute: string): string => {
    if (id === ids.table) return attribute === 'StreamArn' ? `${tableArn}/stream/local` : tableArn;
    if (id === ids.bucket || id === ids.work) return `arn:aws:s3:::${ref(id)}`;
    const queue = ids.queues.get(id) ?? deadLetterName(t, ids, id);
    if (queue) return queueArn(names, queue, t.Resources[id]?.Properties?.FifoQueue === true);
    if (t.Resources[id]?.Type === 'AWS::Logs::LogGroup') return `arn:aws:logs:${names.region}:${names.account}:log-group:${id}:*`;
    return `unresolved:GetAtt:${id}.${attribute}`;
  };
  const resolve: Resolver = (value) => {
    if (typeof value === 'string') return value;
    if (typeof value === 'boolean' || typeof value === 'number') return String(value);
    if (value && typeof value === 'object') {
      const o = value as Record<string, unknown>;
      if (typeof o.Ref === 'string') return ref(o.Ref);
      if (Array.isArray(o['Fn::GetAtt'])) return getAtt(String(o['Fn::GetAtt'][0]), String(o['Fn::GetAtt'][1]));
      if (Array.isArray(o['Fn::Join'])) return (o['Fn::Join'][1] as unknown[]).map(resolve).join(String(o['Fn::Join'][0]));
    }
    return `unresolved:${JSON.stringify(value)}`;
  };
  return resolve;
}

/**
 * A dead-letter queue is named by no function's QUEUE_URLS unless a function takes from it: it is the
 * `DeadLetters` sibling of a manifest queue's construct, found by the redrive policy that names it.
 */
function deadLetterName(t: TemplateJson, ids: TemplateIds, id: string): string | undefined {
  for (const [queueId, name] of ids.queues) {
    const target = (t.Resources[queueId]?.Properties?.RedrivePolicy as { deadLetterTargetArn?: unknown } | undefined)?.deadLetterTargetArn;
    if (JSON.stringify(target ?? null).includes(`"${id}"`)) return `${name}-dead-letters`;
  }
  return undefined;
}

/** The logical id of a manifest function's role (the function's description is `<name> (<stage>)`). */
function roleOf(t: TemplateJson, name: FunctionName): string {
  const found = functions(t).filter(([, r]) => String(r.Properties?.Description ?? '').startsWith(`${name} (`));
  if (found.length !== 1) throw new Error(`expected one function ${name} in the template, found ${found.length}`);
  const role = found[0][1].Properties?.Role as { 'Fn::GetAtt'?: [string, string] } | undefined;
  if (!role?.['Fn::GetAtt']) throw new Error(`function ${name} names its role in a way the check does not read`);
  return role['Fn::GetAtt'][0];
}

const list = (v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** A function's role statements (its attached policies and the role's inline ones), resolved to local names. */
export function localStatements(t: TemplateJson, name: FunctionName, names: LocalNames): ResolvedStatement[] {
  const ids = templateIds(t);
  const resolve = resolver(t, names, ids);
  const role = roleOf(t, name);
  type Doc = { Statement: Array<Record<string, unknown>> };
  const attached = Object.values(t.Resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && list(r.Properties?.Roles).some((x) => refOf(x) === role))
    .map((r) => r.Properties?.PolicyDocument as Doc);
  const inline = list(t.Resources[role]?.Properties?.Policies).map((p) => (p as { PolicyDocument: Doc }).PolicyDocument);
  // The template's stage and files prefix are literals in its ARNs: moved to the runtime's.
  const liveFrom = `${names.liveApiId}/${ids.liveStage}/`;
  const liveTo = `${names.liveApiId}/${names.liveStage}/`;
  const filesFrom = `arn:aws:s3:::${names.bucket}/${ids.filesPrefix}`;
  const filesTo = `arn:aws:s3:::${names.bucket}/${names.filesPrefix}`;
  const local = (arn: string) => arn.replace(liveFrom, liveTo).replace(filesFrom, filesTo);
  const prefixed = (p: string) => (p.startsWith(ids.filesPrefix) ? `${names.filesPrefix}${p.slice(ids.filesPrefix.length)}` : p);
  return [...attached, ...inline].flatMap((doc) =>
    doc.Statement.map((st) => {
      const out: ResolvedStatement = { Effect: st.Effect as 'Allow' | 'Deny' };
      if (st.Sid) out.Sid = String(st.Sid);
      for (const k of ['Action', 'NotAction'] as const) if (st[k] !== undefined) out[k] = list(st[k]).map(String);
      for (const k of ['Resource', 'NotResource'] as const) if (st[k] !== undefined) out[k] = list(st[k]).map((r) => local(resolve(r)));
      if (st.Condition) {
        out.Condition = Object.fromEntries(
          Object.entries(st.Condition as Record<string, Record<string, unknown>>).map(([op, entries]) => [
            op,
            Object.fromEntries(Object.entries(entries).map(([key, v]) => [key, list(v).map((x) => (key === 's3:prefix' ? prefixed(resolve(x)) : resolve(x)))])),
          ]),
        );
      }
      return out;
    }),
  );
}
