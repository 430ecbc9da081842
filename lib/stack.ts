import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { FANOUT_STREAM_FILTERS } from '../shared/live/stream-filter';
import { accessIn, FALLBACK_FUNCTION, FUNCTIONS, HTTP_ROUTES, MERGE_QUEUES, PUSH_QUEUE, SCHEDULES, STREAM_CONSUMER, WS_ROUTES } from '../shared/topology';
import { AccessLogsBucket } from './constructs/access-logs-bucket';
import { ServiceAlarms } from './constructs/alarms';
import { ServiceDashboard } from './constructs/dashboard';
import { DataTable } from './constructs/data-table';
import { DevExports, DevImports, type FileHost } from './constructs/dev-link';
import { EdgeFirewall } from './constructs/edge-firewall';
import { FilesBucket, fileHostCorsOrigins } from './constructs/files-bucket';
import { HttpApi } from './constructs/http-api';
import { LiveApi } from './constructs/live-api';
import { PublicDistribution } from './constructs/public-distribution';
import { ManifestQueue, MergeQueues } from './constructs/queues';
import { Schedules } from './constructs/schedules';
import { ServiceSecrets } from './constructs/secrets';
import { ServiceFunctions } from './constructs/service-functions';
import { SiteAssets } from './constructs/site-assets';
import { WorkBucket } from './constructs/work-bucket';
import { siteBuild } from './site-build';
import type { StageConfig } from './stages';

/** Props of a {@link MarketDataStack}. */
export interface MarketDataStackProps extends StackProps {
  config: StageConfig;
}

/** One stage of the service, composed from the constructs and wired entirely from the manifest. */
export class MarketDataStack extends Stack {
  constructor(scope: Construct, id: string, props: MarketDataStackProps) {
    super(scope, id, props);
    const stage = props.config;
    const logsBucket = new AccessLogsBucket(this, 'AccessLogs', { stage });
    const table = new DataTable(this, 'Table', { stage });
    const secrets = new ServiceSecrets(this, 'Secrets', { stage });
    const merge = new MergeQueues(this, 'MergeQueues', { specs: MERGE_QUEUES });
    const push = new ManifestQueue(this, 'PushQueue', { spec: PUSH_QUEUE });
    const httpApi = new HttpApi(this, 'HttpApi', { stage });
    const liveApi = new LiveApi(this, 'LiveApi', { stage });
    const firewall = stage.waf ? new EdgeFirewall(this, 'Firewall', { stage }) : undefined;
    const site = new PublicDistribution(this, 'Site', {
      stage,
      httpApi,
      liveApi,
      logsBucket,
      originSecret: secrets.secrets.origin,
      webAclArn: firewall?.webAcl.attrArn,
    });
    // The website's build (made now when missing or stale), deployed behind the same distribution.
    const build = siteBuild();
    const assets = new SiteAssets(this, 'SiteAssets', { stage, build, distribution: site.distribution, logsBucket });

    const dev = stage.sharedFileHost ? new DevImports(this, 'Dev', { prefix: stage.sharedFileHost.prefix }) : undefined;
    const origins = [site.origin, ...(dev ? [dev.devOrigin] : []), ...stage.extraOrigins];
    let files: FileHost;
    let ownFiles: FilesBucket | undefined;
    if (dev) {
      files = dev.files;
    } else {
      ownFiles = new FilesBucket(this, 'Files', { stage, corsOrigins: fileHostCorsOrigins(origins, stage.localPorts), logsBucket });
      files = { bucket: ownFiles.bucket, prefix: '', cdnBase: ownFiles.cdnBase };
    }
    if (stage.stage === 'dev') new DevExports(this, 'DevExports', { files, publicOrigin: site.origin });
    const work = new WorkBucket(this, 'WorkBucket', { stage, logsBucket });
    logsBucket.emptiedAfter(site, work, assets, ...(ownFiles ? [ownFiles] : []));

    const functions = new ServiceFunctions(this, 'Functions', {
      stage,
      // Production leaves out what only its 404 routes would use (POST /admin/snapshot's writes).
      specs: FUNCTIONS.map((spec) => accessIn(spec, stage.env)),
      deployment: {
        stage: stage.stage,
        publicBase: `${site.origin}/`,
        cdnBase: files.cdnBase,
        origins: origins.join(','),
        identity: stage.identity,
        siteEntry: build.entry,
        connectionsEndpoint: liveApi.connectionsEndpoint,
        vapidSubject: stage.vapidSubject,
        logSampleRate: stage.logSampleRate ?? 0.01,
        tracing: stage.tracing,
      },
      table,
      files,
      work,
      mergeQueues: merge.queues,
      mergeRejected: merge.rejected,
      pushQueue: push,
      liveApi,
      secrets,
    });
    const fn = functions.get.bind(functions);

    httpApi.addRoutes(HTTP_ROUTES, fn(FALLBACK_FUNCTION), fn);
    liveApi.addRoutes(WS_ROUTES, fn);
    for (const q of [...merge.queues, push]) q.feed(fn(q.spec.consumer));
    const streamConsumer = fn(STREAM_CONSUMER.function);
    const streamFailed = table.streamTo(streamConsumer, STREAM_CONSUMER.batchSize, FANOUT_STREAM_FILTERS);
    const { jobs } = new Schedules(this, 'Schedules', { specs: SCHEDULES, functionOf: fn });
    const alarms = new ServiceAlarms(this, 'Alarms', {
      stage,
      queues: [...merge.queues, push],
      mergeQueues: merge.queues,
      mergeRejected: merge.rejected,
      serverErrors: httpApi.metricServerErrors(),
      functions: functions.all(),
      streamConsumer,
      streamFailed,
      jobs,
      table,
      liveStage: liveApi.stage,
      distributionId: site.distribution.distributionId,
    });
    new ServiceDashboard(this, 'Dashboard', {
      stage,
      mergeQueues: merge.queues,
      streamConsumer,
      liveStage: liveApi.stage,
      jobs,
      functionOf: fn,
      distributionId: site.distribution.distributionId,
      alarms: alarms.alarms,
    });

    new CfnOutput(this, 'PublicBase', { value: `${site.origin}/` });
    new CfnOutput(this, 'CdnBase', { value: files.cdnBase });
    new CfnOutput(this, 'ConnectionsEndpoint', { value: liveApi.connectionsEndpoint });
    new CfnOutput(this, 'IdentitySecretArn', { value: secrets.secrets.identity.secretArn });
    new CfnOutput(this, 'VapidSecretArn', { value: secrets.secrets.vapid.secretArn });
    new CfnOutput(this, 'VapidPublicSecretArn', { value: secrets.secrets.vapidPublic.secretArn });
    new CfnOutput(this, 'OriginSecretArn', { value: secrets.secrets.origin.secretArn });
    if (httpApi.originTarget && liveApi.originTarget) {
      // DNS: CNAME each origin host to its target (CloudFront reaches the APIs only through them).
      new CfnOutput(this, 'ApiOriginTarget', { value: httpApi.originTarget });
      new CfnOutput(this, 'LiveOriginTarget', { value: liveApi.originTarget });
    }
  }
}
