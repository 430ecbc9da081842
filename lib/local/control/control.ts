/** The local control API (`/_local/...`, local runtime only): health, clock, settle, tick, faults, queues, files, live socket drops. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ManualClock } from '../../../shared/clock';
import { DomainError } from '../../../shared/errors';
import { publishGeneratedItems } from '../../../shared/items/publish';
import { sendJson } from '../gateways/http-events';
import { CONTROL_ROUTES } from './control-routes';

export { CONTROL_ROUTES };

/**
 * What the control API drives of the runtime (lib/local/runtime.ts `Runtime`, which serves it): named here so
 * this file does not import the runtime that imports it.
 */
export interface ControlledRuntime {
  readonly clock: Clock;
  readonly faults: Faults;
  readonly mergeCrash: MergeCrash;
  readonly bucketName: string;
  readonly bundleMode: boolean;
  readonly queues: LocalQueues;
  readonly operator: OperatorServices;
  /** The files bucket (s3rver's or the memory files port's). */
  readonly files: FileSource;
  clockMoved(): void;
  dropLiveConnections(code: number): number;
  faultState(): Faults & MergeFaultState;
  faultsChanged(): void;
  settle(): Promise<void>;
  tick(): Promise<string[]>;
}

import type { Clock } from '../../../shared/clock';
import type { LocalQueues } from '../background/queues';
import type { OperatorServices } from '../functions/operator';
import type { FileSource } from '../gateways/file-source';
import type { Faults } from './faults';
import type { MergeCrash, MergeFaultState } from './merge-crash';

const parse = (body: Buffer): Record<string, unknown> | null => {
  if (body.length === 0) return {};
  try {
    const v = JSON.parse(body.toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
};

/**
 * `merge: "crash-once"` crashes the next merge after its first write, `mergeCrashAfter: k` after its k-th
 * (either arms it), `merge: "none"` disarms. Answers the crash to arm (null: disarm), undefined to leave it,
 * or what is wrong with the input.
 */
function mergeFault(merge: unknown, after: unknown): number | null | undefined | string {
  if (merge !== undefined && merge !== 'crash-once' && merge !== 'none') return 'merge is "crash-once" or "none"';
  if (after !== undefined && (typeof after !== 'number' || !Number.isSafeInteger(after) || after < 1)) return 'mergeCrashAfter must be an integer >= 1';
  if (merge === 'none') return after === undefined ? null : 'mergeCrashAfter needs merge "crash-once" (or no merge field)';
  if (after !== undefined) return after as number;
  return merge === 'crash-once' ? 1 : undefined;
}

/** A close code a server may send in a close frame (RFC 6455 7.4; 1004..1006 and 1015 are never sent). */
const serverCloseCode = (code: unknown): code is number =>
  typeof code === 'number' && Number.isInteger(code) && ((code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999));

const bad = (res: ServerResponse, message: string) => sendJson(res, 400, { error: 'bad_request', message });

const FAULTS: Record<keyof Faults | 'merge', readonly string[]> = {
  identity: ['up', 'down'],
  storage: ['up', 'down'],
  table: ['up', 'down'],
  seal: ['fail', 'none'],
  merge: ['crash-once', 'none'],
};
const quoted = (values: readonly string[]): string => values.map((v) => `"${v}"`).join(' or ');

/** The first field of `input` not in `allowed`, as a message naming the allowed ones; null when all are known. */
function unknownField(input: Record<string, unknown>, allowed: readonly string[], route: string): string | null {
  const unknown = Object.keys(input).find((k) => !allowed.includes(k));
  return unknown === undefined ? null : `unknown field "${unknown}": ${route} takes ${allowed.map((a) => `"${a}"`).join(', ')}`;
}

/** Answers a control route; false when the path is not one. */
export async function handleControl(rt: ControlledRuntime, req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer): Promise<boolean> {
  const path = url.pathname;
  const method = req.method ?? 'GET';
  const input = parse(body);
  if (path === '/_local/health') {
    if (method !== 'GET') return (sendJson(res, 405, { error: 'method_not_allowed' }), true);
    sendJson(res, 200, { ok: true, now: rt.clock.now() });
    return true;
  }
  if (method !== 'POST' && ['/_local/clock', '/_local/settle', '/_local/tick', '/_local/faults', '/_local/live/drop'].includes(path)) {
    sendJson(res, 405, { error: 'method_not_allowed' });
    return true;
  }
  if (path === '/_local/clock') {
    if (!input) return (bad(res, 'body must be a JSON object: {"now": ms} or {"advance": ms}'), true);
    if (!(rt.clock instanceof ManualClock))
      return (sendJson(res, 409, { error: 'not_manual', message: 'the clock is the system clock (start with CLOCK=manual)' }), true);
    const unknown = unknownField(input, ['now', 'advance'], path);
    if (unknown) return (bad(res, unknown), true);
    const { now, advance } = input as { now?: unknown; advance?: unknown };
    if (now !== undefined && (typeof now !== 'number' || !Number.isSafeInteger(now))) return (bad(res, 'now must be an integer (Unix ms)'), true);
    if (advance !== undefined && (typeof advance !== 'number' || !Number.isSafeInteger(advance) || advance < 0))
      return (bad(res, 'advance must be a non-negative integer (ms)'), true);
    if (typeof now === 'number') rt.clock.set(now);
    if (typeof advance === 'number') rt.clock.advance(advance);
    rt.clockMoved();
    sendJson(res, 200, { now: rt.clock.now() });
    return true;
  }
  if (path === '/_local/settle') {
    await rt.settle();
    sendJson(res, 200, { now: rt.clock.now() });
    return true;
  }
  if (path === '/_local/tick') {
    const ran = await rt.tick();
    sendJson(res, 200, { ran, now: rt.clock.now() });
    return true;
  }
  if (path === '/_local/faults') {
    if (!input) {
      bad(res, 'body must be a JSON object, e.g. {"storage": "down"}');
      return true;
    }
    const problem =
      unknownField(input, [...Object.keys(FAULTS), 'mergeCrashAfter'], path) ??
      (Object.keys(FAULTS) as Array<keyof typeof FAULTS>)
        .map((f) =>
          input[f] !== undefined && !FAULTS[f].includes(input[f] as string) ? `${f} is ${quoted(FAULTS[f])}, not ${JSON.stringify(input[f])}` : null,
        )
        .find((m) => m !== null);
    if (problem) {
      bad(res, problem);
      return true;
    }
    // The merge crash is SDK middleware on this process's clients (the in-process merge dies mid-write); the
    // table and storage faults are played at the local AWS edge, for the sandboxes too. Asking for the normal
    // state (`none`) is no fault and is answered.
    const inProcess = ['merge', 'mergeCrashAfter'].filter((f) => input[f] !== undefined && input[f] !== 'none');
    if (rt.bundleMode && inProcess.length > 0) {
      sendJson(res, 409, {
        error: 'not_in_bundles',
        message: `the ${inProcess.join(', ')} fault needs the in-process handlers: it cannot run with bundles (the identity, storage, table and seal faults can); start without --bundles`,
      });
      return true;
    }
    const crash = mergeFault(input.merge, input.mergeCrashAfter);
    if (typeof crash === 'string') return (bad(res, crash), true);
    const { identity, storage, table, seal } = input as Partial<Faults>;
    if (identity) rt.faults.identity = identity;
    if (storage) rt.faults.storage = storage;
    if (table) rt.faults.table = table;
    if (seal) rt.faults.seal = seal;
    if (crash !== undefined) rt.mergeCrash.arm(crash);
    rt.faultsChanged();
    sendJson(res, 200, rt.faultState());
    return true;
  }
  if (path === '/_local/live/drop') {
    // Closes every live socket, as API Gateway does at its connection limits: clients' reconnects are tested with it.
    const code = input?.code ?? 1001;
    const problem = !input
      ? 'body must be a JSON object, e.g. {"code": 1001}'
      : (unknownField(input, ['code'], path) ??
        (serverCloseCode(code) ? null : 'code must be a close code a server may send: 1000..1003, 1007..1014 or 3000..4999'));
    if (problem) bad(res, problem);
    else sendJson(res, 200, { dropped: rt.dropLiveConnections(code as number) });
    return true;
  }
  if (path === '/_local/items') {
    if (method !== 'POST') sendJson(res, 405, { error: 'method_not_allowed' });
    else if (!input) bad(res, 'body must be a generated item file (a JSON object)');
    else {
      try {
        const { build } = await publishGeneratedItems(rt.operator, input);
        sendJson(res, 200, { build });
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        sendJson(res, 400, { error: err.code, message: err.message });
      }
    }
    return true;
  }
  if (path === '/_local/queues') {
    const q = rt.queues;
    if (method !== 'GET') sendJson(res, 405, { error: 'method_not_allowed' });
    else sendJson(res, 200, { queues: Object.fromEntries(q.names().map((name) => [name, q.contents(name)])) });
    return true;
  }
  if (path === '/_local/files') {
    if (method !== 'GET') return (sendJson(res, 405, { error: 'method_not_allowed' }), true);
    const prefix = url.searchParams.get('prefix') ?? '';
    const keys = await rt.files.list(prefix);
    sendJson(res, 200, { keys });
    return true;
  }
  return false;
}
