/**
 * API Gateway's management API (`@connections`) behind the same scheme as the local AWS edge: a signed call is
 * the function whose credentials signed it (checked with the secret issued to it), recorded for the run's IAM
 * check and held to the function's synthesized policies (`execute-api:ManageConnections`), for in-process
 * functions and sandboxes alike. The gateway serves it (lib/local/gateways/live-gateway.ts); an unsigned call is still
 * answered, as the control API contract's black-box callers post without a role (`Host` and `Origin` guard it).
 */
import type { IncomingMessage } from 'node:http';
import { FUNCTIONS, type FunctionName } from '../../../shared/topology';
import { type CallRecorder, connectionsRequest, type LocalNames } from '../iam/calls';
import type { EdgeAccess } from './access';
import { OPERATOR_KEY } from './edge';
import { checkSignature } from './sigv4-check';

/** API Gateway's refusal: status, `x-amzn-errortype` and message. */
export interface ManageRefusal {
  status: number;
  type: string;
  message: string;
}

export type ManageAccess = (req: IncomingMessage, body: Buffer) => Promise<ManageRefusal | null>;

export function manageAccess(opts: {
  secretOf: (accessKeyId: string) => string | undefined;
  access: EdgeAccess;
  recorder: CallRecorder | null;
  names: LocalNames;
  log: (level: 'error', message: string) => void;
}): ManageAccess {
  const known = (key: string) => FUNCTIONS.some((f) => f.name === key) || key === OPERATOR_KEY;
  return async (req, body) => {
    if (req.headers.authorization === undefined) return null;
    const check = await checkSignature(req, body, 'execute-api', (key) => (known(key) ? opts.secretOf(key) : undefined));
    if (!check.ok)
      return check.reason === 'mismatch'
        ? { status: 403, type: 'InvalidSignatureException', message: 'The request signature we calculated does not match the signature you provided.' }
        : { status: 403, type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
    if (check.accessKeyId === OPERATOR_KEY) return null;
    const fn = check.accessKeyId as FunctionName;
    const request = connectionsRequest(req.method ?? 'POST', new URL(req.url ?? '/', 'http://local').pathname, opts.names);
    if (!request) return null;
    opts.recorder?.recordAs(fn, [request]);
    const refusal = opts.access.iam(fn, [request]);
    if (!refusal) return null;
    opts.log('error', `AccessDenied: ${refusal.message}`);
    return { status: 403, type: 'AccessDeniedException', message: refusal.message };
  };
}
