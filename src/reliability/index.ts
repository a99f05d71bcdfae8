export { FlowControl } from './flow-control';
export type { FlowControlOptions, FlowState } from './flow-control';
export { Outbox, keepByDefault } from './outbox';
export type {
  Delivered,
  OutboxEntry,
  OutboxEvents,
  OutboxOptions,
  OutboxSender,
  OutboxSendOptions,
  OutboxStats,
  OutboxStore,
  OutboxStoreStats,
  SubmitOptions,
} from './outbox';
export { JournalStore, readJournal } from './outbox-journal';
export type { JournalOptions } from './outbox-journal';
export { readEntry, storedParams } from './outbox-store';
export { clientSender } from './client-sender';
export { captionHasReference, captionWithReference, createReference, isReference } from './reference';
export type { ReferenceOptions } from './reference';
export { classifyFailure, newSafeSendStats, safeSend } from './safe-send';
export type {
  Attempted,
  FailureKind,
  SafeRetryOptions,
  SafeSendPlan,
  SafeSendResult,
  SafeSendStats,
} from './safe-send';
export { Budget, BudgetError, isBudgetHold } from './budget';
export type { BudgetEvent, BudgetSettings, ReserveOptions, SpendView, WindowState } from './budget';
export { FileLedger } from './budget-file';
export type { FileLedgerOptions } from './budget-file';
export type {
  BudgetLedger,
  CountsConfirmed,
  CountsLost,
  ReserveAnswer,
  ReserveRequest,
  WindowCounts,
} from './budget-ledger';
export { budgetSender } from './budget-sender';
export { sendCost } from './budget-cost';
export type { BudgetClock, BudgetWindow } from './budget-windows';
