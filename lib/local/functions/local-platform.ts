/**
 * A function's local platform: the engines' SDK clients the runtime hands it, with the buckets and
 * `@connections` ports built over them as a Lambda entry's factories build them in AWS
 * (shared/platform/buckets.ts, sockets.ts), each once per platform.
 */
import { bucketsOver } from '../../../shared/platform/buckets';
import type { Buckets, ClientName, Platform } from '../../../shared/platform/platform';
import { socketsOver } from '../../../shared/platform/sockets';
import type { SocketsPort } from '../../../shared/ports/connections';

export function localPlatform(base: Platform<Exclude<ClientName, 'buckets' | 'sockets'>>): Platform<ClientName> {
  let buckets: Buckets | undefined;
  let sockets: SocketsPort | undefined;
  return {
    ...base,
    buckets: () => {
      buckets ??= bucketsOver(base.s3(), base.config);
      return buckets;
    },
    sockets: () => {
      sockets ??= socketsOver(base.connections(), base.config);
      return sockets;
    },
  };
}
