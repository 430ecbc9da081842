/**
 * The cost model counts the operator's fixed items in the synthesized template (issue 26 point 9): what
 * `templateFacts` reads of production and dev is what their templates hold, so an alarm, secret or WAF rule
 * added to the stack is in the next bill.
 */
import { describe, expect, it } from 'vitest';
import { templateFacts } from '../../scripts/cost/template';
import { FUNCTIONS } from '../../shared/topology';
import { ofType, synth } from './synth';

describe('cost model: counts from the template (issue 26 point 9)', () => {
  it('production: every alarm and the metrics it reads, the dashboard, secrets, WAF rules, traced functions, access lines and retention', () => {
    const s = synth('production');
    const facts = templateFacts(s.template.toJSON());
    const alarms = ofType(s, 'AWS::CloudWatch::Alarm');
    expect(alarms.length).toBeGreaterThan(FUNCTIONS.length * 2); // errors and throttles per function at least
    expect(facts.alarms).toBe(alarms.length);
    // A metric-math alarm is billed per metric it reads: never fewer metrics than alarms.
    const read = alarms.reduce(
      (n, [, a]) => n + (a.Properties.MetricName ? 1 : ((a.Properties.Metrics as Array<{ MetricStat?: unknown }>) ?? []).filter((m) => m.MetricStat).length),
      0,
    );
    expect(facts.alarmMetrics).toBe(read);
    expect(facts.alarmMetrics).toBeGreaterThanOrEqual(facts.alarms);
    expect(facts.dashboards).toBe(ofType(s, 'AWS::CloudWatch::Dashboard').length);
    expect(facts.dashboards).toBe(1);
    expect(facts.secrets).toBe(ofType(s, 'AWS::SecretsManager::Secret').length);
    const acl = ofType(s, 'AWS::WAFv2::WebACL');
    expect(facts.webAcls).toBe(1);
    expect(facts.webAclRules).toBe((acl[0][1].Properties.Rules as unknown[]).length);
    expect(facts.tracedFunctions.sort()).toEqual(FUNCTIONS.map((f) => f.name).sort());
    expect(facts.accessLogFormats).toHaveLength(1);
    expect(facts.accessLogFormats[0]).toContain('$context.requestId');
    expect(facts.logRetentionDays).toBe(90);
    // The public distribution runs one viewer-request function on each behaviour (credential guard, live router).
    expect(facts.edgeFunctionsPerRequest).toBe(1);
    expect(ofType(s, 'AWS::CloudFront::Function').length).toBeGreaterThanOrEqual(1);
  });

  it('dev: no WAF and no traces to pay for', () => {
    const facts = templateFacts(synth('dev').template.toJSON());
    expect(facts.webAcls).toBe(0);
    expect(facts.tracedFunctions).toEqual([]);
    expect(facts.alarms).toBeGreaterThan(0);
  });
});
