/**
 * Route keys are a type derived from the manifest (issue 12 point 3): a route table with a misspelled, missing
 * or foreign key fails the typecheck. The `@ts-expect-error` lines are the test: `npm run typecheck` (part of
 * `npm test`) fails if any of them stops being an error.
 */
import { describe, expect, it } from 'vitest';
import { routes as apiRoutes } from '../../lambdas/api/routes';
import { routes as pageRoutes } from '../../lambdas/pages/routes';
import { routes as uploadRoutes } from '../../lambdas/upload/routes';
import type { Route, RoutesOf, RouteTable } from '../../shared/http/handler';
import { HTTP_ROUTES, type RouteKey } from '../../shared/topology';

const route = {} as Route;

describe('route keys typed from the manifest', () => {
  it('refuses a misspelled, a foreign and a missing key at compile time', () => {
    // @ts-expect-error `/api/v1/mee` is no route of the manifest
    const misspelled = { 'GET /api/v1/mee': route } satisfies RoutesOf<'api'>;
    // @ts-expect-error the book upload is the `upload` function's route, not `api`'s
    const foreign = { 'POST /api/v1/ah/books': route } satisfies RoutesOf<'api'>;
    const { 'GET /api/v1/me': _me, ...rest } = apiRoutes;
    // @ts-expect-error a table without `GET /api/v1/me` is not api's whole table
    const missing = rest satisfies RouteTable<'api'>;
    const method: RouteKey<'pages'> = 'HEAD /llms.txt';
    // @ts-expect-error pages answer GET and HEAD only
    const wrongMethod: RouteKey<'pages'> = 'POST /llms.txt';
    expect([misspelled, foreign, missing, method, wrongMethod]).toHaveLength(5);
  });

  it('gives every manifest route of a function exactly one entry in its table', () => {
    const tables: Record<string, object> = { api: apiRoutes, pages: pageRoutes, upload: uploadRoutes };
    for (const [fn, table] of Object.entries(tables)) {
      const keys = HTTP_ROUTES.filter((r) => r.function === fn).map((r) => `${r.method} ${r.path}`);
      expect(Object.keys(table).sort()).toEqual([...keys].sort());
    }
  });
});
