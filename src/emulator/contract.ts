/**
 * The boundary between the emulator's wire layer (HTTP, SOAP, GET/POST, WSDL, faults) and its business
 * logic (accounts, jobs, reports, balance). The wire layer decodes parameters into these JS values,
 * calls `GatewayBackend.invoke`, and serializes whatever comes back according to the catalogue.
 *
 * Value conventions, both directions (mirroring what XmlSerializer does with missing elements):
 * - string: string, or undefined when the element/parameter is absent (ASMX passes null);
 * - int / double: number (absent: 0); boolean: boolean (absent: false);
 * - dateTime: Date, or null for .NET's DateTime.MinValue (absent, or `0001-01-01T00:00:00`);
 * - base64Binary: Buffer (absent: undefined);
 * - enum: the member name as a string (absent: the enum's first member);
 * - list: an array (absent: undefined; empty wrapper: []);
 * - complex: a plain object keyed by field name. On the wire, as XmlSerializer writes it, a string, base64Binary,
 *   list or complex field left undefined is omitted; an int, double, boolean, dateTime or enum field is always
 *   written, with its .NET default (0, false, `0001-01-01T00:00:00`, the first member) when left undefined.
 * Typed operations return `{ StatusCode, Value }`; SendMobileOrFixlineSMS returns an array of those;
 * legacy operations return a string.
 */
import type { OperationDef } from '../catalogue/types';

export type WireTransport = 'soap11' | 'soap12' | 'get' | 'post';

export interface CallContext {
  /** The caller's IP address as the socket saw it (for IPLock). */
  readonly remoteAddress: string;
  readonly transport: WireTransport;
}

export type ParamValues = Record<string, unknown>;

export interface GatewayBackend {
  /** Runs one operation. Throwing an Error makes the wire layer answer with a Server fault (500). */
  invoke(op: OperationDef, params: ParamValues, ctx: CallContext): unknown;
}

export type SubscriberState = 'ok' | 'unknown' | 'unreachable';

export interface InboundInput {
  /** Account that receives the message (default: the demo account). */
  user?: string;
  /** The phone that sends it. */
  from: string;
  /** Rented number or original sender it was sent to (optional). */
  to?: string;
  text: string;
  /** Reply to this job (sets JobId and Caption of the received record). */
  jobId?: number;
  date?: Date;
  /** Flag the record as a status report (its `Report` is 1 instead of 0; what Report means is not shown). */
  report?: boolean;
}

/**
 * What the control API (`/_emulator/...`), tests and the sandbox console may do to the state.
 * Everything here is plain data so it can be driven over HTTP as JSON.
 */
export interface EmulatorControl {
  injectInbound(input: InboundInput): { id: number };
  /** Moves the emulator's clock forward, letting jobs progress as if that much time had passed. */
  advance(ms: number): void;
  /** Finishes every open job at once with final delivery reports. Returns how many jobs were finished. */
  finishJobs(): number;
  setBalance(user: string, balance: number): void;
  lockAccount(user: string, locked: boolean): void;
  /** null allows every address. */
  setIpAllowList(user: string, addresses: string[] | null): void;
  /** Makes a number fail (or succeed again) in the delivery reports of jobs sent to it from now on. */
  setSubscriberState(number: string, state: SubscriberState): void;
  /**
   * How the ...ByJobCaption queries match a caption from now on: 'exact' (the default) or 'prefix' (every caption
   * that starts with the filter). The real service's rule is not shown; the package must work with both.
   */
  setCaptionMatch(mode: 'exact' | 'prefix'): void;
  getCaptionMatch(): 'exact' | 'prefix';
  /** Plain JSON of the whole state (accounts without passwords, jobs, reports, inbound, HLR results). */
  snapshot(): unknown;
}
