/**
 * Issue 24 point 9: no request waterfall on first load beyond config → identity → data. The app asks the
 * deployment's configuration and the caller at once (neither waits for the other); with the local provider
 * nothing else is asked before the routes draw; only Clerk, which must load before its session is fresh, asks
 * for the caller once more after it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startSession } from '../../app/session';
import { localDeployment } from '../../lib/local/functions/deployment';

const ORIGIN = 'http://127.0.0.1:8787';
const LOCAL_KEY = localDeployment({ base: ORIGIN, stage: 'local', tableName: 't', bucketName: 'b', workBucketName: 'w', filesPrefix: '' }, {
  values: { identity: {}, vapid: {}, vapidPublic: {}, origin: {}, uploader: {} },
  originVerify: '',
} as never).identity.publishableKey;

/** A fetch that answers config and me only once both were asked: a waterfall between them never resolves. */
function concurrentFetch(publishableKey: string) {
  const asked: string[] = [];
  let release!: () => void;
  const both = new Promise<void>((resolve) => {
    release = resolve;
  });
  const fetch = vi.fn(async (input: string | URL | Request) => {
    const path = new URL(String(input), ORIGIN).pathname;
    asked.push(path);
    if (asked.includes('/api/v1/config') && asked.includes('/api/v1/me')) release();
    await Promise.race([both, new Promise((_, reject) => setTimeout(() => reject(new Error(`${path} waited for the other first request`)), 2000))]);
    const body = path === '/api/v1/config' ? { clerkPublishableKey: publishableKey } : { user: null, features: [] };
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  });
  return { fetch, asked };
}

describe('the app on first load', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('asks the configuration and the caller at once, and nothing more before drawing, with the local provider', async () => {
    const { fetch, asked } = concurrentFetch(LOCAL_KEY);
    vi.stubGlobal('fetch', fetch);
    const session = await startSession(ORIGIN);
    expect(session.auth.kind).toBe('local');
    expect(asked.slice(0, 2).sort()).toEqual(['/api/v1/config', '/api/v1/me']);
    expect(asked).toHaveLength(2);
  });

  it('with no identity provider configured, still two requests at once', async () => {
    const { fetch, asked } = concurrentFetch('');
    vi.stubGlobal('fetch', fetch);
    const session = await startSession(ORIGIN);
    expect(session.auth.kind).toBe('none');
    expect(asked).toHaveLength(2);
    expect(session.signedIn).toBe(false);
  });
});
