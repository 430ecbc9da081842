/**
 * The deployment's origins (spec: Authentication rules 1 and 3): a session token's `azp` and a session
 * write's `Origin` must be one of them. Production: its own origin only. Dev and previews: also the
 * configured origins (dev origin, worker URLs), `http://localhost[:port]` and `http://127.0.0.1[:port]`.
 */
import type { Config } from '../config';

const LOOPBACK = /^http:\/\/(localhost|127\.0\.0\.1)(:\d{1,5})?$/;

function originOf(url: string): string | null {
  try {
    const o = new URL(url).origin;
    return o === 'null' ? null : o;
  } catch {
    return null;
  }
}

/** Whether `origin` (an `Origin` header or an `azp` claim) is one of the deployment's origins. */
export function isAllowedOrigin(origin: string | undefined | null, config: Pick<Config, 'env' | 'publicBase' | 'origins'>): boolean {
  if (!origin) return false;
  // Compare exact serialized origins: `Origin` never carries a path, and a trailing slash is not an origin.
  if (origin === originOf(config.publicBase)) return true;
  if (config.env === 'production') return false;
  if (LOOPBACK.test(origin)) return true;
  return config.origins.some((o) => originOf(o) === origin);
}
