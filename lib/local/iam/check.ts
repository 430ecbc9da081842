/**
 * The check of recorded calls (lib/local/iam/calls.ts) against the synthesized template: each call is
 * evaluated against its function's role statements, resolved to the names of the runtime that made it.
 * A call the policy would deny in AWS is a violation naming function, action and resource.
 */
import type { FunctionName } from '../../../shared/topology';
import type { LocalNames, RecordedCall } from './calls';
import { evaluate, type ResolvedStatement } from './policy';
import { localStatements, type TemplateJson } from './resolve';

export interface Violation {
  fn: FunctionName;
  action: string;
  resource: string;
  context?: Record<string, string[]>;
  /** `explicit deny (<Sid>)` or `no statement allows it`. */
  reason: string;
}

/** One line of a report: `<function> may not <action> on <resource> (<reason>)`. */
export const describeViolation = (v: Violation): string =>
  `${v.fn} may not ${v.action} on ${v.resource}${v.context ? ` ${JSON.stringify(v.context)}` : ''} (${v.reason})`;

/** The calls the template's policies deny, each distinct (function, action, resource, keys) once. */
export function checkCalls(template: TemplateJson, calls: Iterable<RecordedCall>): Violation[] {
  const statements = new Map<string, ResolvedStatement[]>();
  const statementsFor = (fn: FunctionName, names: LocalNames): ResolvedStatement[] => {
    const key = `${fn}\u0000${JSON.stringify(names)}`;
    let s = statements.get(key);
    if (!s) {
      s = localStatements(template, fn, names);
      statements.set(key, s);
    }
    return s;
  };
  const seen = new Set<string>();
  const violations: Violation[] = [];
  for (const call of calls) {
    const key = JSON.stringify([call.fn, call.action, call.resource, call.context ?? null, call.names]);
    if (seen.has(key)) continue;
    seen.add(key);
    const d = evaluate(statementsFor(call.fn, call.names), call);
    if (d.effect === 'allow') continue;
    violations.push({
      fn: call.fn,
      action: call.action,
      resource: call.resource,
      ...(call.context ? { context: call.context } : {}),
      reason: d.effect === 'deny' ? `explicit deny${d.statement.Sid ? ` ${d.statement.Sid}` : ''}` : 'no statement allows it',
    });
  }
  return violations;
}
