/**
 * Every hash route of the app, in one table: a route is one module of this folder plus one line here.
 * None is a server path, so none is in the sitemap (spec api.md Conventions: private, dynamic application
 * routes are left out of it).
 */
import type { AppRoute } from '../router';
import { accountRoute } from './account';
import { devicesRoute } from './devices';
import { devicesConfirmRoute } from './devices-confirm';
import { marketAlertsRoute } from './market-alerts';
import { marketBoardsRoute } from './market-boards';
import { marketPushRoute } from './market-push';
import { MARKET_ROUTES } from './market-routes';
import { marketWatchRoute } from './market-watch';
import { signInRoute } from './sign-in';

export const ROUTES: readonly AppRoute[] = [
  accountRoute,
  devicesRoute,
  devicesConfirmRoute,
  marketWatchRoute,
  marketAlertsRoute,
  marketBoardsRoute,
  marketPushRoute,
  signInRoute,
  ...MARKET_ROUTES,
];
