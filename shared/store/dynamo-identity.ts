/** The DynamoDB adapter of the identity port: key verdicts, contributions, devices and pairings, pairing misses, profiles and rate counters over one table. */
import type { IdentityPort } from '../ports/identity';
import { atPort } from './dependency-failure';
import { getKeyVerdict, putKeyVerdict, wasKeyVerified } from './identity-api-keys';
import { countCredited, putContribution, queryContributions } from './identity-contributions';
import {
  bindPairing,
  collectPairing,
  deleteDevice,
  deviceByToken,
  getDevice,
  getPairing,
  listDevices,
  pairingByCode,
  putPairing,
  touchDevice,
} from './identity-devices';
import { returnPairingPlace, takePairingPlace } from './identity-pair-misses';
import { getProfile, putClaims, raiseWindow, releaseClaimSlot, takeClaimSlot } from './identity-profile';
import { countRequest, reserveCount } from './identity-rate';
import { bindAll, type Table } from './table';

export const dynamoIdentity = (t: Table): IdentityPort =>
  atPort(
    'table',
    bindAll(t, {
      getKeyVerdict,
      putKeyVerdict,
      wasKeyVerified,
      putContribution,
      queryContributions,
      countCredited,
      putPairing,
      pairingByCode,
      getPairing,
      bindPairing,
      collectPairing,
      getDevice,
      listDevices,
      deleteDevice,
      deviceByToken,
      touchDevice,
      takePairingPlace,
      returnPairingPlace,
      getProfile,
      putClaims,
      raiseWindow,
      takeClaimSlot,
      releaseClaimSlot,
      countRequest,
      reserveCount,
    }),
  );
