/** What a local runtime is started with (lib/local/runtime.ts) and the fault switches `/_local/faults` sets. */
import type { BundleBuildOptions } from './functions/bundles';
import type { LogMode } from './process/log-lines';

export interface RuntimeOptions {
  /**
   * `engines` (the default): DynamoDB Local and s3rver behind the local AWS edge, the only mode where units, IAM
   * and SDK faults are real. `memory`: the in-memory fakes, no engine, no Java, nothing kept (`npm start -- --memory`,
   * lib/local/memory/); `dataDir`, the engines' endpoints, `recordCalls` and `bundles` mean nothing there.
   */
  backend?: 'engines' | 'memory';
  port?: number;
  host?: string;
  /** Where data lives; `:memory:` keeps nothing. */
  dataDir: string;
  /** `replay` (the demo): starts at `clockStart` in the past, moved by its driver, then follows the system clock. */
  clock: 'manual' | 'system' | 'replay';
  clockStart?: number;
  /** Use already running engines (tests share one DynamoDB Local and one s3rver per run). */
  dynamodbEndpoint?: string;
  s3Endpoint?: string;
  /** Suffix of the table and bucket names, so several runtimes can share engines. */
  name?: string;
  /** Runs as a preview stage does: every file under this bucket prefix (ending in `/`), served from `/cdn/<prefix>`. */
  filesPrefix?: string;
  /**
   * Also listen (on another loopback port, `directBase`) as the APIs' own execute-api host does: requests
   * there skip the edge, so they carry no origin-verify header and their headers arrive as sent (tests).
   */
  direct?: boolean;
  /**
   * What is printed of the service's lines: a LogMode (`npm start`'s LOG, lib/local/process/log-lines.ts); `true`
   * (the default) every JSON line, `false` only the error lines, as JSON.
   */
  log?: boolean | LogMode;
  /**
   * Records every AWS call a handler makes (function, IAM action, resource ARN: lib/local/iam/) in `calls`,
   * and appends them to `file` when given (the test run checks them against the synthesized policies).
   */
  recordCalls?: { file?: string };
  /**
   * Runs every function from its deploy bundle (esbuild, synth's options) in its own worker thread, with its
   * own environment, instead of importing its sources into this process (docs/local-runtime.md "Running the deployed
   * bundles"). `alsoExternal` (tests only): a bundling mistake, to show that it fails the start.
   */
  bundles?: boolean | BundleBuildOptions;
  /**
   * The dev template as JSON, already synthesized from these sources (a test run synthesizes it once in its
   * global setup: loading aws-cdk-lib and synthesizing cost each runtime ~3 s). Default: synthesized here.
   */
  templateFile?: string;
  /** A daily quota of keys new to the catalogue below the deployed 10,000 (tests; shared/config.ts). */
  catalogueKeysPerDay?: number;
}

export type { Faults } from './control/faults';
