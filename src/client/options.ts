import type { Dispatcher } from 'undici';
import type { Catalogue } from '../catalogue/catalogue';
import type { InvokeLimits } from '../generic/limits';
import type { TlsOptions } from '../transport/dispatcher';
import type { Transport } from '../soap/request';
import type { FlowControl, FlowControlOptions } from '../reliability/flow-control';
import type { ReferenceOptions } from '../reliability/reference';
import type { SafeRetryOptions } from '../reliability/safe-send';
import type { DecodeWarning } from '../soap/warnings';
import type { SegmentLimits } from '../text';

export type { Transport };

/**
 * What the client read past instead of failing an answer: a value that does not fit its declared type (kept as
 * its raw text in the record), an unknown element (skipped), or an older-service record kept raw. Reported once
 * per field and answer. docs/assumptions.md lists what each type keeps.
 */
export type GatewayWarning = DecodeWarning;

/** Options of `new GatewayClient(...)`. */
export interface GatewayClientOptions {
  /** Service base address, e.g. `https://gateway.example.com` (a path prefix is kept). */
  baseUrl: string;
  /** Account name, filled into every operation's user parameter (`User`, SMSCR's `serial`). */
  user: string;
  /** Account password, filled into every password parameter. Never logged or shown in errors. */
  password: string;
  /** Wire binding: `soap11` (default), `soap12`, `get` or `post`. */
  transport?: Transport;
  /** `{gateway_ns}` of the typed services; discovered from `<path>?WSDL` when omitted. */
  gatewayNamespace?: string;
  /** `{legacy_ns}` of `/soap/send.asmx`; discovered from its WSDL when omitted. */
  legacyNamespace?: string;
  /** Path of the customer operations (default `/gateway/Customer.asmx`). */
  customerPath?: string;
  /**
   * The operations the client knows (default: the package's catalogue). A catalogue of your own
   * (`createCatalogue`), e.g. with an operation the package lacks, gets a method for each of its operations.
   */
  catalogue?: Catalogue;
  /** Per-call time limit for the whole exchange in ms (default 30000; 0 = none). */
  timeoutMs?: number;
  /** Upper bound of keep-alive connections to the gateway (default 8). */
  maxConnections?: number;
  /** Use this undici dispatcher instead of an own pool (the client then never closes it). */
  dispatcher?: Dispatcher;
  /**
   * Send through an HTTP(S) proxy (undici ProxyAgent). `http://user:password@proxy:3128` authenticates at the
   * proxy; its password is masked in errors like the gateway's.
   */
  proxyUrl?: string;
  /** TLS options for https base URLs. */
  tls?: TlsOptions;
  /** How to read a dateTime without zone: as UTC (default) or as local time. */
  zoneless?: 'utc' | 'local';
  /** Allow `get`/`post` over plain http to a non-loopback host (the password travels in the URL/form). */
  allowInsecureCredentials?: boolean;
  /** Retries of read-only calls after a network error (default 2). Send operations are never retried. */
  retries?: number;
  /** First retry delay in ms, doubled each time (default 100). */
  retryDelayMs?: number;
  /** Longest recipient list accepted (default 1000). */
  maxRecipients?: number;
  /**
   * Segments a text may take per SMS type, checked before sending (VALIDATION): default 1 for single-SMS
   * types and 10 for StandardLong, HighQualityLong and PSTNFixedLine (our assumption, docs/assumptions.md);
   * 0 turns one check off, `false` both.
   */
  segmentLimits?: Partial<SegmentLimits> | false;
  /**
   * Recipients are checked before sending (VALIDATION naming each bad entry): digits with an optional leading
   * `+`, ignoring spaces, dashes, dots and brackets (default true; `false` sends whatever is given).
   */
  checkRecipients?: boolean;
  /**
   * ISO 3166 country code (e.g. `'DE'`): national numbers (`0170 1234567`) are sent in international form
   * (`+491701234567`), read with libphonenumber-js (loaded only when set). Default: none, numbers are sent as
   * given. Needs `checkRecipients`.
   */
  defaultCountry?: string;
  /**
   * Largest answer read, in bytes, for every operation, transport and the WSDL (default 32 MiB). Past it the
   * call stops reading, aborts the request and fails with code PARSE naming the limit.
   */
  maxResponseBytes?: number;
  /**
   * Limits of an answer to `invoke()` (which holds the whole answer, unlike the typed methods), checked while it
   * is read: elements (default 250,000), nesting (64), characters of one text or attribute value (8 MiB) and of
   * all text decoded (64 MiB). Past one the call fails with PARSE naming it. `InvokeOptions.limits` overrides
   * them per call. docs/architecture.md ("XML") says why these defaults.
   */
  invokeLimits?: Partial<InvokeLimits>;
  /**
   * Safe retries of the typed send methods (default on; docs/reliability.md): retry what surely was not
   * sent, look the reference up after an ambiguous failure before retrying. `false`: a send is never repeated.
   * With safe retries `timeoutMs` limits each request, not the whole send.
   */
  safeRetries?: boolean | SafeRetryOptions;
  /**
   * The unique reference added to the Caption of every typed send: `true` (default: suffix ' #' + 10
   * characters) or options. `false`: captions are sent as given and an ambiguous failure is never retried
   * (there is nothing to look up). See docs/reliability.md.
   */
  reference?: ReferenceOptions | boolean;
  /** Record separator GetJobs1 is asked for when an older-service send is looked up (default newline). */
  legacySeparator?: string;
  /**
   * Rate limit, concurrency limit and bounded queue for every call of this client (default none). Pass a
   * FlowControl instance to share it between clients.
   */
  flowControl?: FlowControlOptions | FlowControl;
  /** Told of every warning of every call (values kept as raw text, unknown elements skipped); see GatewayWarning. */
  onWarning?: (warning: GatewayWarning) => void;
}

/** Per-call options. */
export interface CallOptions {
  /** Aborts the call (rejects with code TIMEOUT, "aborted by the caller"). */
  signal?: AbortSignal;
  /** Overrides the client's timeoutMs for this call. */
  timeoutMs?: number;
  /** Typed sends: the reference to put into the Caption (letters and digits, 4–64); default a new one. */
  reference?: string;
  /** Typed sends: the job may exist already (e.g. an outbox entry): look it up before sending. */
  lookupFirst?: boolean;
  /** Told of this call's warnings (besides the client's `onWarning`). */
  onWarning?: (warning: GatewayWarning) => void;
  /**
   * Typed sends: a gateway that cannot be reached at all (connection refused, DNS, TLS) fails the send at once
   * instead of being retried with backoff (the outbox keeps it and tries again later). Default false.
   */
  failFast?: boolean;
  /**
   * Typed sends: when the message's first attempt was made (ms since the epoch, default now). The lookup by
   * reference searches from a day before it (an outbox entry sent again after a long outage).
   */
  since?: number;
}
