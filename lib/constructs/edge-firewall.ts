import { Stack } from 'aws-cdk-lib';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import type { StageConfig } from '../stages';

/**
 * Requests one address may send in a minute before the web ACL blocks it: twice the highest per-caller API
 * limit (premium, 600 a minute), so an honest integrator, a shared office address or a page with its icons
 * never meets it, while a flood from one address stops at the edge within seconds of crossing it.
 */
export const RATE_PER_ADDRESS = { limit: 1200, windowSeconds: 60 };

/**
 * Rules of AWS's common rule set switched to count: uploads are book bodies of megabytes
 * (SizeRestrictions_BODY blocks anything above 8 KB) and the desktop app's HTTP client sends no User-Agent.
 */
export const COMMON_RULES_COUNTED = ['SizeRestrictions_BODY', 'NoUserAgent_HEADER'];

const RATE_LIMITED_BODY = 'rate_limited';

const visibility = (metricName: string): CfnWebACL.VisibilityConfigProperty => ({ cloudWatchMetricsEnabled: true, metricName, sampledRequestsEnabled: true });

/** Props of an {@link EdgeFirewall}. */
export interface EdgeFirewallProps {
  stage: StageConfig;
}

/**
 * The public distribution's WAF web ACL: floods meet a per-address rate limit and the common exploit rules
 * at CloudFront, before any Lambda runs. CLOUDFRONT-scoped web ACLs exist only in us-east-1, so the stage's
 * stack must be there (checked at synthesis).
 */
export class EdgeFirewall extends Construct {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: EdgeFirewallProps) {
    super(scope, id);
    const region = Stack.of(this).region;
    if (region !== 'us-east-1') {
      throw new Error(
        `stage ${props.stage.stage} has a WAF web ACL on CloudFront, which AWS creates only in us-east-1, but deploys to ${region}: set its region to us-east-1 (lib/stages.ts) or turn waf off`,
      );
    }
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      // WAF descriptions take no parentheses.
      description: `Per-address rate limit and common rules in front of the APIs, stage ${props.stage.stage}`,
      defaultAction: { allow: {} },
      visibilityConfig: visibility('edge'),
      customResponseBodies: {
        [RATE_LIMITED_BODY]: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify({ error: 'rate_limited', message: 'too many requests from this address' }),
        },
      },
      rules: [
        {
          name: 'RatePerAddress',
          priority: 0,
          // Answered as the spec's other 429s are: `rate_limited` with Retry-After: 60.
          action: {
            block: { customResponse: { responseCode: 429, customResponseBodyKey: RATE_LIMITED_BODY, responseHeaders: [{ name: 'retry-after', value: '60' }] } },
          },
          statement: { rateBasedStatement: { aggregateKeyType: 'IP', limit: RATE_PER_ADDRESS.limit, evaluationWindowSec: RATE_PER_ADDRESS.windowSeconds } },
          visibilityConfig: visibility('rate-per-address'),
        },
        {
          name: 'AWSManagedRulesCommonRuleSet',
          priority: 1,
          overrideAction: { none: {} },
          statement: {
            managedRuleGroupStatement: {
              vendorName: 'AWS',
              name: 'AWSManagedRulesCommonRuleSet',
              ruleActionOverrides: COMMON_RULES_COUNTED.map((name) => ({ name, actionToUse: { count: {} } })),
            },
          },
          visibilityConfig: visibility('common-rules'),
        },
      ],
    });
  }
}
