import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export type HttpEvent = APIGatewayProxyEventV2;
export type HttpResult = APIGatewayProxyStructuredResultV2;

/** A request as route code sees it: decoded body, lower-case headers, parsed cookies. */
export interface ApiRequest {
  method: string;
  path: string;
  routeKey: string;
  params: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  cookies: Record<string, string>;
  /** The raw body bytes (base64 decoded; not decompressed). */
  body: Buffer;
  /**
   * The caller's address as per-address limits key it (shared/domain/address-key.ts): the IP CloudFront saw
   * (`CloudFront-Viewer-Address`, trusted only on verified requests), IPv6 callers by their /64.
   */
  ip: string;
  event: HttpEvent;
}
