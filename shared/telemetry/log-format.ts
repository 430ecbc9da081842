/**
 * The Powertools log record, redacted: the standard fields (level, message, timestamp, service, cold_start,
 * function_name, function_request_id, ...) and the line's own fields, every value passed through the
 * redactor (shared/log-redact.ts) before Powertools serialises it.
 */
import { LogFormatter, LogItem } from '@aws-lambda-powertools/logger';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';
import { redactValue } from '../log-redact';
import { invocationScope } from './scope';

export class RedactingFormatter extends LogFormatter {
  formatAttributes(attributes: UnformattedAttributes, additional: LogAttributes): LogItem {
    const ctx = attributes.lambdaContext;
    const own = invocationScope.getStore();
    const base = {
      // Lower case as the lines always had it (`info`, `warn`, `error`, `debug`): readers keep working.
      level: attributes.logLevel.toLowerCase(),
      message: attributes.message,
      timestamp: this.formatTimestamp(attributes.timestamp),
      service: attributes.serviceName,
      cold_start: own?.coldStart ?? ctx?.coldStart,
      function_name: ctx?.functionName,
      function_memory_size: ctx?.memoryLimitInMB,
      function_request_id: own?.requestId ?? ctx?.awsRequestId,
      sampling_rate: attributes.sampleRateValue || undefined,
      xray_trace_id: attributes.xRayTraceId,
    };
    return new LogItem({ attributes: redactValue({ ...base, ...additional }) as LogAttributes });
  }
}
