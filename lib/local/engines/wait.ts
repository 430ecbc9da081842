import { createServer } from 'node:net';

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Thrown when a start-up is called off (a stop during start-up): nothing to report, everything to clean up. */
export class StartAborted extends Error {
  constructor() {
    super('start-up called off');
    this.name = 'StartAborted';
  }
}

/** Waits until `probe` resolves true, polling every `everyMs`; throws after `timeoutMs` or once `signal` aborts. */
export async function waitFor(probe: () => Promise<boolean>, what: string, timeoutMs = 20_000, everyMs = 100, signal?: AbortSignal): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (signal?.aborted) throw new StartAborted();
    try {
      if (await probe()) return;
    } catch (err) {
      // not up yet, unless the probe says the engine is gone
      if (err instanceof EngineExited) throw err;
    }
    if (Date.now() > until) throw new Error(`${what} did not start within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A started engine's process exited before it answered: its last words are the reason. */
export class EngineExited extends Error {
  constructor(
    message: string,
    /** Whether it said its port was taken (another process bound it between `freePort` and the engine). */
    readonly portTaken = false,
  ) {
    super(message);
  }
}
