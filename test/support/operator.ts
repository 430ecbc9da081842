/**
 * Every port of the runtime started last in this process (lib/local/functions/operator.ts), for tests and benches that
 * read and write the service's state directly, as the operator would (no function's invocation).
 */
import type { OperatorServices } from '../../lib/local/functions/operator';
import { latestRuntime } from '../../lib/local/runtime';

export const services = (): OperatorServices => latestRuntime().operator;
