/** Route matching with API Gateway's rules: literal segments beat `{param}` segments; a path whose method is not served is 405. */
export interface RoutePattern {
  method: string;
  path: string;
}

export type RouteMatch<R extends RoutePattern> =
  | { kind: 'route'; route: R; params: Record<string, string>; routeKey: string }
  | { kind: 'not_found' }
  | { kind: 'method_not_allowed'; allow: string[] };

interface Compiled<R> {
  route: R;
  segments: string[];
  literals: number;
}

export class Router<R extends RoutePattern> {
  private readonly compiled: Compiled<R>[];

  constructor(routes: readonly R[]) {
    this.compiled = routes.map((route) => {
      const segments = route.path.split('/').slice(1);
      return { route, segments, literals: segments.filter((s) => !s.startsWith('{')).length };
    });
  }

  match(method: string, path: string): RouteMatch<R> {
    const parts = path.split('/').slice(1);
    const candidates: Array<{ c: Compiled<R>; params: Record<string, string> }> = [];
    for (const c of this.compiled) {
      const params = matchSegments(c.segments, parts);
      if (params) candidates.push({ c, params });
    }
    if (candidates.length === 0) return { kind: 'not_found' };
    const wanted = method.toUpperCase();
    const served = candidates.filter(({ c }) => c.route.method === wanted || c.route.method === 'ANY');
    if (served.length === 0) {
      return { kind: 'method_not_allowed', allow: [...new Set(candidates.map(({ c }) => c.route.method))] };
    }
    served.sort((a, b) => b.c.literals - a.c.literals || rank(a.c.route.method) - rank(b.c.route.method));
    const best = served[0];
    return { kind: 'route', route: best.c.route, params: best.params, routeKey: `${best.c.route.method} ${best.c.route.path}` };
  }
}

const rank = (method: string): number => (method === 'ANY' ? 1 : 0);

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | null {
  if (pattern.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    const v = parts[i];
    if (p.startsWith('{')) {
      if (v === '') return null;
      try {
        params[p.slice(1, -1)] = decodeURIComponent(v);
      } catch {
        return null;
      }
    } else if (p !== v) {
      return null;
    }
  }
  return params;
}
