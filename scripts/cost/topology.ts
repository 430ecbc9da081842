/**
 * The manifest's side of the cost model: memory per function, schedules and queues. The one import of the
 * manifest, so its move (lib/topology.ts → shared/topology.ts) is a one-line change here.
 */
import { FUNCTIONS, QUEUES, SCHEDULES } from '../../shared/topology';
import type { CostTopology } from './model';

export function costTopology(): CostTopology {
  return {
    memoryMb: Object.fromEntries(FUNCTIONS.map((f) => [f.name, f.memoryMb])),
    schedules: SCHEDULES.map((s) => ({ function: s.function, everyMinutes: s.everyMinutes })),
    fifoQueues: QUEUES.filter((q) => q.fifo).length,
    standardQueues: QUEUES.filter((q) => !q.fifo).length,
  };
}
