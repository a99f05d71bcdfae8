/**
 * The config node's settings and the value types nodes share: data only. This module imports no implementation
 * (the hosts import it); the config node as other nodes see it is in config-node.ts. test/architecture checks
 * that no import cycle comes back.
 */
import type { NodeDef, NodeMessage } from 'node-red';

/** Which of the two services a config node talks to for balance, inbound and connection tests. */
export type ServiceKind = 'gateway' | 'legacy';
export type TransportKind = 'soap11' | 'soap12' | 'get' | 'post';

export interface SmsgwCredentials {
  user?: string;
  password?: string;
  /** Password of the HTTP proxy (its user name is in the Proxy URL, which holds no password). */
  proxyPassword?: string;
  /** Password of the Redis server used to coordinate instances. */
  redisPassword?: string;
}

/** What the editor stores for a config node (numbers arrive as strings from older editors). */
export interface SmsgwConfigDef extends NodeDef {
  baseUrl: string;
  service: ServiceKind;
  transport: TransportKind;
  allowInsecure?: boolean;
  gatewayNamespace?: string;
  legacyNamespace?: string;
  customerPath?: string;
  timeout?: number | string;
  maxConnections?: number | string;
  proxyUrl?: string;
  tlsRejectUnauthorized?: boolean;
  tlsCa?: string;
  /** The unique reference in every send's Caption: suffix (default), prefix or off. */
  reference?: 'suffix' | 'prefix' | 'off';
  /** Text between the caption and the reference (default ' #'). */
  referenceSeparator?: string;
  /** Flow control: requests per second (blank = no limit). */
  rate?: number | string;
  /** Flow control: messages in flight at once (blank = the connection count). */
  maxConcurrent?: number | string;
  /** Flow control: messages that may wait; one more fails with QUEUE_FULL (default 1000). */
  maxQueue?: number | string;
  /** Durable outbox for sends while the gateway is unreachable (default off). */
  outbox?: boolean;
  /** Segments a single-SMS type may take (default 1, 0 = no check). */
  segmentsSingle?: number | string;
  /** Segments a long type may take (default 10, 0 = no check). */
  segmentsLong?: number | string;
  /** Recipients checked before sending (default on; off = sent as given). */
  checkRecipients?: boolean;
  /** ISO 3166 country whose national numbers are sent in international form (blank = off). */
  defaultCountry?: string;
  /** Largest answer read, in MiB (blank = 32): the client's maxResponseBytes. */
  maxResponseSize?: number | string;
  /** Coordinate several Node-RED instances through Redis (default off; docs/scaling.md). */
  coordinate?: boolean;
  /** redis://host:port[/db] (no password: that is in the credentials). */
  redisUrl?: string;
  /** Prefix of every Redis key (default `smsgw:`). */
  redisPrefix?: string;
  /** Lease time in seconds (default 15). */
  redisLease?: number | string;
  /** Spending guard (Budget tab): units (segments x recipients) per rolling hour, day, month; blank = no limit. */
  budgetHour?: number | string;
  budgetDay?: number | string;
  budgetMonth?: number | string;
  /** Share of a limit (percent) at which its warning fires (default 80, 0 = none). */
  budgetWarn?: number | string;
  /** Units critical sends may use above each limit (default 0). */
  budgetReserve?: number | string;
  /** Over a limit: refuse with BUDGET (default) or hold in the outbox until the window has room. */
  budgetOver?: 'refuse' | 'hold';
  /** Opt-out tab: keep an opt-out list every send is checked against (default off). */
  optOut?: boolean | string;
  /** Read STOP / START / HELP replies from the gateway's inbound messages (default on with the list). */
  optOutKeywords?: boolean | string;
  /** Seconds between reads of replies for the keywords (default 60). */
  optOutInterval?: number | string;
  /** The keyword lists (blank = the English and German defaults). */
  optOutStop?: string;
  optOutStart?: string;
  optOutHelp?: string;
  /** Answer a keyword with a text, at most one per number per day (default off). */
  optOutAnswer?: boolean | string;
  /** The answers (blank = the default text in the runtime's language). */
  optOutStopText?: string;
  optOutStartText?: string;
  optOutHelpText?: string;
  /** The sender of the answers (blank = the gateway's default). */
  optOutSender?: string;
}

/**
 * What decides where a config node's requests go and who can read them on the way: the base URL, the proxy and
 * the TLS checks (blank fields as undefined, TLS verification on unless turned off).
 */
export interface Destination {
  baseUrl: string | undefined;
  proxyUrl: string | undefined;
  tlsRejectUnauthorized: boolean;
  tlsCa: string | undefined;
}

/** A typedInput value as stored in a node's defaults: the value text and its type (msg, str, env, ...). */
export interface TypedValue {
  value: string;
  type: string;
}

/** A recipient the opt-out list refuses: its position among the message's recipients, and how it is shown. */
export interface RefusedRecipient {
  index: number;
  /** Masked ("+4917*****67"), for the log and the error's text. */
  shown: string;
}

/** What the send gate needs of a configuration's opt-out list (src/nodes/optout/host.ts). */
export interface OptOutGate {
  /**
   * The recipients on the list; rejects (CONFIG, or NETWORK under Redis) when the list cannot be used now: lost and
   * not yet confirmed, or not read yet.
   */
  refused(recipients: readonly string[]): Promise<RefusedRecipient[]>;
  /**
   * Recipients an outbox attempt left out (they went on the list after the message was accepted), by the message's
   * reference: told once, to the send that waits for it.
   */
  skippedAtSend(reference: string): string[] | undefined;
  /** For the editor's Opt-out tab: how many numbers are on the list, and a loss to confirm. */
  snapshot(): Promise<OptOutSnapshot>;
  /** A person confirms a lost list as it is (the editor): sends go out again; false when it was not lost. */
  confirm(by: string): Promise<boolean>;
  /** The list as CSV (number,state,since,source: src/nodes/optout/csv.ts). */
  exportCsv(): Promise<string>;
  /** Reads a CSV file into the list, all or nothing (VALIDATION naming the first bad line); the rows taken. */
  importCsv(text: string, by: string): Promise<number>;
  /**
   * A flow's change (the opt-out node): the numbers put on the list (`out`) or taken off it, all or none, durable
   * when it resolves, each change logged with the source "flow". A number already in that state is not changed
   * (`changed: false`). VALIDATION before anything changes when one of them is no phone number.
   */
  flowChange(numbers: readonly string[], out: boolean, by: string): Promise<OptOutAnswer[]>;
  /** Whether each number is on the list now (the opt-out node's check); rejects like `refused` on a lost list. */
  check(numbers: readonly string[]): Promise<OptOutAnswer[]>;
}

/** One number of an opt-out node's msg, as its result says it. */
export interface OptOutAnswer {
  /** As the msg gave it. */
  number: string;
  /** As the list keeps it: +<digits> (or the national digits when the configuration has no Default country). */
  key: string;
  /** On the list now (after the change). */
  optedOut: boolean;
  /** This msg changed it (add, remove); absent for a check. */
  changed?: boolean;
  /** When its entry was last changed and how (reply, import, flow, editor); absent when the list has none. */
  since?: string;
  source?: string;
}

export interface OptOutSnapshot {
  enabled: true;
  count: number;
  shared: boolean;
  lost?: { why: string; where: string; since: number };
  problem?: string;
}

/** Messages our nodes read; every extra property passes through untouched. */
export type SmsgwMessage = NodeMessage & Record<string, unknown>;
