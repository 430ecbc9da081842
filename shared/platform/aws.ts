/**
 * The AWS platform of one function, built once per cold start by its Lambda entry (`lambdas/<fn>/index.ts`)
 * from the client factories that entry imports: an SDK client no factory names is never loaded.
 */
import { systemClock } from '../clock';
import { type Config, parseConfig } from '../config';
import { jsonLog } from '../log';
import { tracedClient } from '../telemetry/tracing';
import type { ClientName, Clients, Platform } from './platform';
import { keepSecretsOutOfLogs, loadSecretEnv } from './secret-env';
import { placeholderVariables } from './secret-placeholder';

export type ClientFactories<K extends ClientName> = { readonly [P in K]: (config: Config) => Clients[P] };

export async function awsPlatform<K extends ClientName>(factories: ClientFactories<K>): Promise<Platform<K>> {
  const all = factories as Partial<ClientFactories<ClientName>>;
  // Secrets first: the configuration reads their values (the secrets client needs no configuration).
  const secrets = all.secrets?.(undefined as never);
  const loaded = await loadSecretEnv(process.env, secrets);
  const config = parseConfig({ ...process.env, ...loaded });
  keepSecretsOutOfLogs(config);
  // The first deploy leaves the third-party secrets as a placeholder: say so until an operator stores them.
  for (const variable of placeholderVariables(loaded)) {
    jsonLog('error', 'secret still holds the first deploy placeholder: store the real value and run npm run check-secrets', { variable });
  }
  const built = new Map<string, unknown>(secrets ? [['secrets', secrets]] : []);
  const getters = Object.fromEntries(
    Object.entries(all).map(([name, make]) => [
      name,
      () => {
        if (!built.has(name)) built.set(name, tracedClient((make as (c: Config) => unknown)(config)));
        return built.get(name);
      },
    ]),
  );
  return { config, clock: systemClock, log: jsonLog, ...getters } as Platform<K>;
}
