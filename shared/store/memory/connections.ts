/**
 * In-memory fake of the live sockets' records and of `@connections` (unit tests); the contract suites hold
 * them to the DynamoDB adapter and to the local gateway. Kept as the table keeps them: the record in its hub,
 * a pointer by connection id (with the socket's message meter) and an entry under the account.
 */
import type { ChangeSink } from '../../ports/changes';
import {
  audienceKey,
  type ConnectionFields,
  type ConnectionsPort,
  HUB_SIZE,
  type LiveConnection,
  type MessageCount,
  type NewConnection,
  type PostResult,
  type SocketAudience,
  type SocketRef,
  type SocketsPort,
} from '../../ports/connections';

interface Pointer {
  market: string;
  hub: number;
  userId: string;
  /** The minute counted and its count. */
  mw?: number;
  mn?: number;
}

const copy = <T>(v: T): T => structuredClone(v);
const recordKey = (c: Pick<LiveConnection, 'market' | 'hub' | 'connectionId'>) => `${c.market}#${c.hub}#${c.connectionId}`;

export class MemoryConnections implements ConnectionsPort {
  private readonly records = new Map<string, LiveConnection & { aud: string }>();
  private readonly pointers = new Map<string, Pointer>();
  private readonly users = new Map<string, Map<string, { market: string; hub: number }>>();
  /** Places taken per market and hub (hub counters outlive their sockets, as the table's do). */
  private readonly hubs = new Map<string, Map<number, number>>();

  constructor(
    /** Sockets per hub (tests use small hubs). */
    private readonly hubSize = HUB_SIZE,
    /** Told of each new socket, as the table's stream tells of its record's INSERT. */
    private readonly changes?: ChangeSink,
  ) {}

  async add(c: NewConnection): Promise<LiveConnection> {
    const counts = this.hubs.get(c.market) ?? new Map<number, number>();
    this.hubs.set(c.market, counts);
    let hub = 0;
    while ((counts.get(hub) ?? 0) >= this.hubSize) hub++;
    counts.set(hub, (counts.get(hub) ?? 0) + 1);
    const conn: LiveConnection = { ...copy(c), hub, ready: false };
    this.records.set(recordKey(conn), { ...copy(conn), aud: audienceKey(c.features, c.historyDays) });
    this.pointers.set(c.connectionId, { market: c.market, hub, userId: c.userId });
    const mine = this.users.get(c.userId) ?? new Map();
    mine.set(c.connectionId, { market: c.market, hub });
    this.users.set(c.userId, mine);
    this.changes?.publish({ type: 'socket-opened', socket: copy(conn) });
    return conn;
  }

  async get(connectionId: string): Promise<LiveConnection | null> {
    const ptr = this.pointers.get(connectionId);
    return ptr ? this.at({ connectionId, market: ptr.market, hub: ptr.hub }) : null;
  }

  async at(ref: Pick<LiveConnection, 'connectionId' | 'market' | 'hub'>): Promise<LiveConnection | null> {
    const r = this.records.get(recordKey(ref));
    if (!r) return null;
    const { aud: _aud, ...c } = copy(r);
    return c;
  }

  async countMessage(connectionId: string, minute: number): Promise<MessageCount | null> {
    const ptr = this.pointers.get(connectionId);
    if (!ptr) return null;
    if (ptr.mw === minute) ptr.mn = (ptr.mn ?? 0) + 1;
    else if (ptr.mw === undefined || ptr.mw < minute) Object.assign(ptr, { mw: minute, mn: 1 });
    else return null;
    return { at: { connectionId, market: ptr.market, hub: ptr.hub, userId: ptr.userId }, count: ptr.mn ?? 1 };
  }

  async remove(c: SocketRef): Promise<boolean> {
    const existed = this.records.delete(recordKey(c));
    this.pointers.delete(c.connectionId);
    this.users.get(c.userId)?.delete(c.connectionId);
    if (!existed) return false;
    const counts = this.hubs.get(c.market);
    if (counts) counts.set(c.hub, (counts.get(c.hub) ?? 0) - 1);
    return true;
  }

  async removeById(connectionId: string): Promise<boolean> {
    const ptr = this.pointers.get(connectionId);
    return ptr ? this.remove({ connectionId, market: ptr.market, hub: ptr.hub, userId: ptr.userId }) : false;
  }

  async update(c: LiveConnection, fields: ConnectionFields): Promise<boolean> {
    const r = this.records.get(recordKey(c));
    if (!r) return false;
    const set = Object.fromEntries(Object.entries(copy(fields)).filter(([, v]) => v !== undefined));
    Object.assign(r, set);
    if (fields.features || fields.historyDays !== undefined) r.aud = audienceKey(fields.features ?? c.features, fields.historyDays ?? c.historyDays);
    return true;
  }

  private inMarket(market: string): Array<LiveConnection & { aud: string }> {
    return [...this.records.values()].filter((r) => r.market === market).sort((a, b) => a.hub - b.hub || (a.connectionId < b.connectionId ? -1 : 1));
  }

  async ofMarket(market: string): Promise<LiveConnection[]> {
    return this.inMarket(market).map(({ aud: _aud, ...c }) => copy(c));
  }

  async audiencesOf(market: string): Promise<SocketAudience[]> {
    return this.inMarket(market).map((r) => {
      const bar = r.aud.lastIndexOf('|');
      return {
        connectionId: r.connectionId,
        market,
        hub: r.hub,
        userId: r.userId,
        ready: r.ready,
        features: r.aud.slice(0, bar).split(',').filter(Boolean) as SocketAudience['features'],
        historyDays: Number(r.aud.slice(bar + 1)),
        audience: r.aud,
      };
    });
  }

  async ofUser(userId: string, market?: string): Promise<LiveConnection[]> {
    const out: LiveConnection[] = [];
    for (const [connectionId, where] of this.users.get(userId) ?? []) {
      if (market !== undefined && where.market !== market) continue;
      const c = await this.at({ connectionId, ...where });
      if (c) out.push(c);
    }
    return out;
  }

  async countOfUser(userId: string): Promise<number> {
    return this.users.get(userId)?.size ?? 0;
  }
}

/** `@connections` in memory: a socket is open from `open` until it is closed or goes away; every post and close is kept. */
export class MemorySockets implements SocketsPort {
  readonly posted = new Map<string, string[]>();
  readonly closed = new Map<string, number>();
  private readonly open = new Set<string>();

  /** A client connected (what the gateway does before `$connect` admits it). */
  connect(connectionId: string): void {
    this.open.add(connectionId);
  }

  /** The client went away without a close from the server: posts answer gone (410). */
  goneAway(connectionId: string): void {
    this.open.delete(connectionId);
  }

  async post(connectionId: string, data: Uint8Array): Promise<PostResult> {
    if (!this.open.has(connectionId)) return 'gone';
    const list = this.posted.get(connectionId) ?? [];
    list.push(Buffer.from(data).toString('utf8'));
    this.posted.set(connectionId, list);
    return 'sent';
  }

  async close(connectionId: string, code: number): Promise<void> {
    if (!this.open.delete(connectionId)) return;
    this.closed.set(connectionId, code);
  }

  /** The messages posted to a socket, parsed (tests). */
  messagesOf(connectionId: string): unknown[] {
    return (this.posted.get(connectionId) ?? []).map((t) => JSON.parse(t));
  }
}
