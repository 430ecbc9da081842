import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynamoDbLocal } from '../../lib/local/engines/engines';
import { type Runtime, startRuntime } from '../../lib/local/runtime';
import { type Local, startLocal } from '../support/local';

/** A listening TCP socket of this machine: its local address and the inode that names it. */
interface Listener {
  address: string;
  port: number;
  inode: string;
}

/** `/proc/net/tcp{,6}` write addresses as 32-bit words in host (little-endian) order. */
function decodeAddress(hex: string): string {
  const bytes = Buffer.from(hex, 'hex');
  for (let i = 0; i < bytes.length; i += 4) bytes.subarray(i, i + 4).reverse();
  if (bytes.length === 4) return [...bytes].join('.');
  const groups = Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(i * 2).toString(16));
  const v6 = groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
  return v6.startsWith('::ffff:') && bytes.length === 16 ? `::ffff:${[...bytes.subarray(12)].join('.')}` : v6;
}

/** Every listening TCP socket (state 0A) of the machine's network namespace. */
function listeners(): Listener[] {
  const out: Listener[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== '0A') continue;
      const [addr, port] = f[1].split(':');
      out.push({ address: decodeAddress(addr), port: Number.parseInt(port, 16), inode: f[9] });
    }
  }
  return out;
}

/** This process and every process below it (the engines run as child processes). */
function processTree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  return tree;
}

/** Inodes of the sockets the processes hold open. */
function socketInodes(pids: number[]): Set<string> {
  const inodes = new Set<string>();
  for (const pid of pids) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.add(m[1]);
      } catch {
        // closed meanwhile
      }
    }
  }
  return inodes;
}

const isLoopback = (address: string): boolean => /^127\./.test(address) || address === '::1' || /^::ffff:127\./.test(address);

/** A request with exactly this `Host` header (fetch may not set it). */
function withHost(base: string, method: string, path: string, host: string | null): Promise<{ status: number; body: Record<string, unknown> }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request(
      { hostname: url.hostname, port: url.port, path: url.pathname, method, setHost: false, headers: host === null ? {} : { host } },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => {
          text += d.toString();
        });
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} });
          } catch {
            resolve({ status: res.statusCode ?? 0, body: { text } });
          }
        });
      },
    );
    req.on('error', reject);
    req.end(method === 'POST' ? '{}' : undefined);
  });
}

/**
 * Integration (issue 11, point 9): the local runtime is local. Every listener it starts (gateway, DynamoDB
 * Local, s3rver) binds loopback only, and the control API answers only requests whose `Host` is the address
 * it printed (no DNS rebinding). This file starts its own engines to see their sockets.
 */
describe('the local runtime is local', () => {
  let rt: Runtime;
  let port: string;

  beforeAll(async () => {
    rt = await startRuntime({ port: 0, dataDir: ':memory:', clock: 'manual', log: false });
    port = new URL(rt.base).port;
  });
  afterAll(() => rt?.close());

  it('listens on loopback only: the gateway, DynamoDB Local and s3rver', () => {
    const mine = socketInodes(processTree(process.pid));
    const listening = listeners().filter((l) => mine.has(l.inode));
    // The gateway and both engines at least.
    expect(listening.length).toBeGreaterThanOrEqual(3);
    expect(listening.map((l) => l.port)).toContain(Number(port));
    expect(listening.filter((l) => !isLoopback(l.address))).toEqual([]);
  });

  it('refuses to listen anywhere but loopback', async () => {
    await expect(
      startRuntime({
        port: 0,
        host: '0.0.0.0',
        dataDir: ':memory:',
        clock: 'manual',
        log: false,
        dynamodbEndpoint: 'http://127.0.0.1:1',
        s3Endpoint: 'http://127.0.0.1:1',
      }),
    ).rejects.toThrow(/loopback/);
  });

  it('answers the control API at the printed address and at localhost with its port', async () => {
    expect(rt.base).toBe(`http://127.0.0.1:${port}`);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      expect((await withHost(rt.base, 'GET', '/_local/health', host)).status).toBe(200);
    }
    expect((await withHost(rt.base, 'POST', '/_local/users', `127.0.0.1:${port}`)).body).toMatchObject({ id: expect.any(String) });
  });

  it('answers 403 bad_host to any other Host: a rebound name, another port, none at all', async () => {
    const hosts = [`evil.example.test:${port}`, 'evil.example.test', '127.0.0.1', `127.0.0.1:${Number(port) + 1}`, `127.0.0.2:${port}`, `[::1]:${port}`, ''];
    const routes: Array<[string, string]> = [
      ['GET', '/_local/health'],
      ['POST', '/_local/users'],
      ['POST', '/_local/sessions'],
      ['POST', '/_local/api-keys'],
      ['POST', '/_local/clock'],
      ['POST', '/_local/settle'],
      ['GET', '/_local/files'],
      ['POST', '/_local/live/drop'],
      ['GET', '/_local/idp/.well-known/jwks.json'],
      ['POST', '/_local/idp/v1/api_keys/verify'],
      ['GET', '/local/@connections/abc'],
    ];
    for (const host of hosts) {
      for (const [method, path] of routes) {
        const res = await withHost(rt.base, method, path, host);
        expect({ host, path, status: res.status, error: res.body.error }).toEqual({ host, path, status: 403, error: 'bad_host' });
      }
    }
    // Without a Host header at all, Node's HTTP server refuses an HTTP/1.1 request before any route.
    expect((await withHost(rt.base, 'GET', '/_local/health', null)).status).toBe(400);
  });

  it('still serves the API under any Host, and its own calls to the identity provider pass', async () => {
    expect((await withHost(rt.base, 'GET', '/api/v1/config', `evil.example.test:${port}`)).status).toBe(200);
    const post = async (path: string, body: unknown) =>
      (await fetch(`${rt.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<
        Record<string, string>
      >;
    const user = await post('/_local/users', {});
    const { token } = await post('/_local/sessions', { userId: user.id });
    const { key } = await post('/_local/api-keys', { userId: user.id });
    for (const credential of [token, key]) {
      const me = await fetch(`${rt.base}/api/v1/me`, { headers: { authorization: `Bearer ${credential}` } });
      expect(me.status).toBe(200);
    }
  });
});

/** A request with exactly these headers and body (`fetch` adds a content type to a string body). */
function raw(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname: url.hostname, port: url.port, path: url.pathname, method, headers }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => {
        text += d.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Issue 23, point 8: the control API refuses what a browser on another site could send. A page anywhere can
 * POST a form or a `no-cors` fetch to 127.0.0.1 with the right `Host`; the browser then names its origin
 * (`Origin`, `Sec-Fetch-Site`) and can only send text or form bodies without asking first (a CORS preflight,
 * never granted). Scripts send none of that and keep working, body-less POSTs included.
 */
describe('the control API refuses what a page of another site sends', () => {
  let local: Local;
  let own: string;

  beforeAll(async () => {
    local = await startLocal();
    own = local.base;
  });
  afterAll(() => local?.close());

  const now = async () => (await raw(own, 'GET', '/_local/health', {})).body.now as number;
  const faults = async () => (await raw(own, 'POST', '/_local/faults', { 'content-type': 'application/json' }, '{}')).body;
  const json = { 'content-type': 'application/json' };

  it('refuses a foreign Origin (another site, another port, "null") with 403 cross_site, and does nothing', async () => {
    const before = { now: await now(), faults: await faults() };
    const port = Number(new URL(own).port);
    for (const origin of ['https://evil.example.test', `http://127.0.0.1:${port + 1}`, `http://evil.example.test:${port}`, 'null']) {
      for (const [method, path, body] of [
        ['POST', '/_local/clock', '{"advance": 3600000}'],
        ['POST', '/_local/faults', '{"storage": "down"}'],
        ['POST', '/_local/users', '{"plan": "premium"}'],
        ['POST', '/_local/settle', undefined],
        ['POST', '/_local/tick', undefined],
        ['DELETE', '/_local/api-keys/ak_x', undefined],
        ['GET', '/_local/files', undefined],
      ] as const) {
        const res = await raw(own, method, path, { ...(body ? json : {}), origin }, body);
        expect({ origin, path, status: res.status, error: res.body.error }).toEqual({ origin, path, status: 403, error: 'cross_site' });
      }
    }
    expect({ now: await now(), faults: await faults() }).toEqual(before);
  });

  it('refuses Sec-Fetch-Site cross-site and same-site with 403 cross_site, even without Origin', async () => {
    const before = await now();
    for (const site of ['cross-site', 'same-site']) {
      const res = await raw(own, 'POST', '/_local/clock', { ...json, 'sec-fetch-site': site }, '{"advance": 1000}');
      expect({ site, status: res.status, error: res.body.error }).toEqual({ site, status: 403, error: 'cross_site' });
      const settle = await raw(own, 'POST', '/_local/settle', { 'sec-fetch-site': site });
      expect(settle.status).toBe(403);
    }
    expect(await now()).toBe(before);
  });

  it("refuses a browser's body that is not declared JSON (text/plain, a form) with 415, and does nothing", async () => {
    const before = { now: await now(), faults: await faults() };
    // A browser's marks: its own origin's page, a current browser's fetch metadata, or an old browser's agent alone.
    const marks: Record<string, string>[] = [
      { origin: own },
      { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'empty' },
      { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:60.0) Gecko/20100101 Firefox/60.0' },
    ];
    for (const mark of marks) {
      for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
        for (const [method, path, body] of [
          ['POST', '/_local/clock', '{"advance": 3600000}'],
          ['POST', '/_local/faults', '{"table": "down"}'],
          ['POST', '/_local/users', '{"plan": "premium"}'],
          ['POST', '/_local/settle', '{}'],
        ] as const) {
          const res = await raw(own, method, path, { ...mark, 'content-type': type }, body);
          expect({ mark, type, path, status: res.status, error: res.body.error }).toEqual({ mark, type, path, status: 415, error: 'unsupported_media_type' });
        }
      }
    }
    expect({ now: await now(), faults: await faults() }).toEqual(before);
  });

  it("takes a script's JSON whatever type it declares (Node's fetch sends a string as text/plain, curl -d as a form)", async () => {
    const before = await now();
    const byFetch = await fetch(`${own}/_local/clock`, { method: 'POST', body: '{"advance": 1000}' });
    expect(await byFetch.json()).toEqual({ now: before + 1000 });
    expect(
      (await raw(own, 'POST', '/_local/clock', { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'curl/8.0' }, '{"advance": 1000}')).body,
    ).toEqual({
      now: before + 2000,
    });
  });

  it('still takes what scripts send: no body and no content type, JSON bodies, its own origin', async () => {
    for (const path of ['/_local/settle', '/_local/tick']) expect((await raw(own, 'POST', path, {})).status).toBe(200);
    const before = await now();
    expect((await raw(own, 'POST', '/_local/clock', json, '{"advance": 1000}')).body).toEqual({ now: before + 1000 });
    const port = new URL(own).port;
    for (const origin of [own, `http://localhost:${port}`]) {
      const res = await raw(own, 'POST', '/_local/users', { 'content-type': 'application/json; charset=utf-8', origin, 'sec-fetch-site': 'same-origin' }, '{}');
      expect(res.status).toBe(200);
    }
  });
});

/**
 * Issue 23, point 8: DynamoDB Local binds loopback in every case, or does not start. It has no option for
 * it; the runtime's launcher (lib/local/engines/java/) binds it, and Java must compile that launcher. Without
 * `javac` (a JRE), Java compiles it from source when it has the `jdk.compiler` module; without either, the
 * start fails with one line that says why and what to install, rather than listen on every interface.
 */
describe('DynamoDB Local listens on loopback whatever Java has, or does not start', () => {
  const java = spawnSync('sh', ['-c', 'command -v java'], { encoding: 'utf8' }).stdout.trim();
  const made: string[] = [];
  const dir = (prefix: string) => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    made.push(d);
    return d;
  };
  afterAll(() => {
    for (const d of made) rmSync(d, { recursive: true, force: true });
  });

  /** Starts DynamoDB Local with only `bin` on PATH (no `javac` there) and a launcher cache of its own. */
  const startWith = async (bin: string) => {
    const path = process.env.PATH;
    process.env.PATH = bin;
    try {
      return await startDynamoDbLocal(null, undefined, dir('ddb-launcher-'));
    } finally {
      process.env.PATH = path;
    }
  };

  it('without javac, listens on loopback only (Java compiles the launcher from its source)', async () => {
    const bin = dir('jre-');
    symlinkSync(java, join(bin, 'java'));
    const engine = await startWith(bin);
    try {
      const port = Number(new URL(engine.endpoint).port);
      const mine = listeners().filter((l) => l.port === port);
      expect(mine.length).toBeGreaterThan(0);
      expect(mine.filter((l) => !isLoopback(l.address))).toEqual([]);
    } finally {
      await engine.stop();
    }
  });

  it('with no Java compiler at all, refuses to start, saying why and what to install', async () => {
    // A Java runtime without the jdk.compiler module (a jlinked or minimal JRE) and no javac.
    const bin = dir('jre-minimal-');
    const grep = spawnSync('sh', ['-c', 'command -v grep'], { encoding: 'utf8' }).stdout.trim();
    writeFileSync(
      join(bin, 'java'),
      [
        '#!/bin/sh',
        `if [ "$1" = "--list-modules" ]; then "${java}" --list-modules | "${grep}" -v '^jdk.compiler@'; exit 0; fi`,
        'case "$*" in *LoopbackDynamoDbLocal.java*) echo "error: unable to find javac compiler" >&2; exit 1;; esac',
        `exec "${java}" "$@"`,
        '',
      ].join('\n'),
    );
    chmodSync(join(bin, 'java'), 0o755);
    const start = startWith(bin);
    await expect(start).rejects.toThrow(/every interface.*javac.*JDK 17\+/);
  });
});
