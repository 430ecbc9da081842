/**
 * What the cost model (model.ts) prices and how it writes a line: the price list, what it needs of the wiring
 * manifest, and one line of the bill. Apart from model.ts so that operations.ts, which model.ts imports, can
 * use them without importing model.ts back.
 */

export interface Prices {
  as_of: string;
  dynamodb_write_request_unit_per_million: number;
  dynamodb_read_request_unit_per_million: number;
  dynamodb_storage_gb_month: number;
  lambda_gb_second: number;
  lambda_requests_per_million: number;
  http_api_requests_per_million: number;
  websocket_messages_per_million: number;
  websocket_connection_minutes_per_million: number;
  s3_put_copy_post_list_per_thousand: number;
  s3_get_head_per_thousand: number;
  s3_storage_gb_month: number;
  sqs_fifo_requests_per_million: number;
  sqs_standard_requests_per_million: number;
  eventbridge_scheduler_invocations_per_million: number;
  cloudfront_https_requests_per_10000: number;
  cloudwatch_logs_ingestion_per_gb: number;
  cloudwatch_logs_storage_gb_month: number;
  cloudwatch_custom_metric_month: number;
  cloudwatch_alarm_metric_month: number;
  cloudwatch_high_resolution_alarm_metric_month: number;
  cloudwatch_dashboard_month: number;
  xray_traces_recorded_per_million: number;
  waf_web_acl_month: number;
  waf_rule_month: number;
  waf_requests_per_million: number;
  secrets_manager_secret_month: number;
  secrets_manager_api_calls_per_10000: number;
  cloudfront_data_transfer_out_per_gb: number;
  cloudfront_functions_invocations_per_million: number;
}

/** What the model needs of the wiring manifest (lib/topology.ts): memory per function, schedules, queues. */
export interface CostTopology {
  memoryMb: Readonly<Record<string, number>>;
  schedules: ReadonlyArray<{ function: string; everyMinutes: number }>;
  fifoQueues: number;
  standardQueues: number;
  markets: number;
  /** Functions serving HTTP routes (each counts its answers by status class). */
  httpFunctions: readonly string[];
  /** Functions that write market pages (each emits `write_units`). */
  marketWriters: readonly string[];
  /** The secrets each function reads. */
  secretsByFunction: Readonly<Record<string, readonly string[]>>;
  /** How often a warm function behind CloudFront re-reads the origin secret. */
  originSecretRefreshMinutes: number;
}

export interface CostLine {
  name: string;
  usd_month: number;
  /** The quantity priced, in words ("27.0 M write units"). */
  detail: string;
}
