/**
 * The runtime's back end: DynamoDB Local and s3rver (or engines a test run already started), the local AWS
 * edge in front of them (lib/local/aws-edge/), which needs the synthesized template's policies, and the
 * table and buckets the service expects. Everything it starts is kept, so a stop at any point of start-up
 * stops it (an engine still starting is called off by the abort signal and stops itself).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AwsEdgeOptions } from '../aws-edge/edge';
import { type LocalAws, startLocalAws } from '../aws-edge/start';
import { currentFunction } from '../functions/lambda';
import { CallRecorder, type LocalNames } from '../iam/calls';
import type { TemplateJson } from '../iam/resolve';
import { type Engine, startDynamoDbLocal, startS3rver } from './engines';
import { ensureBucket, ensureTable } from './storage';

export interface BackendOptions {
  /** Where the engines keep their data (`dynamodb/`, `s3/` below it); null keeps nothing. */
  dataDir: string | null;
  /** Already running engines (tests share one DynamoDB Local and one s3rver per run). */
  dynamodbEndpoint?: string;
  s3Endpoint?: string;
  /** The dev template as JSON, already synthesized; default: synthesized here (~3 s). */
  templateFile?: string;
  host: string;
  names: LocalNames;
  faults: AwsEdgeOptions['faults'];
  /** Records every call at the edge (lib/local/iam/), appended to `file` when given. */
  recordCalls?: { file?: string };
  now: AwsEdgeOptions['now'];
  log: AwsEdgeOptions['log'];
  signal: AbortSignal;
}

export interface StartedBackend {
  aws: LocalAws;
  template: TemplateJson;
  recorder: CallRecorder | null;
  /** DynamoDB Local's own endpoint (its stream is read there). */
  ddbEndpoint: string;
}

export class Backend {
  /** The local AWS edge, the functions' credentials and the engines' own clients (null before start). */
  aws: LocalAws | null = null;
  private engines: Engine[] = [];
  /** What is still starting: a stop during start-up waits for it. */
  private starting: Promise<unknown>[] = [];

  /** Keeps `work` (begun alongside, such as the bundles' build) for a stop to wait for, whether it succeeds or not. */
  track(work: Promise<unknown>): void {
    this.starting.push(work.catch(() => undefined));
  }

  async start(o: BackendOptions): Promise<StartedBackend> {
    // Both engines in parallel: start-up stays well under 10 s.
    const engines = [
      o.dynamodbEndpoint ?? this.keep(startDynamoDbLocal(o.dataDir ? join(o.dataDir, 'dynamodb') : null, o.signal)),
      o.s3Endpoint ?? this.keep(startS3rver(o.dataDir ? join(o.dataDir, 's3') : null, o.signal)),
    ];
    // The functions' policies, from the synthesized template, while the engines start.
    const loading = o.templateFile
      ? Promise.resolve(JSON.parse(readFileSync(o.templateFile, 'utf8')) as TemplateJson)
      : import('../iam/template').then((t) => t.localTemplate());
    loading.catch(() => undefined);
    const [dynamodb, s3] = await Promise.all(engines);
    const template = await loading;
    const recorder = o.recordCalls ? new CallRecorder(o.names, currentFunction, o.recordCalls.file) : null;
    // Every function's DynamoDB and S3 call goes through the local AWS edge (lib/local/aws-edge/), in both modes.
    const aws = await startLocalAws({ host: o.host, engines: { dynamodb, s3 }, template, names: o.names, faults: o.faults, recorder, now: o.now, log: o.log });
    this.aws = aws;
    const { engineDdb, engineS3 } = aws;
    await Promise.all([ensureTable(engineDdb, o.names.table), ensureBucket(engineS3, o.names.bucket), ensureBucket(engineS3, o.names.work)]);
    return { aws, template, recorder, ddbEndpoint: dynamodb };
  }

  /** Waits for everything still starting (it stops itself once the start is called off). */
  async started(): Promise<void> {
    await Promise.all(this.starting);
  }

  /** Stops the edge and the engines this back end started (not those it was given). */
  async stop(): Promise<void> {
    await this.aws?.edge.close();
    await Promise.all(this.engines.map((e) => e.stop()));
  }

  /** An engine being started: kept for `stop()` whether start-up goes on or not. */
  private keep(starting: Promise<Engine>): Promise<string> {
    const endpoint = starting.then((e) => {
      this.engines.push(e);
      return e.endpoint;
    });
    this.track(endpoint);
    return endpoint;
  }
}
