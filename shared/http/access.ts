/** Who may call a route, declared with the route (shared/http/handler.ts) and checked by admission (admit.ts). */
import type { Feature } from '../domain/roles';

/**
 * A feature one query parameter's value needs besides the route's own (`res=m1` needs `candles.minute`).
 * Declared with the route so admission checks it with the other features, before any 400 of the path or
 * query (DESIGN: check order). A value naming no feature (a bad `res`) is left to the route's own 400.
 */
export interface QueryFeatures {
  param: string;
  /** The value an absent parameter stands for. */
  absent?: string;
  features: Readonly<Record<string, Feature>>;
}

/**
 * Who may call a route. `public`: anyone (API keys still need `api.read` on reads unless `keyExempt`);
 * `signedIn`: 401 for anonymous callers; `feature`: signed-in and holding the feature (403 otherwise).
 */
export type Access =
  | {
      kind: 'public';
      keyExempt?: boolean;
      /** anyone holding it, anonymous callers included (403 otherwise, never 401) */
      feature?: Feature;
      query?: QueryFeatures;
      /** answers every method alike and changes nothing (404 / 405): a session's write needs no Origin here */
      writesNothing?: boolean;
    }
  | { kind: 'signedIn' }
  | { kind: 'feature'; feature: Feature /** reads need only a signed-in caller */; signedInOnly?: boolean }
  /** A retired route (spec: always 404): answered before admission, so no credential is read and nothing is counted. */
  | { kind: 'retired' };
