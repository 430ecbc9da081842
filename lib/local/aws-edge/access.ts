/**
 * Who may make a call at the local AWS edge: each function's role statements from the synthesized template
 * (lib/local/iam/resolve.ts, evaluated by lib/local/iam/policy.ts as IAM does) and, for the files bucket, the
 * manifest's grants (lib/local/iam/grants.ts). The answer names the refusal as AWS words it.
 */
import type { FunctionName } from '../../../shared/topology';
import type { LocalNames } from '../iam/calls';
import { bucketDenial } from '../iam/grants';
import { evaluate, type IamRequest, type ResolvedStatement } from '../iam/policy';
import { localStatements, type TemplateJson } from '../iam/resolve';

export interface Refusal {
  /** AWS's message: `User: <role session> is not authorized to perform: <action> on resource: <arn> because …`. */
  message: string;
}

export class EdgeAccess {
  private readonly statements = new Map<FunctionName, ResolvedStatement[]>();

  constructor(
    private readonly template: TemplateJson,
    private readonly names: LocalNames,
    private readonly buckets: { filesPrefix: string; work: string },
  ) {}

  private statementsOf(fn: FunctionName): ResolvedStatement[] {
    let s = this.statements.get(fn);
    if (!s) {
      s = localStatements(this.template, fn, this.names);
      this.statements.set(fn, s);
    }
    return s;
  }

  /** The role session a function's calls are made as (its role is named after it locally). */
  private principal(fn: FunctionName): string {
    return `arn:aws:sts::${this.names.account}:assumed-role/${fn}-role/${fn}`;
  }

  /** The first of `requests` the function's policies refuse, or null when IAM allows them all. */
  iam(fn: FunctionName, requests: IamRequest[]): Refusal | null {
    for (const r of requests) {
      const d = evaluate(this.statementsOf(fn), r);
      if (d.effect === 'allow') continue;
      const why = d.effect === 'deny' ? `with an explicit deny in an identity-based policy` : `because no identity-based policy allows the ${r.action} action`;
      return { message: `User: ${this.principal(fn)} is not authorized to perform: ${r.action} on resource: ${r.resource} ${why}` };
    }
    return null;
  }

  /** The manifest's bucket grants (narrower than a role may be: shared/topology.ts); null when they allow the call. */
  bucketGrant(fn: FunctionName, command: string, input: Record<string, unknown>): Refusal | null {
    const denied = bucketDenial(fn, command, input, this.buckets);
    return denied ? { message: denied } : null;
  }
}
