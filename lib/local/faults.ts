/**
 * The local runtime's faults (DESIGN: the local control API, `POST /_local/faults`): what is down or failing
 * on purpose, so tests can show how the service answers an outage.
 */

export interface Faults {
  identity: 'up' | 'down';
  storage: 'up' | 'down';
  /** The service's table calls fail as in a DynamoDB outage (the runtime's own stream poller and sweeper go on). */
  table: 'up' | 'down';
  /** `fail`: every scheduled seal run throws (until `none`), so its event lands in the seal's failed-runs queue. */
  seal: 'fail' | 'none';
}
