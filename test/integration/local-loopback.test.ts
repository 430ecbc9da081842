import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Runtime, startRuntime } from '../../lib/local/runtime';

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
      (await fetch(`${rt.base}${path}`, { method: 'POST', body: JSON.stringify(body) })).json() as Promise<Record<string, string>>;
    const user = await post('/_local/users', {});
    const { token } = await post('/_local/sessions', { userId: user.id });
    const { key } = await post('/_local/api-keys', { userId: user.id });
    for (const credential of [token, key]) {
      const me = await fetch(`${rt.base}/api/v1/me`, { headers: { authorization: `Bearer ${credential}` } });
      expect(me.status).toBe(200);
    }
  });
});
