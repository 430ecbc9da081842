/**
 * A live client for one market (spec files-and-live: "Live socket", "Events", "Catching up (gap rule)"):
 * it follows the socket's notices, fetches only the change and checkpoint files it was told of, never one
 * twice, and keeps the market's table. Used by integration tests and as the reference client.
 */
import type { Caps } from '../domain/caps';
import type { AuctionRow } from '../files/documents';
import type { AuthMessage, AuthRequestMessage, HelloMessage, LiveMessage, Sealed } from '../live/message-types';
import { backoffDelay } from './backoff';
import { maybeGunzip } from './compression';
import { Emitter } from './emitter';
import { applyRows, type KnownCheckpoint, nextStep } from './gap-rule';
import { type ChangeBody, type FetchLog, type LiveClientOptions, LiveUpgradeError, type ReconnectOptions } from './live-options';
import { defaultSocket, globalWebSocket, type LiveSocket } from './sockets';

export type { AhMessage, AlertMessage, AuthMessage, ErrorMessage, HelloMessage, LiveMessage, RolesMessage, Sealed, SealedMessage } from '../live/message-types';
export { type FetchLog, type LiveClientOptions, LiveUpgradeError, type ReconnectOptions } from './live-options';
export { type LiveSocket, type OpenSocket, platformSocket, type SocketEvents } from './sockets';

const DEFAULT_TIMEOUT_MS = 10_000;
/** The caller lost `live`: reconnecting would be refused 403 (spec: live socket credential rules). */
const CLOSE_LOST_LIVE = 4403;
/** Refused upgrades that the same request would meet again (401 can be mended by a fresh token). */
const FINAL_REFUSALS = new Set([400, 403, 404, 426]);

/** Reads a file body: JSON, gunzipped here when the host did not send `Content-Encoding: gzip`. */
async function readJson(res: Response): Promise<unknown> {
  const bytes = await maybeGunzip(new Uint8Array(await res.arrayBuffer()));
  return JSON.parse(new TextDecoder().decode(bytes));
}

/**
 * Follows one market's live socket and keeps its table by the gap rule (spec: Catching up). Events: `message`
 * (each message), `seq` (the table moved), `idle` (catching up stopped), `close` ({code, reason}), and with
 * `reconnect`: `reconnecting` ({attempt, delayMs}), `reconnected` (the new `hello`), `gave-up` (the error).
 */
export class LiveClient extends Emitter {
  readonly market: string;
  readonly table: Map<number, AuctionRow>;
  have: number | null;
  target = 0;
  hello: HelloMessage | null = null;
  features: string[] = [];
  roles: string[] = [];
  caps: Caps = {};
  sealed: Sealed = { m1: null, h1: null, d1: null };
  readonly messages: LiveMessage[] = [];
  readonly fetched: FetchLog = { change: [], checkpoint: [], files: 0, table: 0 };
  readonly errors: Error[] = [];
  closed: { code: number; reason: string } | null = null;
  /** How many times the client reconnected (a `hello` on a later socket). */
  reconnects = 0;

  private readonly opts: LiveClientOptions;
  private readonly fetchFn: typeof fetch;
  private token: string | undefined;
  private ws: LiveSocket | null = null;
  private wsClosed = false;
  /** Bumped per socket, so events of a socket already replaced are ignored. */
  private generation = 0;
  /** Set by close(): no reconnecting. */
  private stopped = false;
  private reconnecting = false;
  private wake: (() => void) | null = null;
  private readonly changes = new Map<number, string>();
  private checkpoint: KnownCheckpoint | null = null;
  private readonly prefetched = new Map<string, ChangeBody>();
  private readonly requested = new Set<string>();
  private filesAskedFor: number | null = null;
  private tableLoadedFor: number | null = null;
  private running = false;

  /** How long the client's awaits wait when not told ({@link LiveClientOptions.waitMs}). */
  private readonly waitMs: number;

  constructor(opts: LiveClientOptions) {
    super();
    if (opts.token === undefined && !opts.getToken) throw new Error('LiveClient needs a token or getToken');
    this.opts = opts;
    this.market = opts.market;
    this.table = opts.table ?? new Map();
    this.have = opts.have ?? null;
    this.token = opts.token;
    this.waitMs = opts.waitMs ?? DEFAULT_TIMEOUT_MS;
    // Called as a plain function: a browser's fetch refuses to run with another `this` ("Illegal invocation").
    const fetchFn = opts.fetch ?? ((input: Parameters<typeof fetch>[0], init?: RequestInit) => fetch(input, init));
    this.fetchFn = fetchFn as typeof fetch;
  }

  /** Opens the socket; resolves with `hello`, rejects with LiveUpgradeError when the upgrade is refused. */
  async connect(timeoutMs = this.waitMs): Promise<HelloMessage> {
    this.stopped = false;
    return this.open(timeoutMs);
  }

  /** A fresh credential from getToken (else the one given). */
  private async freshToken(): Promise<string> {
    if (this.opts.getToken) this.token = await this.opts.getToken();
    if (this.token === undefined) throw new Error('no token');
    return this.token;
  }

  private async open(timeoutMs: number): Promise<HelloMessage> {
    const token = await this.freshToken();
    if (this.stopped) throw new Error('closed');
    const base = this.opts.base.replace(/\/+$/, '').replace(/^http/, 'ws');
    let url = `${base}/api/v1/live?market=${encodeURIComponent(this.market)}`;
    const headers: Record<string, string> = {};
    const tokenIn = this.opts.tokenIn ?? (this.opts.openSocket || !globalWebSocket() ? 'header' : 'query');
    if (tokenIn === 'query') url += `&token=${encodeURIComponent(token)}`;
    else headers.authorization = `Bearer ${token}`;
    const generation = ++this.generation;
    const current = () => generation === this.generation;
    return new Promise<HelloMessage>((resolve, reject) => {
      let greeted = false;
      const timer = setTimeout(() => {
        reject(new Error('no hello in time'));
        if (current() && !greeted) this.ws?.close();
      }, timeoutMs);
      const fail = (err: Error) => {
        clearTimeout(timer);
        reject(err);
      };
      this.wsClosed = false;
      this.ws = (this.opts.openSocket ?? defaultSocket)(url, headers, {
        refused: (status, body) => fail(new LiveUpgradeError(status, body)),
        error: (err) => {
          if (!current()) return;
          this.errors.push(err);
          fail(err);
        },
        close: (code, reason) => {
          if (!current()) return;
          this.wsClosed = true;
          this.closed = { code, reason };
          this.emit('close', this.closed);
          fail(new Error(`socket closed with ${code} before hello`));
          if (greeted && this.shouldReconnect(code)) void this.reconnectLoop();
        },
        message: (text) => {
          if (!current()) return;
          let msg: LiveMessage;
          try {
            msg = JSON.parse(text) as LiveMessage;
          } catch {
            this.errors.push(new Error('a message that is not JSON'));
            return;
          }
          if (msg.t === 'hello') {
            greeted = true;
            this.closed = null;
          }
          this.onMessage(msg);
          if (msg.t === 'hello') {
            clearTimeout(timer);
            resolve(msg);
          }
        },
      });
    });
  }

  private get reconnectOptions(): ReconnectOptions | null {
    const r = this.opts.reconnect;
    return r ? (r === true ? {} : r) : null;
  }

  private shouldReconnect(code: number): boolean {
    return this.reconnectOptions !== null && !this.stopped && !this.reconnecting && code !== CLOSE_LOST_LIVE;
  }

  /** Waits with backoff and reopens until a `hello` arrives, the client is closed, or a retry cannot help. */
  private async reconnectLoop(): Promise<void> {
    const opts = this.reconnectOptions ?? {};
    this.reconnecting = true;
    try {
      for (let attempt = 0; !this.stopped; attempt++) {
        if (attempt >= (opts.maxAttempts ?? Number.POSITIVE_INFINITY)) {
          this.emit('gave-up', new Error(`no hello after ${attempt} attempts`));
          return;
        }
        const delayMs = backoffDelay(attempt, (opts.random ?? Math.random)(), opts);
        this.emit('reconnecting', { attempt: attempt + 1, delayMs });
        await this.sleep(delayMs);
        if (this.stopped) return;
        try {
          const hello = await this.open(this.waitMs);
          this.reconnects++;
          this.emit('reconnected', hello);
          return;
        } catch (err) {
          this.errors.push(err as Error);
          const final = err instanceof LiveUpgradeError && (FINAL_REFUSALS.has(err.status) || (err.status === 401 && !this.opts.getToken));
          if (final) {
            this.emit('gave-up', err);
            return;
          }
        }
      }
    } finally {
      this.reconnecting = false;
    }
  }

  /** A wait that close() cuts short. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = null;
        done();
      };
    });
  }

  /** Sends raw text (tests of `bad_message`). */
  send(text: string): void {
    this.ws?.send(text);
  }

  /** Re-authenticates with `{t: "auth", token}`; resolves with the `auth` answer, rejects on `error`. */
  async auth(token: string, timeoutMs = this.waitMs): Promise<AuthMessage> {
    const since = this.messages.length;
    const renewal: AuthRequestMessage = { t: 'auth', token };
    this.send(JSON.stringify(renewal));
    const answer = await this.waitForMessage((m) => m.t === 'auth' || m.t === 'error', { since, timeoutMs });
    if (answer.t === 'error') throw new Error(`auth refused: ${answer.error}`);
    this.token = token;
    return answer as AuthMessage;
  }

  /** Renews the open socket's credential with a fresh token from getToken (spec: `{t: "auth", token}`). */
  async renew(timeoutMs = this.waitMs): Promise<AuthMessage> {
    if (!this.opts.getToken) throw new Error('renew needs getToken');
    return this.auth(await this.opts.getToken(), timeoutMs);
  }

  /** Closes the socket for good: no reconnecting after it. */
  close(code = 1000): void {
    this.stopped = true;
    this.wake?.();
    this.ws?.close(code);
  }

  /** Resolves once a message received at or after index `since` (default 0) matches (narrowed by a type guard). */
  waitForMessage<M extends LiveMessage>(match: (m: LiveMessage) => m is M, opts?: { since?: number; timeoutMs?: number }): Promise<M>;
  waitForMessage(match: (m: LiveMessage) => boolean, opts?: { since?: number; timeoutMs?: number }): Promise<LiveMessage>;
  waitForMessage(match: (m: LiveMessage) => boolean, { since = 0, timeoutMs = this.waitMs } = {}): Promise<LiveMessage> {
    const found = this.messages.slice(since).find(match);
    if (found) return Promise.resolve(found);
    return this.waitFor('message', match, timeoutMs, 'message');
  }

  /** Resolves once the table's seq is at least `seq` and catching up has stopped. */
  waitForSeq(seq: number, timeoutMs = this.waitMs): Promise<void> {
    const done = () => this.have !== null && this.have >= seq && !this.running;
    if (done()) return Promise.resolve();
    return this.waitFor('idle', done, timeoutMs, `seq ${seq}`).then(() => undefined);
  }

  /** Resolves once catching up has stopped. */
  idle(timeoutMs = this.waitMs): Promise<void> {
    if (!this.running) return Promise.resolve();
    return this.waitFor('idle', () => true, timeoutMs, 'idle').then(() => undefined);
  }

  /** Resolves with the close code and reason. */
  waitForClose(timeoutMs = this.waitMs): Promise<{ code: number; reason: string }> {
    if (this.closed) return Promise.resolve(this.closed);
    return this.waitFor('close', () => true, timeoutMs, 'close') as Promise<{ code: number; reason: string }>;
  }

  private waitFor<T>(event: string, match: (value: T) => boolean, timeoutMs: number, what: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const listener = (value: T) => {
        if (!match(value)) return;
        clearTimeout(timer);
        this.off(event, listener);
        resolve(value);
      };
      const timer = setTimeout(() => {
        this.off(event, listener);
        reject(new Error(`timed out waiting for ${what} (have ${this.have}, target ${this.target})`));
      }, timeoutMs);
      this.on(event, listener);
    });
  }

  private get following(): boolean {
    return this.opts.follow ?? this.features.includes('prices.live');
  }

  private onMessage(msg: LiveMessage): void {
    this.messages.push(msg);
    switch (msg.t) {
      case 'hello':
        this.hello = msg;
        this.roles = msg.roles;
        this.features = msg.features;
        this.caps = msg.caps;
        this.sealed = msg.sealed;
        for (const [seq, url] of msg.changes) this.learnChange(seq, url);
        this.learnCheckpoint(msg.checkpoint);
        this.learnTarget(msg.seq);
        break;
      case 'ah':
        if (msg.url) this.learnChange(msg.seq, msg.url);
        this.learnTarget(msg.seq);
        break;
      case 'sealed':
        this.sealed = { ...this.sealed, [msg.res]: msg.start };
        break;
      case 'roles':
        this.roles = msg.roles;
        this.features = msg.features;
        break;
      default:
        break;
    }
    this.emit('message', msg);
    this.kick();
  }

  private learnChange(seq: number, url: string): void {
    if (this.have === null || seq > this.have) this.changes.set(seq, url);
  }

  private learnCheckpoint(cp: KnownCheckpoint | null | undefined): void {
    if (cp && (!this.checkpoint || cp.seq > this.checkpoint.seq)) this.checkpoint = { seq: cp.seq, url: cp.url };
  }

  private learnTarget(seq: number): void {
    if (seq > this.target) this.target = seq;
  }

  private kick(): void {
    if (this.running || !this.following) return;
    this.running = true;
    this.catchUp()
      .catch((err: Error) => this.errors.push(err))
      .finally(() => {
        this.running = false;
        this.emit('idle', undefined);
      });
  }

  /** Runs the gap rule until nothing is left to do, or until only a fresh notice can help. */
  private async catchUp(): Promise<void> {
    while (this.following && !this.closedByClient()) {
      const step = nextStep({
        have: this.have,
        target: this.target,
        changes: this.changes,
        checkpoint: this.checkpoint,
        filesAsked: this.filesAskedFor === this.target,
      });
      if (step.kind === 'none') return;
      if (step.kind === 'changes') {
        await this.applyChanges(step.seqs, step.urls);
      } else if (step.kind === 'checkpoint') {
        await this.applyCheckpoint(step.checkpoint, step.seqs, step.urls);
      } else if (step.kind === 'files') {
        this.filesAskedFor = this.target;
        await this.askFiles();
      } else {
        if (this.tableLoadedFor === this.target) return;
        this.tableLoadedFor = this.target;
        await this.loadTable();
      }
    }
  }

  private closedByClient(): boolean {
    return this.ws === null || this.wsClosed;
  }

  /** Fetches change files in parallel, each URL at most once; bodies not applied yet are kept. */
  private async fetchChanges(seqs: number[], urls: string[]): Promise<(ChangeBody | null)[]> {
    return Promise.all(
      urls.map(async (url, i) => {
        const kept = this.prefetched.get(url);
        if (kept) return kept;
        const body = await this.fetchFile(url, 'change', seqs[i]);
        if (body) this.prefetched.set(url, body);
        return body;
      }),
    );
  }

  private async applyChanges(seqs: number[], urls: string[]): Promise<void> {
    this.applyInOrder(seqs, urls, await this.fetchChanges(seqs, urls));
  }

  private async applyCheckpoint(cp: KnownCheckpoint, seqs: number[], urls: string[]): Promise<void> {
    const [body, changes] = await Promise.all([this.fetchFile(cp.url, 'checkpoint', cp.seq), this.fetchChanges(seqs, urls)]);
    if (this.checkpoint?.url === cp.url) this.checkpoint = null;
    if (!body) return;
    this.resetTo(cp.seq, body.rows);
    this.applyInOrder(seqs, urls, changes);
  }

  /** Applies fetched changes in seq order, stopping at the first one missing. */
  private applyInOrder(seqs: number[], urls: string[], bodies: (ChangeBody | null)[]): void {
    for (let i = 0; i < bodies.length; i++) {
      const body = bodies[i];
      if (!body || this.have === null || seqs[i] !== this.have + 1) {
        this.forgetChange(seqs[i]);
        return;
      }
      applyRows(this.table, body.rows);
      this.prefetched.delete(urls[i]);
      this.advance(seqs[i]);
    }
  }

  /** The table becomes a checkpoint's or the table route's rows as of `seq`. */
  private resetTo(seq: number, rows: AuctionRow[]): void {
    this.table.clear();
    applyRows(this.table, rows);
    this.advance(seq);
  }

  private advance(seq: number): void {
    this.have = seq;
    for (const s of this.changes.keys()) if (s <= seq) this.changes.delete(s);
    this.emit('seq', seq);
  }

  /** A change that could not be read is dropped, so the rule goes on through a checkpoint, the files route or the table. */
  private forgetChange(seq: number): void {
    if (this.have === null || seq > this.have) this.changes.delete(seq);
  }

  private async fetchFile(url: string, kind: 'change' | 'checkpoint', seq: number): Promise<ChangeBody | null> {
    if (this.requested.has(url)) {
      this.errors.push(new Error(`refused to fetch ${url} twice`));
      return null;
    }
    this.requested.add(url);
    this.fetched[kind].push(url);
    try {
      const res = await this.fetchFn(url);
      if (!res.ok) throw new Error(`${kind} ${seq}: HTTP ${res.status}`);
      const body = (await readJson(res)) as ChangeBody;
      if (body?.v !== 1 || body.market !== this.market || body.seq !== seq || !Array.isArray(body.rows)) {
        throw new Error(`${kind} ${seq}: not the expected file`);
      }
      return body;
    } catch (err) {
      this.errors.push(err as Error);
      return null;
    }
  }

  private api(path: string): Promise<Response> {
    const base = this.opts.base.replace(/\/+$/, '');
    return this.fetchFn(`${base}/api/v1/ah/${encodeURIComponent(this.market)}${path}`, { headers: { authorization: `Bearer ${this.token}` } });
  }

  private async askFiles(): Promise<void> {
    this.fetched.files++;
    try {
      const res = await this.api('/files');
      if (!res.ok) throw new Error(`files route: HTTP ${res.status}`);
      const body = (await res.json()) as { live?: { seq: number; checkpoint: KnownCheckpoint | null; changes: [number, string][] } };
      if (!body.live) return;
      for (const [seq, url] of body.live.changes) this.learnChange(seq, url);
      this.learnCheckpoint(body.live.checkpoint);
      this.learnTarget(body.live.seq);
      this.filesAskedFor = this.target;
    } catch (err) {
      this.errors.push(err as Error);
    }
  }

  private async loadTable(): Promise<void> {
    this.fetched.table++;
    try {
      const res = await this.api('');
      if (!res.ok) throw new Error(`table route: HTTP ${res.status}`);
      const body = (await res.json()) as { rows: AuctionRow[]; seq: number };
      if (!Array.isArray(body.rows) || typeof body.seq !== 'number') throw new Error('table route: no rows and seq');
      if (this.have !== null && body.seq < this.have) return;
      this.learnTarget(body.seq);
      this.resetTo(body.seq, body.rows);
    } catch (err) {
      this.errors.push(err as Error);
    }
  }
}
