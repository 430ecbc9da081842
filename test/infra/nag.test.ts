import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { REVIEWED_SUPPRESSIONS, type ReviewedSuppression } from './nag-reviewed';
import { productionWithDomains, synth } from './synth';

const STAGES = ['production', 'dev', 'preview-abc', productionWithDomains()];

/** One entry of a resource's `cdk_nag.rules_to_suppress` (cdk-nag base64-encodes reasons with non-ASCII text). */
interface Suppression {
  id: string;
  reason: string;
  applies_to?: unknown[];
  is_reason_encoded?: boolean;
}

describe('AWS Solutions and Serverless checks (cdk-nag)', () => {
  for (const stage of STAGES) {
    it(`reports no unsuppressed error or warning for ${typeof stage === 'string' ? stage : stage.key}`, () => {
      const annotations = Annotations.fromStack(synth(stage, { nag: true }).stack);
      const findings = [
        ...annotations.findError('*', Match.stringLikeRegexp('(AwsSolutions|Serverless)-')),
        ...annotations.findWarning('*', Match.stringLikeRegexp('(AwsSolutions|Serverless)-')),
      ].map((f) => `${f.id}: ${String(f.entry.data).split(':')[0]}`);
      expect(findings).toEqual([]);
    });
  }

  it('has only reviewed suppressions: each (rule, resource) with the reason a reviewer accepted for it', () => {
    const used = new Set<ReviewedSuppression>();
    const unreviewed: string[] = [];
    for (const stage of STAGES) {
      const key = typeof stage === 'string' ? stage : stage.key;
      for (const [id, resource] of Object.entries(synth(stage, { nag: true }).resources)) {
        const logicalId = id.replace(/[0-9A-F]{8}$/, '');
        for (const s of (resource.Metadata?.cdk_nag as { rules_to_suppress?: Suppression[] } | undefined)?.rules_to_suppress ?? []) {
          const reason = s.is_reason_encoded ? Buffer.from(s.reason, 'base64').toString('utf8') : s.reason;
          const entry = REVIEWED_SUPPRESSIONS.find(
            (r) =>
              r.rule === s.id &&
              r.resources.test(logicalId) &&
              (r.stages?.test(key) ?? true) &&
              JSON.stringify(r.appliesTo ?? null) === JSON.stringify(s.applies_to ?? null) &&
              r.reason.replaceAll('<stage>', key) === reason,
          );
          if (entry) used.add(entry);
          else unreviewed.push(`${key} ${logicalId} ${s.id} ${JSON.stringify(s.applies_to ?? null)}: ${reason}`);
        }
      }
    }
    expect(unreviewed).toEqual([]);
    expect(REVIEWED_SUPPRESSIONS.filter((r) => !used.has(r)).map((r) => `${r.rule} ${r.resources}`)).toEqual([]);
  });
});
