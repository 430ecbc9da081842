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
  /** The caller's IP as the edge saw it (`CloudFront-Viewer-Address`, else the source IP). */
  ip: string;
  event: HttpEvent;
}
