/**
 * IAM policy evaluation for one principal's identity policies, as AWS documents it: an explicit Deny that
 * matches wins, otherwise an Allow that matches allows, otherwise the call is denied (no statement). Only
 * what the stack's role policies use is implemented (Action/NotAction, Resource/NotResource with `*` and
 * `?` wildcards, the String* condition operators with ForAnyValue/ForAllValues and IfExists, Null, Bool);
 * an operator outside that list throws, so a new kind of condition in the stack cannot pass unnoticed.
 * Pure: statements must already be resolved to plain strings (lib/local/iam/resolve.ts).
 */

/** One statement with every value a plain string. */
export interface ResolvedStatement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action?: string | string[];
  NotAction?: string | string[];
  Resource?: string | string[];
  NotResource?: string | string[];
  Condition?: Record<string, Record<string, string | string[] | boolean>>;
}

/** One AWS call as IAM sees it: the action, the resource ARN and the request's condition keys. */
export interface IamRequest {
  action: string;
  resource: string;
  /** Condition keys of the request (e.g. `dynamodb:LeadingKeys`, `s3:prefix`); a key absent here is absent. */
  context?: Record<string, string[]>;
}

export type Decision = { effect: 'allow'; statement: ResolvedStatement } | { effect: 'deny'; statement: ResolvedStatement } | { effect: 'implicit-deny' };

const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

const patterns = new Map<string, RegExp>();

/** IAM's glob: `*` any run of characters (slashes and colons too), `?` one character. */
export function globMatch(pattern: string, value: string, ignoreCase = false): boolean {
  const key = `${ignoreCase ? 'i' : 's'}${pattern}`;
  let re = patterns.get(key);
  if (!re) {
    const body = pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.');
    re = new RegExp(`^${body}$`, ignoreCase ? 'is' : 's');
    patterns.set(key, re);
  }
  return re.test(value);
}

/** Actions are case-insensitive. */
const actionMatches = (st: ResolvedStatement, action: string): boolean =>
  st.NotAction !== undefined ? !list(st.NotAction).some((p) => globMatch(p, action, true)) : list(st.Action).some((p) => globMatch(p, action, true));

const resourceMatches = (st: ResolvedStatement, resource: string): boolean =>
  st.NotResource !== undefined ? !list(st.NotResource).some((p) => globMatch(p, resource)) : list(st.Resource).some((p) => globMatch(p, resource));

/** Whether one condition operator holds for every key it names (keys are ANDed, values ORed). */
function operatorHolds(operator: string, entries: Record<string, string | string[] | boolean>, context: Record<string, string[]>): boolean {
  let op = operator;
  let set: 'any' | 'all' | null = null;
  if (op.startsWith('ForAnyValue:')) [set, op] = ['any', op.slice('ForAnyValue:'.length)];
  else if (op.startsWith('ForAllValues:')) [set, op] = ['all', op.slice('ForAllValues:'.length)];
  const ifExists = op.endsWith('IfExists');
  if (ifExists) op = op.slice(0, -'IfExists'.length);
  const lowered = Object.fromEntries(Object.entries(context).map(([k, v]) => [k.toLowerCase(), v]));
  return Object.entries(entries).every(([key, raw]) => {
    const wanted = (Array.isArray(raw) ? raw : [raw]).map(String);
    const values = lowered[key.toLowerCase()];
    if (op === 'Null') return wanted.includes(String(values === undefined || values.length === 0));
    const one = valueTest(op, wanted);
    if (values === undefined || values.length === 0) {
      // ForAllValues over no values is vacuously true; a negated operator holds for a missing key; IfExists too.
      if (set === 'all' || ifExists) return true;
      return set === null && op.includes('Not');
    }
    if (set === 'all') return values.every(one);
    return values.some(one);
  });
}

/** The test of one request value against the condition's values, for a String or Bool operator. */
function valueTest(op: string, wanted: string[]): (value: string) => boolean {
  switch (op) {
    case 'StringEquals':
      return (v) => wanted.includes(v);
    case 'StringNotEquals':
      return (v) => !wanted.includes(v);
    case 'StringEqualsIgnoreCase':
      return (v) => wanted.some((w) => w.toLowerCase() === v.toLowerCase());
    case 'StringLike':
      return (v) => wanted.some((w) => globMatch(w, v));
    case 'StringNotLike':
      return (v) => !wanted.some((w) => globMatch(w, v));
    case 'Bool':
      return (v) => wanted.some((w) => w.toLowerCase() === v.toLowerCase());
    default:
      // Refused, not guessed: a policy using another operator would otherwise be judged wrongly here.
      throw new Error(
        `IAM condition operator ${op} is refused by the local policy check, which evaluates the String and Bool operators only (lib/local/iam/policy.ts)`,
      );
  }
}

const conditionHolds = (st: ResolvedStatement, context: Record<string, string[]>): boolean =>
  Object.entries(st.Condition ?? {}).every(([op, entries]) => operatorHolds(op, entries, context));

const applies = (st: ResolvedStatement, req: IamRequest): boolean =>
  actionMatches(st, req.action) && resourceMatches(st, req.resource) && conditionHolds(st, req.context ?? {});

/** The decision of a principal's statements on one request: explicit deny, then allow, then implicit deny. */
export function evaluate(statements: readonly ResolvedStatement[], req: IamRequest): Decision {
  const deny = statements.find((st) => st.Effect === 'Deny' && applies(st, req));
  if (deny) return { effect: 'deny', statement: deny };
  const allow = statements.find((st) => st.Effect === 'Allow' && applies(st, req));
  if (allow) return { effect: 'allow', statement: allow };
  return { effect: 'implicit-deny' };
}
