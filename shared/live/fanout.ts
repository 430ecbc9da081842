/**
 * The change feed's consumer (DESIGN: Live socket): turns the store's changes (shared/ports/changes.ts) into
 * live messages. It reads events, never the table's items: the table stream is decoded in its adapter.
 *
 * | event | message |
 * |---|---|
 * | socket opened | `hello` to that socket |
 * | merged | `ah` to the market's sockets |
 * | files moved (a `sealed` period) | `sealed` (the newest period per resolution) |
 * | alert fired | `alert` to the owner's sockets on that market |
 * | profile changed | `roles` to the account's sockets whose features changed (4403 without `live`) |
 * | device removed | close 4401 for that device's sockets |
 *
 * `hello` goes first: a socket is marked ready before its view is read, and notices skip sockets not ready.
 */
import type { AlertFired, ChangeEvent, DeviceRemoved, FilesMoved, Merged, ProfileChanged, SocketOpened } from '../ports/changes';
import type { LiveConnection, SocketAudience, SocketRef } from '../ports/connections';
import type { Services } from '../services';
import { loadMarketView } from './market-view';
import type { LiveMessage } from './message-types';
import { type Audience, ahMessage, alertMessage, helloMessage, sealedMessage } from './messages';
import { deviceRemoved, profileChanged } from './roles-watch';
import { sendAll } from './sender';

/** Sockets of a market that already had their `hello`, read once per batch. */
class ReadySockets {
  private readonly byMarket = new Map<string, Promise<SocketAudience[]>>();
  constructor(private readonly svc: Pick<Services, 'connections'>) {}
  of(market: string): Promise<SocketAudience[]> {
    let hit = this.byMarket.get(market);
    if (!hit) {
      hit = this.svc.connections.audiencesOf(market).then((all) => all.filter((c) => c.ready));
      this.byMarket.set(market, hit);
    }
    return hit;
  }
}

/** One text per distinct message: sockets with the same audience share it. */
function perAudience(sockets: readonly SocketAudience[], build: (a: Audience) => LiveMessage | null): Array<readonly [SocketRef, string | null]> {
  const cache = new Map<string, string | null>();
  return sockets.map((c) => {
    const id = c.audience;
    if (!cache.has(id)) {
      const msg = build({ roles: [], features: c.features, historyDays: c.historyDays });
      cache.set(id, msg ? JSON.stringify(msg) : null);
    }
    return [c, cache.get(id) ?? null] as const;
  });
}

async function greet(svc: Pick<Services, 'config' | 'clock' | 'connections' | 'sockets' | 'market' | 'log'>, opened: SocketOpened[]): Promise<void> {
  const sockets = opened.map((e) => e.socket);
  // Ready before the view is read: a merge recorded after the read reaches the socket as `ah`.
  const ready = (await Promise.all(sockets.map(async (c) => ((await svc.connections.update(c, { ready: true })) ? c : null)))).filter(
    (c): c is LiveConnection => c !== null,
  );
  const views = new Map<string, ReturnType<typeof loadMarketView>>();
  for (const c of ready) if (!views.has(c.market)) views.set(c.market, loadMarketView(svc, c.market));
  const now = svc.clock.now();
  const targets = await Promise.all(
    ready.map(
      async (c) => [c, JSON.stringify(helloMessage(await (views.get(c.market) as ReturnType<typeof loadMarketView>), c, svc.config.cdnBase, now))] as const,
    ),
  );
  await sendAll(svc, targets);
}

async function announceMerges(svc: Pick<Services, 'config' | 'connections' | 'sockets' | 'log'>, ready: ReadySockets, merged: Merged[]): Promise<void> {
  const merges = merged.map((e) => e.record).sort((a, b) => a.seq - b.seq);
  for (const m of merges) {
    const sockets = await ready.of(m.market);
    await sendAll(
      svc,
      perAudience(sockets, (a) => ahMessage(m, a, svc.config.cdnBase)),
    );
  }
}

async function announceSealed(svc: Pick<Services, 'config' | 'connections' | 'sockets' | 'log'>, ready: ReadySockets, moves: FilesMoved[]): Promise<void> {
  for (const { state, moved } of moves) {
    const sockets = await ready.of(state.market);
    for (const res of moved)
      await sendAll(
        svc,
        perAudience(sockets, (a) => sealedMessage(state, res, a, svc.config.cdnBase)),
      );
  }
}

async function announceAlerts(svc: Pick<Services, 'connections' | 'sockets' | 'log'>, fired: AlertFired[]): Promise<void> {
  for (const { firing } of fired) {
    const sockets = (await svc.connections.ofUser(firing.userId, firing.market)).filter((c) => c.ready);
    const text = JSON.stringify(alertMessage(firing.alert as unknown as Record<string, unknown>));
    await sendAll(
      svc,
      sockets.map((c) => [c, text] as const),
    );
  }
}

/** Handles one batch of the change feed; hellos first so they precede every notice of the same batch. */
export async function fanout(
  svc: Pick<Services, 'config' | 'clock' | 'connections' | 'sockets' | 'market' | 'log'>,
  events: readonly ChangeEvent[],
): Promise<void> {
  const of = <T extends ChangeEvent['type']>(type: T) => events.filter((e): e is Extract<ChangeEvent, { type: T }> => e.type === type);
  const hellos: SocketOpened[] = of('socket-opened');
  const merges: Merged[] = of('merged');
  const sealed: FilesMoved[] = of('files-moved');
  const alerts: AlertFired[] = of('alert-fired');
  const profiles: ProfileChanged[] = of('profile-changed');
  const devices: DeviceRemoved[] = of('device-removed');
  // A stream batch that throws is retried until it expires, holding every later notice back: log and go on.
  const step = async (what: string, run: () => Promise<void>) => {
    try {
      await run();
    } catch (err) {
      svc.log('error', `fanout: ${what} failed`, { error: err instanceof Error ? err.stack : String(err) });
    }
  };
  if (hellos.length > 0) await step('hello', () => greet(svc, hellos));
  const ready = new ReadySockets(svc);
  if (merges.length > 0) await step('ah', () => announceMerges(svc, ready, merges));
  if (sealed.length > 0) await step('sealed', () => announceSealed(svc, ready, sealed));
  if (alerts.length > 0) await step('alert', () => announceAlerts(svc, alerts));
  for (const e of profiles) await step('roles', () => profileChanged(svc, e));
  for (const e of devices) await step('device close', () => deviceRemoved(svc, e));
}
