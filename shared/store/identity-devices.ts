/** DynamoDB adapter of device pairings, device records and device tokens (stored only as SHA-256 hashes). */
import { DeleteCommand, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { DAY_MS } from '../clock';
import type { Pairing, PairingState } from '../domain/pairing';
import type { DeviceRecord, DeviceTokenRecord } from '../ports/identity';
import { isConditionFailure, isLive, num, str, ttlAt } from './identity-items';
import { DEVICE_SK_PREFIX, DEVICE_TOKEN_SK, deviceSk, deviceTokenPk, PAIR_CODE_SK, PAIRING_SK, pairCodePk, pairingPk, userPk } from './keys';
import { queryPages } from './query';
import type { Table } from './table';
import { applied, transact } from './writes';

/** Pairings and codes outlive their expiry by a day so a late confirm answers 410 rather than 404. */
const AFTERLIFE_MS = DAY_MS;

const pairingKey = (pairId: string) => ({ pk: pairingPk(pairId), sk: PAIRING_SK });
const codeKey = (codeHash: string) => ({ pk: pairCodePk(codeHash), sk: PAIR_CODE_SK });
const deviceKey = (userId: string, deviceId: string) => ({ pk: userPk(userId), sk: deviceSk(deviceId) });
const tokenKey = (tokenHash: string) => ({ pk: deviceTokenPk(tokenHash), sk: DEVICE_TOKEN_SK });

/** Stores a new waiting pairing and its code; false when the code is taken by a live pairing (pick another). */
export async function putPairing(t: Table, p: Pairing, codeHash: string, now: number): Promise<boolean> {
  const ttl = ttlAt(p.expires + AFTERLIFE_MS);
  return applied(
    transact(t, [
      {
        Put: {
          Item: { ...codeKey(codeHash), pairId: p.pairId, expires: p.expires, ttl },
          ConditionExpression: 'attribute_not_exists(pk) OR #ttl <= :nowSec',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':nowSec': Math.floor(now / 1000) },
        },
      },
      {
        Put: {
          Item: { ...pairingKey(p.pairId), pairId: p.pairId, name: p.name, created: p.created, expires: p.expires, state: p.state, ttl },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ]),
  );
}

/** The pairing a code names, or null. */
export async function pairingByCode(t: Table, codeHash: string, now: number): Promise<Pairing | null> {
  const out = await t.ddb.send(new GetCommand({ TableName: t.name, Key: codeKey(codeHash), ConsistentRead: true }));
  if (!isLive(out.Item, now)) return null;
  const pairId = str(out.Item.pairId);
  return pairId ? getPairing(t, pairId, now) : null;
}

/** A pairing by id, or null. */
export async function getPairing(t: Table, pairId: string, now: number): Promise<Pairing | null> {
  const out = await t.ddb.send(new GetCommand({ TableName: t.name, Key: pairingKey(pairId), ConsistentRead: true }));
  const item = out.Item;
  if (!isLive(item, now)) return null;
  return {
    pairId,
    name: str(item.name) ?? '',
    created: num(item.created) ?? 0,
    expires: num(item.expires) ?? 0,
    state: (str(item.state) ?? 'waiting') as PairingState,
    userId: str(item.userId),
    deviceId: str(item.deviceId),
  };
}

/** Binds a waiting, unexpired pairing to an account and creates its (not yet listed) device; false when it lost a race. */
export async function bindPairing(t: Table, pairId: string, device: DeviceRecord, now: number, deleteAt: number): Promise<boolean> {
  return applied(
    transact(t, [
      {
        Update: {
          Key: pairingKey(pairId),
          UpdateExpression: 'SET #state = :bound, userId = :u, deviceId = :d',
          ConditionExpression: '#state = :waiting AND expires > :now',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':bound': 'bound', ':waiting': 'waiting', ':u': device.userId, ':d': device.id, ':now': now },
        },
      },
      {
        Put: {
          Item: {
            ...deviceKey(device.userId, device.id),
            id: device.id,
            name: device.name,
            created: device.created,
            collected: false,
            ttl: ttlAt(deleteAt),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ]),
  );
}

/** Hands the token over once: the pairing becomes `paired`, the device listed, the token hash live; false when it lost a race. */
export async function collectPairing(t: Table, p: Pairing, tokenHash: string, now: number): Promise<boolean> {
  if (!p.userId || !p.deviceId) return false;
  return applied(
    transact(t, [
      {
        Update: {
          Key: pairingKey(p.pairId),
          UpdateExpression: 'SET #state = :paired',
          ConditionExpression: '#state = :bound AND expires > :now',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':paired': 'paired', ':bound': 'bound', ':now': now },
        },
      },
      {
        Update: {
          Key: deviceKey(p.userId, p.deviceId),
          UpdateExpression: 'SET collected = :t, tokenHash = :h REMOVE #ttl',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':t': true, ':h': tokenHash },
        },
      },
      {
        Put: {
          Item: { ...tokenKey(tokenHash), userId: p.userId, deviceId: p.deviceId },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ]),
  );
}

function toDevice(userId: string, item: Record<string, unknown>): DeviceRecord {
  return {
    id: str(item.id) ?? String(item.sk).slice(DEVICE_SK_PREFIX.length),
    userId,
    name: str(item.name) ?? '',
    created: num(item.created) ?? 0,
    lastSeen: num(item.lastSeen) ?? null,
    collected: item.collected === true,
    tokenHash: str(item.tokenHash) ?? null,
  };
}

/** A device of an account (collected or not), or null. */
export async function getDevice(t: Table, userId: string, deviceId: string, now: number): Promise<DeviceRecord | null> {
  const out = await t.ddb.send(new GetCommand({ TableName: t.name, Key: deviceKey(userId, deviceId), ConsistentRead: true }));
  return isLive(out.Item, now) ? toDevice(userId, out.Item) : null;
}

/** An account's collected devices (uncollected ones are never listed). */
export async function listDevices(t: Table, userId: string, now: number): Promise<DeviceRecord[]> {
  const devices: DeviceRecord[] = [];
  for await (const out of queryPages(t.ddb, {
    TableName: t.name,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': userPk(userId), ':prefix': DEVICE_SK_PREFIX },
  })) {
    for (const item of out.Items ?? []) if (isLive(item, now) && item.collected === true) devices.push(toDevice(userId, item));
  }
  return devices;
}

/** Deletes a device and its token in one step, so the token stops working at once; false when there was none. */
export async function deleteDevice(t: Table, device: DeviceRecord): Promise<boolean> {
  const del = {
    Delete: { TableName: t.name, Key: deviceKey(device.userId, device.id), ConditionExpression: 'attribute_exists(pk)' },
  };
  try {
    if (device.tokenHash) {
      await t.ddb.send(new TransactWriteCommand({ TransactItems: [del, { Delete: { TableName: t.name, Key: tokenKey(device.tokenHash) } }] }));
    } else {
      await t.ddb.send(new DeleteCommand(del.Delete));
    }
    return true;
  } catch (err) {
    if (isConditionFailure(err)) return false;
    throw err;
  }
}

/** The device a token hash belongs to, or null (strongly consistent: a deleted device's token must fail at once). */
export async function deviceByToken(t: Table, tokenHash: string): Promise<DeviceTokenRecord | null> {
  const out = await t.ddb.send(new GetCommand({ TableName: t.name, Key: tokenKey(tokenHash), ConsistentRead: true }));
  const item = out.Item;
  const userId = str(item?.userId);
  const deviceId = str(item?.deviceId);
  return userId && deviceId ? { userId, deviceId, seen: num(item?.seen) ?? null } : null;
}

/** Records that a device was seen; conditional so concurrent requests write once and a deleted device is not revived. */
export async function touchDevice(t: Table, token: DeviceTokenRecord, tokenHash: string, now: number, cutoff: number): Promise<void> {
  const cond = { ':now': now, ':cutoff': cutoff };
  try {
    await transact(t, [
      {
        Update: {
          Key: tokenKey(tokenHash),
          UpdateExpression: 'SET seen = :now',
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(seen) OR seen <= :cutoff)',
          ExpressionAttributeValues: cond,
        },
      },
      {
        Update: {
          Key: deviceKey(token.userId, token.deviceId),
          UpdateExpression: 'SET lastSeen = :now',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':now': now },
        },
      },
    ]);
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
  }
}
