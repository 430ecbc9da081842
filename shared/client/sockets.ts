/**
 * The WebSockets the live client can open: the platform's own (browsers, Node 22+) and the `ws` package's
 * (Node 20, which has no global WebSocket; and wherever headers must be sent or a refused upgrade's status
 * read). `ws` is loaded lazily, only when there is no global WebSocket, so a browser bundle never includes it
 * and the client package only names it as an optional peer dependency.
 */

/** What a socket tells the client. */
export interface SocketEvents {
  message(text: string): void;
  close(code: number, reason: string): void;
  error(err: Error): void;
  /** The upgrade was answered with an HTTP status instead (only where the implementation can tell). */
  refused(status: number, body: string): void;
}

/** An open socket as the client uses it. */
export interface LiveSocket {
  send(text: string): void;
  close(code?: number): void;
}

/**
 * Opens a WebSocket with the implementation at hand: the platform's own (browsers, Node 22+), or a library
 * such as `ws` that can send headers and report a refused upgrade's status.
 */
export type OpenSocket = (url: string, headers: Record<string, string>, on: SocketEvents) => LiveSocket;

interface WebSocketLike {
  onmessage: ((e: { data: unknown }) => void) | null;
  onclose: ((e: { code: number; reason: string }) => void) | null;
  onerror: ((e: unknown) => void) | null;
  send(text: string): void;
  close(code?: number): void;
}

type PlatformWebSocket = new (url: string) => WebSocketLike;

/** The platform's WebSocket class, or undefined (Node 20). */
export const globalWebSocket = (): PlatformWebSocket | undefined => (globalThis as { WebSocket?: PlatformWebSocket }).WebSocket;

/** The platform's WebSocket: it cannot send headers (use `tokenIn: 'query'`) nor see a refused upgrade's status. */
export const platformSocket: OpenSocket = (url, headers, on) => {
  const Socket = globalWebSocket();
  if (!Socket) throw new Error('no WebSocket on this platform: pass openSocket');
  if (Object.keys(headers).length > 0) throw new Error("the platform's WebSocket cannot send headers: use tokenIn: 'query' or pass openSocket");
  const ws = new Socket(url);
  ws.onmessage = (e) => on.message(String(e.data));
  ws.onclose = (e) => on.close(e.code, e.reason);
  ws.onerror = () => on.error(new Error('WebSocket error'));
  return { send: (text) => ws.send(text), close: (code) => ws.close(code) };
};

/** The surface of the `ws` package's WebSocket the client uses (named here, so the client's types need no `@types/ws`). */
export interface WsLibrarySocket {
  readonly readyState: number;
  send(text: string): void;
  close(code?: number): void;
  on(event: 'open', listener: () => void): unknown;
  on(event: 'message', listener: (data: { toString(): string }) => void): unknown;
  on(event: 'close', listener: (code: number, reason: { toString(): string }) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  on(
    event: 'unexpected-response',
    listener: (req: unknown, res: { statusCode?: number; setEncoding(e: string): void; on(e: string, l: (chunk?: string) => void): void }) => void,
  ): unknown;
}
export type WsLibrary = new (url: string, options: { headers: Record<string, string> }) => WsLibrarySocket;

const OPEN = 1;

/** A socket of the `ws` package: it sends the credential as a header and reports a refused upgrade's status. */
export const wsLibrarySocket =
  (WebSocket: WsLibrary): OpenSocket =>
  (url, headers, on) => {
    const ws = new WebSocket(url, { headers });
    const pending: string[] = [];
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        body += chunk ?? '';
      });
      res.on('end', () => on.refused(res.statusCode ?? 0, body));
    });
    ws.on('open', () => {
      for (const text of pending.splice(0)) ws.send(text);
    });
    ws.on('error', (err) => on.error(err));
    ws.on('close', (code, reason) => on.close(code, reason.toString()));
    ws.on('message', (data) => on.message(data.toString()));
    return { send: (text) => (ws.readyState === OPEN ? ws.send(text) : void pending.push(text)), close: (code) => ws.close(code) };
  };

/**
 * The package name in a variable: bundlers leave an import of a non-literal alone, so a browser build never
 * tries to include `ws` (it is only loaded where there is no global WebSocket).
 */
const WS_PACKAGE = 'ws';
let wsLoading: Promise<WsLibrary> | null = null;

/** Loads the `ws` package once (its default export, or `WebSocket` when bundled as CommonJS interop). */
export function loadWsLibrary(): Promise<WsLibrary> {
  wsLoading ??= (import(/* @vite-ignore */ WS_PACKAGE) as Promise<{ default?: WsLibrary; WebSocket?: WsLibrary }>).then(
    (mod) => {
      const WebSocket = mod.WebSocket ?? mod.default;
      if (typeof WebSocket !== 'function') throw new Error('the ws package has no WebSocket export');
      return WebSocket;
    },
    (err: Error) => {
      wsLoading = null;
      throw new Error(`no WebSocket on this platform and the ws package could not be loaded (npm install ws): ${err.message}`);
    },
  );
  return wsLoading;
}

/** A `ws` socket whose package is loaded on first use: sends and a close asked for before it opened are kept. */
export const lazyWsSocket: OpenSocket = (url, headers, on) => {
  let socket: LiveSocket | null = null;
  let closeAsked: { code?: number } | null = null;
  const pending: string[] = [];
  loadWsLibrary().then(
    (WebSocket) => {
      if (closeAsked) return on.close(closeAsked.code ?? 1000, 'closed before it opened');
      socket = wsLibrarySocket(WebSocket)(url, headers, on);
      for (const text of pending.splice(0)) socket.send(text);
    },
    (err: Error) => {
      on.error(err);
      on.close(1006, err.message);
    },
  );
  return {
    send: (text) => (socket ? socket.send(text) : void pending.push(text)),
    close: (code) => {
      if (socket) socket.close(code);
      else closeAsked = { code };
    },
  };
};

/** The platform's WebSocket when there is one (browsers, Node 22+), else the `ws` package, loaded lazily (Node 20). */
export const defaultSocket: OpenSocket = (url, headers, on) => (globalWebSocket() ? platformSocket(url, headers, on) : lazyWsSocket(url, headers, on));
