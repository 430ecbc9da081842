/**
 * What the app knows before it draws anything: the deployment (GET /api/v1/config), the identity provider
 * it names, and the caller (GET /api/v1/me). Config and the caller are asked at once; only Clerk, which must
 * load before its cookie is fresh, asks for the caller again (config → identity → data, no longer chain).
 */
import { type HttpClient, httpClient, type Me } from '../shared/client/http-client';
import { type AuthProvider, chooseAuth } from './auth';

export interface Session {
  api: HttpClient;
  auth: AuthProvider;
  me: Me;
  /** Whether someone is signed in (the service knows a user). */
  readonly signedIn: boolean;
  /** Asks the service again who is signed in (after the provider signed someone in or out). */
  refresh(): Promise<void>;
}

/** The session of this page, for the site at `origin`. */
export async function startSession(origin: string): Promise<Session> {
  const api = httpClient({ base: origin });
  const [config, firstMe] = await Promise.all([api.config(), api.me()]);
  const auth = await chooseAuth(config.clerkPublishableKey, origin);
  const session: Session = {
    api,
    auth,
    me: auth.kind === 'clerk' ? await api.me() : firstMe,
    get signedIn() {
      return session.me.user !== null;
    },
    async refresh() {
      session.me = await api.me();
    },
  };
  return session;
}
