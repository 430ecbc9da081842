/** The app's hash locations: `#/<path>?<query>` (no DOM here, so Node's unit tests read it too). */

export interface HashLocation {
  path: string;
  query: URLSearchParams;
}

/** `#/devices/confirm?code=AB` → `{path: '/devices/confirm', query}`; null for a hash that is no route path. */
export function parseHash(hash: string): HashLocation | null {
  if (!hash.startsWith('#/')) return null;
  const rest = hash.slice(1);
  const q = rest.indexOf('?');
  const path = (q < 0 ? rest : rest.slice(0, q)).replace(/\/+$/, '') || '/';
  return { path, query: new URLSearchParams(q < 0 ? '' : rest.slice(q + 1)) };
}
