import type { Distribution } from 'aws-cdk-lib/aws-cloudfront';
import { NagSuppressions } from 'cdk-nag';
import type { StageConfig } from '../stages';

/** Records, next to each distribution, why the AWS Solutions edge checks that do not fit are accepted. */
export function suppressEdgeFindings(distribution: Distribution, stage: StageConfig): void {
  NagSuppressions.addResourceSuppressions(distribution, [
    { id: 'AwsSolutions-CFR1', reason: 'The markets are played worldwide; the spec serves every country, so there is nothing to geo-restrict.' },
    {
      id: 'AwsSolutions-CFR2',
      reason: 'No WAF web ACL: abuse is bounded by the per-caller rate limits the API enforces (429) and API Gateway stage throttling; a web ACL would add a fixed monthly cost per stage.',
    },
  ]);
  if (!stage.domains) {
    NagSuppressions.addResourceSuppressions(distribution, [
      {
        id: 'AwsSolutions-CFR4',
        reason: `The ${stage.stage} stage has no custom domain yet, and the default *.cloudfront.net certificate cannot take a minimum TLS version; with a domain the policy is TLSv1.2_2021.`,
      },
    ]);
  }
}
