/**
 * The local runtime's faults (DESIGN: the local control API, `POST /_local/faults`): what is down or failing
 * on purpose, so tests can show how the service answers an outage.
 */
import { aroundPort } from '../../../shared/ports/around-port';
import { DependencyFailure } from '../../../shared/ports/dependency-failure';
import type { Services } from '../../../shared/services';

export interface Faults {
  identity: 'up' | 'down';
  storage: 'up' | 'down';
  /** The service's table calls fail as in a DynamoDB outage (the runtime's own stream poller and sweeper go on). */
  table: 'up' | 'down';
  /** `fail`: every scheduled seal run throws (until `none`), so its event lands in the seal's failed-runs queue. */
  seal: 'fail' | 'none';
}

/** Which of the service's ports stand on the table and which on a bucket (the `table` and `storage` faults). */
const TABLE_PORTS = ['market', 'identity', 'settings', 'uploads', 'catalogue', 'connections'] as const;
const BUCKET_PORTS = ['files', 'work'] as const;

/**
 * The `table` and `storage` faults as port decorators: while one is `down`, every call of the ports standing on
 * that dependency is refused with the ports' one outage error (`DependencyFailure`), before the adapter or fake
 * behind it runs, so the faults mean the same on the engines and on the in-memory fakes. `faults` is read at
 * each call: `POST /_local/faults` switches them while the service runs.
 */
export function withFaults<S extends Partial<Services>>(svc: S, faults: Pick<Faults, 'table' | 'storage'>): S {
  const out: Partial<Services> = { ...svc };
  const decorate = (names: readonly (keyof Services)[], dependency: 'table' | 'bucket', down: () => boolean, why: string) => {
    for (const name of names) {
      const port = svc[name];
      if (port === undefined) continue;
      (out as Record<string, unknown>)[name] = aroundPort(port as object, (call) => {
        if (down()) return Promise.reject(new DependencyFailure(dependency, new Error(why)));
        return call();
      });
    }
  };
  decorate(TABLE_PORTS, 'table', () => faults.table === 'down', 'table fault: the table is unreachable (POST /_local/faults {"table": "up"})');
  decorate(BUCKET_PORTS, 'bucket', () => faults.storage === 'down', 'storage fault: the bucket is unreachable (POST /_local/faults {"storage": "up"})');
  return out as S;
}
