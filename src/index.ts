/**
 * Library entry of `@smsgw/node-red-sms-gateway`: the typed client, its errors, the delivery guarantees
 * (flow control, durable outbox), the SMS text helpers and the operation catalogue. Node-RED loads the nodes
 * through `package.json` "node-red", not through this file.
 */

// ---- client
export { DEFAULT_INVOKE_LIMITS, GatewayClient, methodName } from './client';
export type * from './client';

// ---- errors
export { GatewayError, isGatewayError } from './errors';
export type { GatewayErrorCode, GatewayErrorDetails } from './errors';

// ---- delivery guarantees (docs/reliability.md): flow control, durable outbox, references
export {
  FlowControl,
  Outbox,
  JournalStore,
  keepByDefault,
  clientSender,
  captionHasReference,
  captionWithReference,
  createReference,
  isReference,
} from './reliability';
export type {
  FlowControlOptions,
  FlowState,
  Delivered,
  JournalOptions,
  OutboxEntry,
  OutboxEvents,
  OutboxOptions,
  OutboxSender,
  OutboxSendOptions,
  OutboxStats,
  OutboxStore,
  OutboxStoreStats,
  SubmitOptions,
  ReferenceOptions,
  SafeRetryOptions,
  SafeSendStats,
} from './reliability';

// ---- spending guard (docs/reliability.md, "Spending guard"): limits per hour, day, month on segments x recipients
export { Budget, BudgetError, FileLedger, budgetSender, isBudgetHold, sendCost } from './reliability';
export type {
  BudgetClock,
  BudgetEvent,
  BudgetLedger,
  BudgetSettings,
  BudgetWindow,
  ReserveAnswer,
  ReserveOptions,
  ReserveRequest,
  WindowCounts,
  WindowState,
} from './reliability';

// ---- SMS text helpers (GSM-7 / UCS-2, segments)
export {
  analyzeText,
  GSM7_BASIC_TABLE,
  GSM7_EXTENSION_TABLE,
  gsm7Septets,
  isGsm7,
  MAX_CONTENT_LENGTH,
} from './text';
export type { TextAnalysis, TextEncoding } from './text';

// ---- catalogue lookups
export {
  CATALOGUE,
  createCatalogue,
  DEFAULT_NAMESPACES,
  DEFAULT_PATHS,
  ENUMS,
  COMPLEX_TYPES,
  OPERATIONS,
  findOperation,
  operationsOf,
  soapAction,
} from './catalogue';
export type {
  Catalogue,
  CatalogueTables,
  ComplexTypeDef,
  EnumDef,
  FieldDef,
  OperationDef,
  ParamDef,
  Primitive,
  ServiceName,
  TypeRef,
} from './catalogue';

// ---- emulator (added by the emulator's owner)
export { startEmulator, GatewayState, FaultInjector } from './emulator';
export type {
  EmulatorOptions,
  RunningEmulator,
  EmulatorBackend,
  FaultKind,
  FaultSpec,
  RequestLogEntry,
  GatewayStateOptions,
  GatewayBackend,
  EmulatorControl,
  InboundInput,
  SubscriberState,
} from './emulator';
