/**
 * The client module (issue 15.1): the typed HTTP client of every API route (answer types from the zod answer
 * schemas behind `/openapi.full.json`) and the live client of one market with its gap rule. It imports no
 * package: `fetch`, CompressionStream and a WebSocket (the platform's, else the optional `ws` package loaded
 * lazily on Node 20, or one passed in) are all it needs, in browsers and on Node 20+ (issue 24.7).
 */

export { type BackoffOptions, backoffDelay, DEFAULT_BACKOFF } from './backoff';
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
export { defaultSocket, globalWebSocket, lazyWsSocket, loadWsLibrary, type WsLibrary, type WsLibrarySocket, wsLibrarySocket } from './sockets';
