/**
 * The live upgrade's refusals: `$connect` answers a domain error with the code's status before the handshake
 * (spec api.md Live socket), its body `{error, message, ...extra}` like every other error.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { DomainError } from '../errors';
import { ERROR_STATUS } from './status';

/** The `$connect` answer that refuses the upgrade with a domain error. */
export function upgradeRefusal(err: DomainError): APIGatewayProxyResult {
  return {
    statusCode: ERROR_STATUS[err.code],
    headers: {
      'content-type': 'application/json; charset=utf-8',
      ...(err.retryAfterSeconds === undefined ? {} : { 'retry-after': String(err.retryAfterSeconds) }),
    },
    body: JSON.stringify({ error: err.code, message: err.message || err.code, ...err.extra }),
  };
}

/** Runs the upgrade's checks and its admission: 200 admits it, a domain error refuses it, anything else throws. */
export async function answerUpgrade(admit: () => Promise<void>): Promise<APIGatewayProxyResult> {
  try {
    await admit();
    return { statusCode: 200, body: '' };
  } catch (err) {
    if (err instanceof DomainError) return upgradeRefusal(err);
    throw err;
  }
}
