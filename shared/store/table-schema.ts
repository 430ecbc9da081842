/** The single table's shape, shared by the CDK construct and the local runtime so both build the same table. */
export const TABLE_KEYS = { partitionKey: 'pk', sortKey: 'sk', ttlAttribute: 'ttl' } as const;

/** Global secondary indexes (only where a read needs one): name → key attributes. */
export const TABLE_INDEXES: ReadonlyArray<{ name: string; partitionKey: string; sortKey: string }> = [];
