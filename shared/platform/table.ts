/** The table as the DynamoDB adapters take it (functions whose manifest access names the table). */
import type { Table } from '../store/table';
import type { Platform } from './platform';

export const tableOf = (p: Platform<'ddb'>): Table => ({ ddb: p.ddb(), name: p.config.tableName, clock: p.clock });
