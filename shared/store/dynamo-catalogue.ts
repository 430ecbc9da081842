/** The DynamoDB adapter of the catalogue port: name reports, catalogue entries and item builds over one table. */
import type { CataloguePort } from '../ports/catalogue';
import { catalogueEntry, catalogueLeaders, nameRevision, recordCatalogueReports } from './catalogue';
import { expireCatalogueAccounts } from './catalogue-expiry';
import { atPort } from './dependency-failure';
import { getBuild, getCurrent, putPublishedBuild, recordMerged, setCurrent, updateCurrentFiles } from './item-builds';
import { bindAll, type Table } from './table';

export const dynamoCatalogue = (t: Table): CataloguePort =>
  atPort(
    'table',
    bindAll(t, {
      recordCatalogueReports,
      expireCatalogueAccounts,
      catalogueEntry,
      catalogueLeaders,
      nameRevision,
      getBuild,
      putPublishedBuild,
      recordMerged,
      getCurrent,
      setCurrent,
      updateCurrentFiles,
    }),
  );
