import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { productionWithDomains, synth } from './synth';

const STAGES = ['production', 'dev', 'preview-abc', productionWithDomains()];

interface Suppression {
  id: string;
  reason: string;
}

describe('AWS Solutions checks (cdk-nag)', () => {
  for (const stage of STAGES) {
    it(`reports no unsuppressed error or warning for ${typeof stage === 'string' ? stage : stage.key}`, () => {
      const annotations = Annotations.fromStack(synth(stage, { nag: true }).stack);
      const findings = [
        ...annotations.findError('*', Match.stringLikeRegexp('AwsSolutions-')),
        ...annotations.findWarning('*', Match.stringLikeRegexp('AwsSolutions-')),
      ].map((f) => `${f.id}: ${String(f.entry.data).split(':')[0]}`);
      expect(findings).toEqual([]);
    });
  }

  it('gives every suppression a real reason', () => {
    const resources = synth('dev', { nag: true }).resources;
    const suppressions = Object.values(resources).flatMap(
      (r) => ((r.Metadata?.cdk_nag as { rules_to_suppress?: Suppression[] } | undefined)?.rules_to_suppress ?? []) as Suppression[],
    );
    expect(suppressions.length).toBeGreaterThan(0);
    for (const s of suppressions) {
      expect(s.reason.length, s.id).toBeGreaterThanOrEqual(60);
      expect(s.reason, s.id).not.toMatch(/todo|tbd|fixme|suppress(ed)? for now/i);
    }
  });
});
