import type { CallerKind, Feature, Limits, Role } from '../domain/roles';

export type { CallerKind };

/** Who is calling, with what they may do. `callerId` identifies the rate-limit and upload-limit subject. */
export interface Principal {
  kind: CallerKind;
  userId: string | null;
  /** `ip:<addr>` for anonymous callers, `user:<id>` for sessions, `dev:<id>` for devices, `key:<hash>` for API keys. */
  callerId: string;
  email: string | null;
  roles: Role[];
  features: Feature[];
  limits: Limits;
  /** Partner accounts may send `via` on uploads (public metadata `partner: true`). */
  partner: boolean;
  /** Device id for device callers. */
  deviceId?: string;
  /** When the credential stops being valid (session exp, API key cache), for live sockets. */
  validUntil?: number;
  /** The contributor window end the credential carries (session claim, or stored window / claim for devices and keys). */
  contributorUntil?: number | null;
}

export const hasFeature = (p: Principal, f: Feature): boolean => p.features.includes(f);
