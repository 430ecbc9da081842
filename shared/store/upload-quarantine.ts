/**
 * Quarantined uploads (spec credit rule 1, `disagrees`): not merged, the body kept 7 days under a private,
 * unguessable bucket path for review, then deleted by retention. The record points at the body; its `ttl`
 * (a day after the quarantine ends) only backs up retention, which deletes body and record together.
 */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { DAY_MS } from '../clock';
import type { QuarantineRecord } from '../ports/uploads';
import { ttlAt } from './identity-items';
import { quarantinePk, quarantineSk } from './keys';
import { queryPages } from './query';
import type { Table } from './table';

export async function putQuarantine(t: Table, rec: QuarantineRecord, id: string, keepMs: number): Promise<void> {
  await t.ddb.send(
    new PutCommand({
      TableName: t.name,
      Item: { pk: quarantinePk(rec.market), sk: quarantineSk(rec.received, id), ...rec, ttl: ttlAt(rec.received + keepMs + DAY_MS) },
    }),
  );
}

/** Records received before `before` (oldest first), with their sort keys for deletion. */
export async function quarantinedBefore(t: Table, market: string, before: number): Promise<Array<QuarantineRecord & { sk: string }>> {
  const out: Array<QuarantineRecord & { sk: string }> = [];
  for await (const page of queryPages(t.ddb, {
    TableName: t.name,
    KeyConditionExpression: 'pk = :pk AND sk < :before',
    ExpressionAttributeValues: { ':pk': quarantinePk(market), ':before': quarantineSk(before, '') },
  })) {
    for (const item of page.Items ?? []) {
      out.push({
        sk: String(item.sk),
        market,
        at: Number(item.at),
        received: Number(item.received),
        path: String(item.path),
        uploader: String(item.uploader),
        items: Number(item.items),
        complete: item.complete === true,
      });
    }
  }
  return out;
}

export async function deleteQuarantine(t: Table, market: string, sk: string): Promise<void> {
  await t.ddb.send(new DeleteCommand({ TableName: t.name, Key: { pk: quarantinePk(market), sk } }));
}
