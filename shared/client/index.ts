/**
 * The client module (issue 15.1): the typed HTTP client of every API route (answer types from the zod answer
 * schemas behind `/openapi.full.json`) and the live client of one market with its gap rule. It imports no
 * dev dependency: `fetch` and a WebSocket (the platform's, or one passed in) are all it needs.
 */

export { applyRows, type GapState, type GapStep, type KnownCheckpoint, MAX_CHANGES_PER_STEP, nextStep } from './gap-rule';
export {
  type Alert,
  type AlertRequest,
  type Answer,
  ApiError,
  type ApiErrorBody,
  type Boards,
  type BookUpload,
  type Candles,
  type HttpClient,
  type HttpClientOptions,
  httpClient,
  type ItemRead,
  type Markets,
  type Me,
  type Upload,
} from './http-client';
export * from './live-client';
