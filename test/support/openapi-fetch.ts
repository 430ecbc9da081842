/**
 * Setup file of the integration project (vitest.config.ts): every answer a test receives from a local
 * runtime through `fetch` (local.ts `api()`, the typed client of shared/client, the tests' own calls, the
 * demo's uploads) is held to the OpenAPI documents by test/support/openapi-check.ts (issue 24 point 10). An
 * undocumented status, an invalid body, an undeclared header, a success the operation's security forbids or
 * a 400 to a request the document allows fails the call (the promise rejects) and the test (afterEach), even
 * when the test catches the rejection. Only origins registered with `watchBase` (every local runtime's) are
 * checked: the file host, the storage engines and outside services are not the service's API.
 */
import { afterAll, afterEach } from 'vitest';
import { checkExchange, hasDocuments, useDocuments } from './openapi-check';

/** Kept on the global object: one wrapper and one state per process, whichever module instance registers a base. */
interface State {
  original: typeof fetch;
  watched: Set<string>;
  problems: string[];
  /** Answers checked, by status (OPENAPI_CHECK_STATS=1 prints them when a file ends). */
  checked: Map<number, number>;
}
const KEY = Symbol.for('openapi-checked-fetch');
const globals = globalThis as unknown as Record<symbol, State | undefined>;
globals[KEY] ??= { original: globalThis.fetch, watched: new Set(), problems: [], checked: new Map() };
const state = globals[KEY];
const { original, watched, problems } = state;

/**
 * The fetch the check wraps, for a test that provokes on purpose what no document describes: a function
 * made to time out answers API Gateway's own 500 `{"message":"Internal Server Error"}`, as AWS would.
 */
export const uncheckedFetch: typeof fetch = (input, init) => original(input, init);

/** Holds answers from this base (an origin with or without a path) to the documents. */
export function watchBase(base: string): void {
  watched.add(new URL(base).origin);
}

/** The problems found since the last call (and forgets them). */
export function takeProblems(): string[] {
  return problems.splice(0);
}

function bodyOf(body: unknown): Uint8Array | string | undefined {
  if (typeof body === 'string') return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof URLSearchParams) return body.toString();
  return undefined;
}

/** The documents the runtime at `origin` serves (read once, unchecked); an origin that serves none keeps the built ones. */
async function loadDocuments(origin: string): Promise<void> {
  if (hasDocuments(origin)) return;
  try {
    const [full, subset] = await Promise.all(['/openapi.full.json', '/openapi.json'].map((p) => original(`${origin}${p}`)));
    if (full.ok && subset.ok) useDocuments(origin, await full.json(), await subset.json());
  } catch {
    // Not reachable as pages (the APIs without the edge): the documents built in this process stand in.
  }
}

async function checkedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (!watched.has(url.origin)) return original(input, init);
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  const requestHeaders = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
  const requestBody = input instanceof Request && init?.body === undefined ? undefined : bodyOf(init?.body);
  await loadDocuments(url.origin);
  const res = await original(input, init);
  const text = method === 'HEAD' ? '' : await res.clone().text();
  const found = checkExchange({
    method,
    url,
    requestHeaders,
    requestBody,
    status: res.status,
    responseHeaders: res.headers,
    body: text,
    redirected: res.redirected,
  });
  state.checked.set(res.status, (state.checked.get(res.status) ?? 0) + 1);
  if (found.length > 0) {
    problems.push(...found);
    throw new Error(`the answer does not match the OpenAPI documents:\n${found.join('\n')}`);
  }
  return res;
}

globalThis.fetch = checkedFetch as typeof fetch;

const failIfAny = () => {
  const found = takeProblems();
  if (found.length > 0) throw new Error(`answers that do not match the OpenAPI documents:\n${found.join('\n')}`);
};
afterEach(failIfAny);
afterAll(() => {
  if (process.env.OPENAPI_CHECK_STATS === '1') console.log(`OpenAPI check: answers by status ${JSON.stringify(Object.fromEntries(state.checked))}`);
  failIfAny();
});
