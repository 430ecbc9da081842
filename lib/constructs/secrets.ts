import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import type { StageConfig } from '../stages';
import type { FunctionSpec } from '../topology';

type SecretName = NonNullable<FunctionSpec['access']['secrets']>[number];

/** Environment variable carrying each secret's ARN; the function reads the value once per cold start. */
export const SECRET_ARN_VARIABLES: Record<SecretName, string> = { identity: 'IDP_SECRET_ARN', vapid: 'VAPID_SECRET_ARN' };

/** Props of {@link ServiceSecrets}. */
export interface ServiceSecretsProps {
  stage: StageConfig;
}

/**
 * The stage's secrets, created with placeholder values that an operator replaces after the first deploy:
 * the identity provider's secret key (a plain string) and the VAPID key pair (JSON `{publicKey, privateKey}`).
 */
export class ServiceSecrets extends Construct {
  readonly secrets: Record<SecretName, Secret>;

  constructor(scope: Construct, id: string, props: ServiceSecretsProps) {
    super(scope, id);
    const { stage } = props;
    this.secrets = {
      identity: new Secret(this, 'Identity', {
        description: `Identity provider (Clerk) secret key of the ${stage.stage} instance`,
        removalPolicy: stage.removalPolicy,
      }),
      // An empty public key keeps push switched off until the real pair is stored.
      vapid: new Secret(this, 'Vapid', {
        description: `VAPID key pair {publicKey, privateKey} for Web Push (${stage.stage})`,
        generateSecretString: { secretStringTemplate: JSON.stringify({ publicKey: '' }), generateStringKey: 'privateKey' },
        removalPolicy: stage.removalPolicy,
      }),
    };
    for (const secret of Object.values(this.secrets)) {
      NagSuppressions.addResourceSuppressions(secret, [
        {
          id: 'AwsSolutions-SMG4',
          reason: 'Issued by third parties (the identity provider’s dashboard; the VAPID pair browsers subscribed with), so Secrets Manager cannot rotate them; rotation is a manual runbook step.',
        },
      ]);
    }
  }
}
