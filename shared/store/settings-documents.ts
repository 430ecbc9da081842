/** DynamoDB adapter of an account's watchlist and boards document (one item each in the account's partition). */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type BoardsDocument, emptyBoards } from '../domain/boards';
import { BOARDS_SK, userPk, WATCHLIST_SK } from './keys';
import type { Table } from './table';

const key = (userId: string, sk: string) => ({ pk: userPk(userId), sk });

/** The account's watchlist (ordered keys); empty before the first PUT. */
export async function getWatchlist(t: Table, userId: string): Promise<number[]> {
  const out = await t.ddb.send(new GetCommand({ TableName: t.name, Key: key(userId, WATCHLIST_SK), ConsistentRead: true }));
  const items = out.Item?.items;
  return Array.isArray(items) ? items.filter((k): k is number => typeof k === 'number') : [];
}

export async function putWatchlist(t: Table, userId: string, items: number[], now: number): Promise<void> {
  await t.ddb.send(new PutCommand({ TableName: t.name, Item: { ...key(userId, WATCHLIST_SK), items, updated: now } }));
}

/** The account's boards document; empty lists before the first PUT. */
export async function getBoards(t: Table, userId: string): Promise<BoardsDocument> {
  const out = await t.ddb.send(new GetCommand({ TableName: t.name, Key: key(userId, BOARDS_SK), ConsistentRead: true }));
  const doc = out.Item?.doc;
  // Stored as JSON text: exactly the bytes the 65536-byte limit was checked on, widget fields untouched.
  return typeof doc === 'string' ? (JSON.parse(doc) as BoardsDocument) : emptyBoards();
}

export async function putBoards(t: Table, userId: string, doc: BoardsDocument, now: number): Promise<void> {
  await t.ddb.send(new PutCommand({ TableName: t.name, Item: { ...key(userId, BOARDS_SK), doc: JSON.stringify(doc), updated: now } }));
}
