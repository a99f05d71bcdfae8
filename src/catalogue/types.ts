/**
 * Shapes of the operation catalogue. Everything that speaks the wire (client, emulator, WSDL, fixtures,
 * editor lists) reads these definitions instead of knowing operations by heart.
 */

export type ServiceName = 'information' | 'send' | 'customer' | 'legacy';

export type Primitive = 'string' | 'int' | 'double' | 'dateTime' | 'boolean' | 'base64Binary';

export type TypeRef =
  | { readonly kind: 'primitive'; readonly name: Primitive }
  | { readonly kind: 'enum'; readonly name: string }
  | { readonly kind: 'complex'; readonly name: string }
  /** A list: in XML a wrapper element holding one `itemElement` child per entry. */
  | { readonly kind: 'list'; readonly item: TypeRef; readonly itemElement: string };

export interface FieldDef {
  readonly name: string;
  readonly type: TypeRef;
}

export interface ComplexTypeDef {
  readonly name: string;
  readonly fields: readonly FieldDef[];
}

export interface EnumDef {
  readonly name: string;
  readonly values: readonly string[];
  /** The spec says more values exist than it lists: decoders keep unknown names as they are. */
  readonly open?: boolean;
}

/** Which parameter carries the account credentials (SMSCR names them serial/password). */
export type CredentialRole = 'user' | 'password';

export interface ParamDef {
  readonly name: string;
  readonly type: TypeRef;
  /** The spec marks it optional: SOAP omits it; GET/POST send `wireDefault` (ASMX requires every key). */
  readonly optional?: boolean;
  readonly credential?: CredentialRole;
  /** For enum parameters that accept only some members of their enum. */
  readonly allowed?: readonly string[];
  /** A free-text note from the spec, shown in editor lists and docs. */
  readonly doc?: string;
  /** Largest value the spec allows (int parameters); the client refuses more before sending. */
  readonly max?: number;
}

/**
 * How the older service's result string is structured. The typed service has no such field: its result
 * is described by `result` alone.
 */
export type LegacyResultKind =
  | 'send' // "OK <id>" or "Error <text>"
  | 'balance' // QueryBalance2: a number as text
  | 'receivedSms2' // GetRecivedSMS2: ID, JobId, Sender, message, date (first separator a comma)
  | 'recivedSms2' // RecivedSMS2: Sender, date, message
  | 'newReceivedSms2' // GetNewRecivedSMS2: Sender, message, date, is-status-report flag
  | 'jobs'; // GetJobs1 / GetGetJobsWithStatusResult: JobId, Caption, cost, send time (caller's separator)

export interface ResultDef {
  /** The JS/XML type of `<Op>Result` (typed operations: the SOAPResponseOf... envelope). */
  readonly type: TypeRef;
  /** Root element name of the HTTP GET/POST response. */
  readonly bare: string;
  readonly legacy?: LegacyResultKind;
}

/** A status field inside the result that the typed client methods turn into a GatewayError. */
export interface StatusCheck {
  /** Path below Value, e.g. ['Status'] for CreateJobInfo. Empty for a list-of-envelopes result. */
  readonly path: readonly string[];
  readonly ok: readonly string[];
  /** Values that still mean "the job exists" (JobIsQueuedInsufficientCredits). */
  readonly queued?: readonly string[];
}

/**
 * The nodes whose *Operation* menu lists catalogue operations (the any-operation node `smsgw-call` lists every
 * one). A new node with such a menu adds its type here.
 */
export type MenuNode =
  'smsgw-send-sms' | 'smsgw-legacy-send-text' | 'smsgw-balance' | 'smsgw-query-jobs' | 'smsgw-customer';

export interface OperationDef {
  readonly service: ServiceName;
  readonly name: string;
  /** Document/literal (all typed operations) or RPC/encoded (some legacy ones). */
  readonly style: 'document' | 'rpc';
  readonly params: readonly ParamDef[];
  readonly result: ResultDef;
  /** True for operations that create a job (never blindly retried). */
  readonly sends?: boolean;
  /**
   * True for operations that cost money or send something to a phone: every SMS of either service, binary and
   * UDH messages, HLR lookups, SMSCR, and any future operation that charges the account or reaches a handset.
   * Only the send gate (src/nodes/send/gate.ts) calls them: spending guard, outbox, reference in the Caption,
   * flow control and the opt-out check. An operation that `sends` must have it (createCatalogue refuses one
   * that does not); test/architecture fails when a module calls one around the gate.
   */
  readonly costs?: boolean;
  /**
   * True for an operation that costs but reaches no handset: an HLR lookup asks the network about a number. The
   * opt-out list and the pacing per number leave it alone; the spending guard counts it 1 per number.
   */
  readonly lookup?: boolean;
  /**
   * True for reads that mark what they return as collected (QueryReceivedNewSMS, GetNewRecivedSMS2,
   * QueryNewHLRJobs): repeated only after a failure that surely did not reach the gateway, since a repeat after a
   * lost answer returns nothing of what it held; such a failure is marked ambiguous (the records may be lost).
   */
  readonly collects?: boolean;
  readonly statusCheck?: StatusCheck;
  readonly doc: string;
  /** The node whose *Operation* menu offers it (none: only the any-operation node and the client). */
  readonly node?: MenuNode;
}
