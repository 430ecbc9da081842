/**
 * The control API's routes (DESIGN: the local control API), apart from their handlers (control.ts) so the
 * listener's routing (edge.ts) can name them without importing the handlers, which import the runtime.
 */

/** Every control route, for the 404 of a path that is none of them (edge.ts answers it). */
export const CONTROL_ROUTES = [
  'GET /_local/health',
  'POST /_local/users',
  'GET|PATCH /_local/users/:id',
  'POST /_local/sessions',
  'POST /_local/api-keys',
  'DELETE /_local/api-keys/:key',
  'POST /_local/clock',
  'POST /_local/settle',
  'POST /_local/tick',
  'POST /_local/faults',
  'POST /_local/items',
  'GET /_local/queues',
  'GET /_local/files?prefix=',
  'POST /_local/live/drop',
];
