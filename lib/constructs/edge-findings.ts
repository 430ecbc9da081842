import type { Distribution } from 'aws-cdk-lib/aws-cloudfront';
import { NagSuppressions } from 'cdk-nag';
import type { StageConfig } from '../stages';

/**
 * Records, next to each distribution, why the AWS Solutions edge checks that do not fit are accepted.
 * `serves`: `api` for the public distribution (a web ACL where the stage has one), `files` for the file host.
 */
export function suppressEdgeFindings(distribution: Distribution, stage: StageConfig, serves: 'api' | 'files'): void {
  NagSuppressions.addResourceSuppressions(distribution, [
    { id: 'AwsSolutions-CFR1', reason: 'The markets are played worldwide; the spec serves every country, so there is nothing to geo-restrict.' },
  ]);
  if (serves === 'files') {
    NagSuppressions.addResourceSuppressions(distribution, [
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'The file host serves immutable files from S3 through the CloudFront cache: no Lambda, table or identity provider stands behind it for a flood to exhaust; the APIs’ distribution carries the web ACL.',
      },
    ]);
  } else if (!stage.waf) {
    NagSuppressions.addResourceSuppressions(distribution, [
      {
        id: 'AwsSolutions-CFR2',
        reason: `The ${stage.stage} stage runs without a WAF web ACL (StageConfig.waf, on in production): its abuse is bounded by the per-caller limits the API enforces (429), stage throttling and reserved concurrency for merges, and a web ACL costs a fixed monthly fee per stage.`,
      },
    ]);
  }
  if (!stage.domains) {
    NagSuppressions.addResourceSuppressions(distribution, [
      {
        id: 'AwsSolutions-CFR4',
        reason: `The ${stage.stage} stage has no custom domain yet, and the default *.cloudfront.net certificate cannot take a minimum TLS version; with a domain the policy is TLSv1.2_2021.`,
      },
    ]);
  }
}
