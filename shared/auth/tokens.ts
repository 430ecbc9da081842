/** Secrets the service hands out or checks: device tokens, pairing codes and ids, and their stored hashes. */
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { DEVICE_TOKEN_PREFIX, newPairCode } from '../domain/pairing';

/** SHA-256 (hex) of a secret: only this is stored, so a table read never yields a usable credential. */
export const hashSecret = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

/** A device token: `svc_dev_` + 32 random bytes as 43 base64url characters. */
export const newDeviceToken = (): string => DEVICE_TOKEN_PREFIX + randomBytes(32).toString('base64url');

/** A pairing code from a cryptographic source (8 characters of `A-Z2-9` without I, O). */
export const newCode = (): string => newPairCode((n) => randomInt(n));

/** An unguessable id (pairing ids are the app's only handle on its pairing). */
export const newId = (prefix: string, bytes = 16): string => `${prefix}${randomBytes(bytes).toString('base64url')}`;
