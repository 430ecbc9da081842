/**
 * Reports of deleted accounts expire (issue 23): the retention schedule withdraws the reports of every account
 * that has not uploaded to the catalogue for CATALOGUE_REPORT_LIFETIME_MS. A deleted account never uploads
 * again; a living app uploads at every market read, which keeps its account's time fresh.
 */
import { CATALOGUE_REPORT_LIFETIME_MS } from '../domain/item-catalogue';
import type { Services } from '../services';

/** Accounts expired per run: each run (every 6 hours) takes the next ones, so one run stays well inside its timeout. */
export const EXPIRED_ACCOUNTS_PER_RUN = 500;

/** Withdraws the reports of accounts idle for the lifetime; logs how many went. */
export async function expireCatalogueReports(svc: Pick<Services, 'clock' | 'catalogue' | 'log'>): Promise<{ accounts: number; reports: number }> {
  const now = svc.clock.now();
  const out = await svc.catalogue.expireCatalogueAccounts(now - CATALOGUE_REPORT_LIFETIME_MS, now, EXPIRED_ACCOUNTS_PER_RUN);
  if (out.accounts > 0) svc.log('info', 'catalogue reports expired', out);
  return out;
}
