/**
 * Nothing fails silently (issue 26 point 3), in the template: every EventBridge target has a dead-letter
 * queue, every scheduled function's asynchronous invocations an on-failure destination (the same queue, so a
 * run that throws lands there as well as one that could not be invoked), the table stream's mapping an
 * on-failure destination, and each of those queues an alarm.
 */
import { describe, expect, it } from 'vitest';
import { SCHEDULES, STREAM_CONSUMER } from '../../shared/topology';
import { functionId, mentions, ofType, type Synthesized, synth } from './synth';

const arnOf = (value: unknown): string => (value as { 'Fn::GetAtt': [string, 'Arn'] })['Fn::GetAtt'][0];

/** The alarms that watch a queue's visible messages, notifying someone. */
const queueAlarms = (s: Synthesized, queueId: string) =>
  ofType(s, 'AWS::CloudWatch::Alarm').filter(
    ([, a]) =>
      a.Properties.MetricName === 'ApproximateNumberOfMessagesVisible' &&
      mentions(a.Properties.Dimensions, queueId) &&
      a.Properties.Threshold === 0 &&
      (a.Properties.AlarmActions as unknown[]).length === 1,
  );

describe('failure destinations (issue 26 point 3)', () => {
  for (const stage of ['production', 'dev', 'preview-abc']) {
    it(`gives every EventBridge target a dead-letter queue, the same as its function's on-failure destination, alarmed (${stage})`, () => {
      const s = synth(stage);
      const rules = ofType(s, 'AWS::Events::Rule');
      expect(rules).toHaveLength(SCHEDULES.length);
      const queues = new Set<string>();
      for (const [, rule] of rules) {
        const targets = rule.Properties.Targets as Array<{ Arn: unknown; DeadLetterConfig?: { Arn: unknown } }>;
        for (const target of targets) {
          expect(target.DeadLetterConfig, JSON.stringify(target.Arn)).toBeDefined();
          const dlq = arnOf(target.DeadLetterConfig?.Arn);
          expect(s.resources[dlq].Type).toBe('AWS::SQS::Queue');
          queues.add(dlq);
          const fn = arnOf(target.Arn);
          const [config] = ofType(s, 'AWS::Lambda::EventInvokeConfig').filter(([, c]) => mentions(c.Properties.FunctionName, fn));
          expect(config[1].Properties).toMatchObject({
            MaximumRetryAttempts: 0,
            DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [dlq, 'Arn'] } } },
          });
          // EventBridge may put undeliverable events there (only from this rule).
          const policies = ofType(s, 'AWS::SQS::QueuePolicy').filter(([, p]) => mentions(p.Properties.Queues, dlq));
          expect(JSON.stringify(policies)).toContain('"Service":"events.amazonaws.com"');
          expect(queueAlarms(s, dlq), dlq).toHaveLength(1);
        }
      }
      // One queue per schedule, so the alarm names the job.
      expect(queues.size).toBe(SCHEDULES.length);
    });
  }

  it('gives the table stream mapping an on-failure destination, alarmed', () => {
    const s = synth('dev');
    const fn = functionId(s, STREAM_CONSUMER.function);
    const [[, mapping]] = ofType(s, 'AWS::Lambda::EventSourceMapping').filter(
      ([, m]) => mentions(m.Properties.FunctionName, fn) && JSON.stringify(m.Properties.EventSourceArn).includes('StreamArn'),
    );
    const destination = (mapping.Properties.DestinationConfig as { OnFailure?: { Destination: unknown } } | undefined)?.OnFailure?.Destination;
    expect(destination).toBeDefined();
    const queue = arnOf(destination);
    expect(s.resources[queue].Type).toBe('AWS::SQS::Queue');
    expect(queueAlarms(s, queue)).toHaveLength(1);
  });
});
