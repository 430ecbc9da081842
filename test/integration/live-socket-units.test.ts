/**
 * What a live socket's life costs in table units (issue 15 point 6: cost), counted per function through the
 * runtime as the cost bench does: `$connect` takes a hub place and writes the socket's record, its pointer by
 * connection id and its account entry (4 writes); `hello` marks it ready (1 write, the view reads are shared
 * by a stream batch); `$disconnect` deletes the three and gives the place back (4 writes) and reads nothing:
 * deleting the pointer answers where the socket lived. Everything is gone afterwards, and the place is free.
 * Since issue 23 point 3 the upgrade also counts the account's open sockets (one strongly consistent COUNT
 * query: 1 read; DynamoDB Local reports 0 when it finds none) and counts against the caller's minute (its
 * counter is written on the caller's first request of the minute in a container, then once per batch).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CostMeter } from '../bench/cost-meter';
import { type Local, startLocal } from '../support/local';
import { MARKET } from '../support/market-books';
import { services } from '../support/operator';

describe('live socket units', () => {
  let local: Local;
  let token: string;
  const meter = new CostMeter();

  beforeAll(async () => {
    local = await startLocal();
    const u = await local.user({ plan: 'premium' });
    token = await local.session(u.id, { expiresIn: 30 * 86_400 });
    meter.install();
  });
  afterAll(async () => {
    meter.uninstall();
    await local?.close();
  });

  const open = () =>
    new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(`${local.base.replace(/^http/, 'ws')}/api/v1/live?market=${MARKET}`, { headers: { authorization: `Bearer ${token}` } });
      ws.on('message', (d) => {
        if (JSON.parse(d.toString()).t === 'hello') resolve(ws);
      });
      ws.on('error', reject);
    });
  const close = (ws: WebSocket) =>
    new Promise<void>((resolve) => {
      ws.once('close', () => resolve());
      ws.close();
    });
  const units = (fn: string, usage: ReturnType<CostMeter['take']>) => {
    const u = usage.byFunction.get(fn);
    return { rcu: u?.rcu ?? 0, wcu: u?.wcu ?? 0 };
  };

  it('connects for 4 writes and hello for 1; disconnects for 4 writes and no read', async () => {
    // A first socket warms the functions and the market's caps (made once a day), then the measured one.
    await close(await open());
    await local.runtime.drain();
    meter.take();

    const ws = await open();
    await local.runtime.drain();
    const connected = meter.take();
    expect(units('ws-connect', connected)).toEqual({ rcu: 0, wcu: 4 });
    expect(units('fanout', connected).wcu).toBe(1);

    await close(ws);
    await local.runtime.drain();
    const gone = meter.take();
    expect(units('ws-disconnect', gone)).toEqual({ rcu: 0, wcu: 4 });
    expect(await services().connections.ofMarket(MARKET)).toEqual([]);
  });

  it('counts the upgrade and the account’s open sockets for 1 read, and its minute counter for 1 write on the minute’s first upgrade only', async () => {
    const first = await open();
    await local.runtime.drain();
    // A fresh minute: the caller's first request of it writes its counter; later ones are written in batches.
    const now = await local.now();
    await local.setClock((Math.floor(now / 60_000) + 1) * 60_000);
    meter.take();
    const second = await open();
    await local.runtime.drain();
    expect(units('ws-connect', meter.take())).toEqual({ rcu: 1, wcu: 5 });
    const third = await open();
    await local.runtime.drain();
    expect(units('ws-connect', meter.take())).toEqual({ rcu: 1, wcu: 4 });
    await Promise.all([first, second, third].map(close));
    await local.runtime.drain();
  });

  it('gives the hub place back once: a full hub of sockets fits again after they all left', async () => {
    const sockets = await Promise.all(Array.from({ length: 5 }, open));
    await local.runtime.drain();
    expect(await services().connections.ofMarket(MARKET)).toHaveLength(5);
    await Promise.all(sockets.map(close));
    await local.runtime.drain();
    expect(await services().connections.ofMarket(MARKET)).toEqual([]);
    // Every place was given back: the next socket is in hub 0 again.
    const again = await open();
    await local.runtime.drain();
    expect((await services().connections.ofMarket(MARKET)).map((c) => c.hub)).toEqual([0]);
    await close(again);
    await local.runtime.drain();
  });
});
