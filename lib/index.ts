// Public entry of the package: the embedded library (Store and what its calls take and return)
// and its types.
import './features/extensions';

export { parseExact, stringifyExact } from './exact_json';
export { type CallOptions, Cancellation } from './store/cancellation';
export { RecordsCursor } from './store/cursor';
export { StoreError } from './store/errors';
export { type SharedStore, Store } from './store/store';
export { TenantStores, type TenantOptions, checkNamespace } from './store/tenants';
export { ClusterNode, type ClusterOptions } from './features/cluster/node';
export { awsEnvironment, ObjectStore, type ObjectStoreOptions } from './features/cluster/object_store';
export { NotFound, ObjectStoreError, OutcomeUnknown, PreconditionFailed, Unreachable } from './features/cluster/errors';
export { type BackupRestored, restoreBackup } from './features/backups/restore';
export * from './types';
export type { IngestCodeOptions, IngestCodeResult } from './features/code/ingest';
export { type CodeChunk, type CodeChunkOptions, chunkFile } from './features/code/chunker';
