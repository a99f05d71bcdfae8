export { FlowControl } from './flow-control';
export type { FlowControlOptions, FlowState } from './flow-control';
export { Outbox, keepByDefault } from './outbox';
export type { OutboxEntry, OutboxEvents, OutboxOptions, OutboxSender, SubmitResult } from './outbox';
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
