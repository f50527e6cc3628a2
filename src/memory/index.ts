export {
  compactionPolicies,
  fitWindow,
  PRUNE_POLICIES,
  type PrunePolicy,
  tooLargeMarker,
  type Window,
  type WindowOptions,
} from './fit-window.js';
export {
  createJsonlStore,
  JSONL_STORE_DEFAULTS,
  type JsonlStoreOptions,
  StoreWriteError,
} from './jsonl-store.js';
export {
  createMemory,
  loadMemory,
  MEMORY_DEFAULTS,
  type Memory,
  type MemoryOptions,
  type MemoryStats,
  type Summarizer,
} from './memory.js';
export {
  type DamagedRecord,
  InvalidThreadIdError,
  type LoadedThread,
  type MessageStore,
} from './message-store.js';
export { createPostgresStore, type PostgresStoreOptions } from './postgres-store.js';
export { createSqliteStore, type SqliteStoreOptions } from './sqlite-store.js';
export { StoreError } from './store-error.js';
export {
  createThreadStore,
  THREAD_STORE_DEFAULTS,
  type ThreadStore,
  type ThreadStoreOptions,
} from './thread-store.js';
export { type Encoding, estimate, exact } from './token-counters.js';
export { truncateMiddle } from './truncate.js';
