/**
 * The metrics the alarms and the dashboard read, built in one place so both read the same lines: the EMF
 * metrics the functions emit (namespace `MarketData`, dimension `service`, shared/telemetry/metric-names.ts)
 * and the AWS metrics of the stack's resources where CDK's own helpers miss a dimension.
 */
import { Duration } from 'aws-cdk-lib';
import { type IMetric, MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { METRIC_NAMESPACE, type MetricName } from '../../shared/telemetry/metric-names';
import type { FunctionName } from '../../shared/topology';

/** The period every alarm and graph uses unless it says otherwise. */
export const PERIOD = Duration.minutes(5);

/** A count (or a time, with `statistic`) one function emits without extra dimensions. */
export const emf = (service: FunctionName, metricName: MetricName, options: { statistic?: string; period?: Duration; label?: string } = {}): Metric =>
  new Metric({
    namespace: METRIC_NAMESPACE,
    metricName,
    dimensionsMap: { service },
    statistic: options.statistic ?? 'Sum',
    period: options.period ?? PERIOD,
    label: options.label,
  });

/** The same count with one more dimension (the refused uploads' `code`). */
export const emfWith = (service: FunctionName, metricName: MetricName, dimensions: Record<string, string>, period = PERIOD): Metric =>
  new Metric({ namespace: METRIC_NAMESPACE, metricName, dimensionsMap: { service, ...dimensions }, statistic: 'Sum', period });

/**
 * Every line of an EMF metric whatever its extra dimensions (a market, a code), for graphs: a SEARCH
 * expression, which dashboards take and alarms do not.
 */
export const emfSearch = (metricName: MetricName, dimensions: readonly string[], statistic = 'Sum', period = PERIOD): IMetric =>
  new MathExpression({
    expression: `SEARCH('{${METRIC_NAMESPACE},${['service', ...dimensions].join(',')}} MetricName="${metricName}"', '${statistic}', ${period.toSeconds()})`,
    usingMetrics: {},
    period,
    label: '',
  });

/**
 * DynamoDB requests refused for throughput, reads and writes together: the table-level throttle events
 * (no per-operation dimension needed, so one alarm covers every call).
 */
export function tableThrottles(table: ITable): IMetric {
  const events = (metricName: string) =>
    new Metric({ namespace: 'AWS/DynamoDB', metricName, dimensionsMap: { TableName: table.tableName }, statistic: 'Sum', period: PERIOD });
  return new MathExpression({
    expression: 'FILL(reads, 0) + FILL(writes, 0)',
    usingMetrics: { reads: events('ReadThrottleEvents'), writes: events('WriteThrottleEvents') },
    period: PERIOD,
    label: 'throttle events',
  });
}

/** The operations the functions send (SystemErrors only exists per operation; an alarm takes at most 10 metrics). */
export const TABLE_OPERATIONS = [
  'GetItem',
  'BatchGetItem',
  'Query',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
  'TransactGetItems',
] as const;

/**
 * CloudFront's share of viewer requests answered 5xx (percent). Its metrics live in us-east-1 under
 * `Region=Global`, a dimension CDK's `Distribution.metric5xxErrorRate` leaves out.
 */
export const cloudFront5xxRate = (distributionId: string, period = PERIOD): Metric =>
  new Metric({
    namespace: 'AWS/CloudFront',
    metricName: '5xxErrorRate',
    dimensionsMap: { DistributionId: distributionId, Region: 'Global' },
    region: 'us-east-1',
    statistic: 'Average',
    period,
  });
