/**
 * The manifest's side of the cost model: memory per function, schedules, queues, markets, the functions that
 * count answers or write market pages, and the secrets each reads. The one import of the manifest, so its move
 * (lib/topology.ts → shared/topology.ts) is a one-line change here.
 */
import { MARKETS } from '../../shared/domain/market';
import { ORIGIN_SECRET_REFRESH_MS } from '../../shared/http/edge';
import { FUNCTIONS, functionSpec, HTTP_ROUTES, QUEUES, SCHEDULES } from '../../shared/topology';
import type { CostTopology } from './model';
import type { ScaleTopology } from './scale';

export function costTopology(): CostTopology {
  return {
    memoryMb: Object.fromEntries(FUNCTIONS.map((f) => [f.name, f.memoryMb])),
    schedules: SCHEDULES.map((s) => ({ function: s.function, everyMinutes: s.everyMinutes })),
    fifoQueues: QUEUES.filter((q) => q.fifo).length,
    standardQueues: QUEUES.filter((q) => !q.fifo).length,
    markets: MARKETS.length,
    httpFunctions: [...new Set(HTTP_ROUTES.map((r) => r.function as string))],
    marketWriters: FUNCTIONS.filter((f) => f.access.marketPages === true).map((f) => f.name),
    secretsByFunction: Object.fromEntries(FUNCTIONS.map((f) => [f.name, [...(f.access.secrets ?? [])]])),
    originSecretRefreshMinutes: ORIGIN_SECRET_REFRESH_MS / 60_000,
  };
}

/** The manifest's side of the scale model (scripts/cost/scale.ts): the fan-out's size and what is reserved. */
export function scaleTopology(): ScaleTopology {
  const fanout = functionSpec('fanout');
  return {
    fanoutMemoryMb: fanout.memoryMb,
    fanoutReservedConcurrency: fanout.reservedConcurrency ?? 0,
    mergeReservedConcurrency: functionSpec('merge').reservedConcurrency ?? 0,
    reservedTotal: FUNCTIONS.reduce((sum, f) => sum + (f.reservedConcurrency ?? 0), 0),
  };
}
