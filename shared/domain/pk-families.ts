/**
 * The table's partition key families by name: what a function's `tableKeys` may list. Each family's key
 * prefix is a storage detail, written once in shared/store/keys.ts (`PK_FAMILIES`, which must name exactly
 * these); the manifest names them without importing the adapter.
 */
export type PkFamily =
  | 'user'
  | 'deviceToken'
  | 'pairing'
  | 'pairCode'
  | 'apiKey'
  | 'rate'
  | 'market'
  | 'view'
  | 'upload'
  | 'items'
  | 'catalogue'
  | 'catalogueReport'
  | 'catalogueAccount'
  | 'catalogueMeta'
  | 'files'
  | 'cap'
  | 'liveHubs'
  | 'liveConn'
  | 'conn'
  | 'alerts'
  | 'alertFired'
  | 'pushEndpoint';
