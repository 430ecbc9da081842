/** The market routes (issue 24 point 4), registered in app/routes/index.ts as one entry. */
import type { AppRoute } from '../router';
import { marketRoute } from './market';
import { marketItemRoute } from './market-item';
import { marketLiveRoute } from './market-live';

export const MARKET_ROUTES: readonly AppRoute[] = [marketRoute, marketItemRoute, marketLiveRoute];
