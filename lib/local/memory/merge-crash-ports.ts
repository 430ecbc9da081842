/**
 * The `merge` fault on the fakes: the engines' mode counts a merge's SDK write calls (lib/local/control/merge-crash.ts
 * middleware); here each write call of a table or bucket port is one write, so an armed crash stops the merge
 * after its k-th port write and every later write of that invocation fails, as after a real crash. The count is
 * the ports' (`mergeWrites` differs from the engines' SDK count: one port call may be several SDK calls).
 */
import { aroundPort } from '../../../shared/ports/around-port';
import type { Services } from '../../../shared/services';
import type { MergeCrash } from '../control/merge-crash';

/** The ports standing on the table and the buckets, whose writes a crash interrupts. */
const STORAGE_PORTS = ['market', 'identity', 'settings', 'uploads', 'catalogue', 'connections', 'files', 'work'] as const;

/** Port methods that write (the ports' verbs: shared/ports/*.ts); everything else reads. */
const WRITES =
  /^(put|write|delete|remove|commit|record|update|add|set|advance|claim|release|take|replace|save|raise|rewrite|create|ensure|keep|expire|touch|reserve|return|bind|collect|mark(Pending)?$)/;

export function crashablePorts<S extends Services>(svc: S, crash: MergeCrash): S {
  const out = { ...svc } as Record<string, unknown>;
  for (const name of STORAGE_PORTS)
    out[name] = aroundPort(svc[name] as object, (call, method) => (WRITES.test(method) ? crash.write(async () => call()) : call()));
  return out as unknown as S;
}
