import middy from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { connectSocket } from '../../shared/live/socket';
import { connectRequest, type WsConnectEvent } from '../../shared/live/ws-events';
import { redactErrors } from '../../shared/log';
import { services } from '../../shared/services';

/** `$connect` of the live socket: 401 / 403 / 400 before the upgrade, else the socket is stored (its record drives `hello`). */
export const handler = middy<WsConnectEvent, APIGatewayProxyResult>().use(redactErrors()).handler(async (event) => connectSocket(services(), connectRequest(event)));
