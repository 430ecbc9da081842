/**
 * API Gateway's limits the local runtime applies, and its own error answers past them (issue 13 point 2).
 * The control API (`/_local/*`) is not part of the emulated gateway and has none of them.
 *
 * - HTTP API: request payload at most 10 MB (413), integration timeout 30 s (503 `Service Unavailable`, as an
 *   HTTP API answers it; a REST API would answer 504). A Lambda that fails, times out (its own manifest timeout,
 *   shorter than 30 s for every HTTP function) or answers past 6 MB: 500 / 502 `Internal Server Error`.
 * - WebSocket API: a frame at most 32 KB and a message at most 128 KB (the connection is closed with 1009),
 *   `PostToConnection` at most 128 KB (413 `PayloadTooLargeException`).
 */
export const HTTP_API_MAX_BODY = 10 * 1024 * 1024;
export const INTEGRATION_TIMEOUT_MS = 30_000;
export const WS_FRAME_MAX = 32 * 1024;
export const WS_MESSAGE_MAX = 128 * 1024;

/** API Gateway's own bodies (`{"message": ...}`, not the service's `{error}` shape). */
export const GATEWAY_ERRORS = {
  tooLarge: { message: 'Request Entity Too Large' },
  internal: { message: 'Internal Server Error' },
  unavailable: { message: 'Service Unavailable' },
} as const;
