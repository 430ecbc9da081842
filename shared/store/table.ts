/**
 * The DynamoDB table as the adapters use it: the document client, the table's name and the service clock
 * (DynamoDB deletes expired items lazily, so reads decide liveness at the clock's now).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../clock';

export interface Table {
  ddb: DynamoDBDocumentClient;
  name: string;
  clock: Clock;
}

type Method<T> = (t: T, ...args: never[]) => unknown;

/** The functions with their first argument (the table) bound: an adapter object from functions written over a table. */
export type Bound<F> = { [K in keyof F]: F[K] extends (t: never, ...args: infer A) => infer R ? (...args: A) => R : never };

/** Binds every function of `fns` to `t`. */
export function bindAll<T, F extends Record<string, Method<T>>>(t: T, fns: F): Bound<F> {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(fns)) out[name] = (...args: never[]) => fn(t, ...args);
  return out as Bound<F>;
}
