/** The DynamoDB adapter of the settings port: the account documents, alerts and push subscriptions over one table. */
import type { SettingsPort } from '../ports/settings';
import { atPort } from './dependency-failure';
import {
  createAlert,
  deleteStoredAlert,
  enabledMarketAlerts,
  firedAt,
  getAccountAlert,
  listAccountAlerts,
  replaceStoredAlert,
  saveEvaluation,
} from './settings-alerts';
import { getBoards, getWatchlist, putBoards, putWatchlist } from './settings-documents';
import { deleteSubscription, getPushState, listSubscriptions, putPushState, putSubscription } from './settings-push';
import { bindAll, type Table } from './table';

export const dynamoSettings = (t: Table): SettingsPort =>
  atPort(
    'table',
    bindAll(t, {
      getWatchlist,
      putWatchlist,
      getBoards,
      putBoards,
      listAccountAlerts,
      getAccountAlert,
      createAlert,
      replaceStoredAlert,
      deleteStoredAlert,
      enabledMarketAlerts,
      saveEvaluation,
      firedAt,
      listSubscriptions,
      putSubscription,
      deleteSubscription,
      getPushState,
      putPushState,
    }),
  );
