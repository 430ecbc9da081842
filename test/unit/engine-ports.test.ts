/**
 * An engine's port can be taken between `freePort` and the engine binding it (parallel test files start runtimes
 * on ephemeral ports all the time): the start probe must then not take another server for the engine (a local
 * runtime answering 401 made a start fail with "send the credential as Authorization: Bearer"), and the engine
 * is started again on another port.
 */
import { describe, expect, it } from 'vitest';
import { type Engine, isDynamoDbAnswer, isS3Answer, onFreePort } from '../../lib/local/engines/engines';
import { EngineExited } from '../../lib/local/engines/wait';

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const xml = (status: number, body: string) => new Response(body, { status, headers: { 'content-type': 'application/xml' } });

describe('engine start on a free port', () => {
  it('takes only DynamoDB’s ListTables answer for DynamoDB Local', async () => {
    expect(await isDynamoDbAnswer(json(200, { TableNames: [] }))).toBe(true);
    expect(await isDynamoDbAnswer(json(401, { error: 'unauthorized', message: 'send the credential as Authorization: Bearer <token>' }))).toBe(false);
    expect(await isDynamoDbAnswer(json(200, { ok: true }))).toBe(false);
    expect(await isDynamoDbAnswer(new Response('<!doctype html><title>Home</title>', { status: 200, headers: { 'content-type': 'text/html' } }))).toBe(false);
  });

  it('takes only S3’s XML for s3rver', async () => {
    expect(await isS3Answer(xml(200, '<?xml version="1.0" encoding="UTF-8"?>\n<ListAllMyBucketsResult></ListAllMyBucketsResult>'))).toBe(true);
    expect(await isS3Answer(xml(403, '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code></Error>'))).toBe(true);
    expect(await isS3Answer(json(404, { error: 'not_found' }))).toBe(false);
    expect(await isS3Answer(new Response('<!doctype html>', { status: 200, headers: { 'content-type': 'text/html' } }))).toBe(false);
  });

  it('starts again on another port when the engine says its port was taken, and not for another failure', async () => {
    const engine: Engine = { endpoint: 'http://127.0.0.1:1', stop: async () => undefined };
    const ports: number[] = [];
    const started = await onFreePort(async (port) => {
      ports.push(port);
      if (ports.length === 1) throw new EngineExited('DynamoDB Local exited: java.net.BindException: Address already in use', true);
      return engine;
    });
    expect(started).toBe(engine);
    expect(ports).toHaveLength(2);
    let tries = 0;
    await expect(
      onFreePort(async () => {
        tries++;
        throw new EngineExited('DynamoDB Local exited: out of memory');
      }),
    ).rejects.toThrow('out of memory');
    expect(tries).toBe(1);
    tries = 0;
    await expect(
      onFreePort(async () => {
        tries++;
        throw new EngineExited('s3rver exited: EADDRINUSE', true);
      }),
    ).rejects.toThrow('EADDRINUSE');
    expect(tries).toBe(3);
  });
});
