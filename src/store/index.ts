/**
 * The one store every state file of the package goes through (docs/architecture.md, "src/store"): durable
 * writes, checksums, the manifest of files that should exist, damage and missing files told, failing writes kept,
 * told and retried. Framework-free: src/reliability, src/coordination and src/nodes build on it.
 */
export { STORE_KINDS, type StoreKind } from './kinds';
export { damageKey, damageParams, damageText, type StateDamage } from './damage';
export { Saver, StoreWriteError, codeOf, type RetryTimers, type SaveProblem } from './saver';
export {
  STATE_DIR,
  StateFile,
  StoreReadError,
  stateFileOf,
  type StoreOptions,
  type StoreProblem,
  type ValueStore,
} from './state-file';
export { ContextValueStore, type ContextBackend } from './context-store';
export { Manifest, MANIFEST_NAME } from './manifest';
export { readState, stateText, type ReadState } from './state-text';
export { isSealed, openLine, sealLine, sealLines } from './seal';
export { copyAside, exists, moveFile, privateDir, removeFile } from './durable';
