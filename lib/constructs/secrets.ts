import { SecretValue } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { CONFIG_VARIABLES_BY_SOURCE } from '../../shared/config';
import { SECRET_PLACEHOLDER } from '../../shared/platform/secret-placeholder';
import type { FunctionSpec } from '../../shared/topology';
import type { StageConfig } from '../stages';

type SecretName = NonNullable<FunctionSpec['access']['secrets']>[number];

/** Environment variable carrying each secret's ARN; the function reads the value at cold start (origin: every 5 minutes). */
export const SECRET_ARN_VARIABLES: Record<SecretName, string> = CONFIG_VARIABLES_BY_SOURCE.secretArns;

/** Props of {@link ServiceSecrets}. */
export interface ServiceSecretsProps {
  stage: StageConfig;
}

/**
 * The stage's secrets. Two come from third parties and start as a known placeholder (SECRET_PLACEHOLDER, never a
 * random value) an operator replaces after the first deploy, checked by `npm run check-secrets`: the identity provider's secret key (a plain string) and the VAPID key pair (JSON
 * `{publicKey, privateKey}`, for the push function), with the pair's public half on its own (JSON `{publicKey}`,
 * for the api function, so the function that only tells browsers the key cannot read the private one). Two are the stage's own and generated here: the origin-verify value CloudFront
 * sends (`{current, previous?}`, rotated by the procedure in docs/security.md) and the uploader-hash key.
 */
export class ServiceSecrets extends Construct {
  readonly secrets: Record<SecretName, Secret>;

  constructor(scope: Construct, id: string, props: ServiceSecretsProps) {
    super(scope, id);
    const { stage } = props;
    this.secrets = {
      // A known placeholder, not a generated value: `npm run check-secrets` finds a stage not yet set up.
      identity: new Secret(this, 'Identity', {
        description: `Identity provider (Clerk) secret key of the ${stage.stage} instance`,
        secretStringValue: SecretValue.unsafePlainText(SECRET_PLACEHOLDER),
        removalPolicy: stage.removalPolicy,
      }),
      // An empty public key keeps push switched off until the real pair is stored; the placeholder marks it.
      vapid: new Secret(this, 'Vapid', {
        description: `VAPID key pair {publicKey, privateKey} for Web Push (${stage.stage})`,
        secretObjectValue: { publicKey: SecretValue.unsafePlainText(''), privateKey: SecretValue.unsafePlainText(SECRET_PLACEHOLDER) },
        removalPolicy: stage.removalPolicy,
      }),
      // The pair's public half alone (JSON `{publicKey}`), for the api function, which never signs a push.
      // Not a secret, but kept beside the pair so an operator sets both the same way; empty keeps push off.
      vapidPublic: new Secret(this, 'VapidPublic', {
        description: `VAPID public key {publicKey} browsers subscribe with (${stage.stage}); the same key as the pair's`,
        secretObjectValue: { publicKey: SecretValue.unsafePlainText('') },
        removalPolicy: stage.removalPolicy,
      }),
      origin: new Secret(this, 'Origin', {
        description: `Origin-verify header value {current, previous?} CloudFront adds to API requests (${stage.stage})`,
        generateSecretString: { secretStringTemplate: '{}', generateStringKey: 'current', passwordLength: 48, excludePunctuation: true },
        removalPolicy: stage.removalPolicy,
      }),
      // Kept with production's data: a new key makes every stored uploader hash a stranger's.
      uploader: new Secret(this, 'Uploader', {
        description: `Key of the opaque uploader hash (HMAC) in market data (${stage.stage})`,
        generateSecretString: { passwordLength: 48, excludePunctuation: true },
        removalPolicy: stage.removalPolicy,
      }),
    };
    const reasons: Record<SecretName, string> = {
      identity: 'Issued by the identity provider’s dashboard, so Secrets Manager cannot rotate it; rotating it is a manual runbook step.',
      vapid: 'The VAPID pair is what browsers subscribed with: a new pair orphans every subscription, so it is rotated only by a deliberate runbook step.',
      vapidPublic: 'The public half of the VAPID pair: it changes only with the pair, by the same deliberate runbook step.',
      origin:
        'CloudFront’s origin custom header is static distribution config, so the value rotates in two steps (secret {current, previous}, then the distribution) as docs/security.md describes, not by a rotation Lambda.',
      uploader: 'The uploader-hash key must stay stable: a new key makes every stored uploader hash unrelated to new uploads (consensus, contributors7d).',
    };
    for (const [name, secret] of Object.entries(this.secrets) as Array<[SecretName, Secret]>) {
      NagSuppressions.addResourceSuppressions(secret, [{ id: 'AwsSolutions-SMG4', reason: reasons[name] }]);
    }
  }
}
