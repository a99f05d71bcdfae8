import type { Dispatcher } from 'undici';
import { CATALOGUE, DEFAULT_PATHS, namespaceKind, type Catalogue } from '../catalogue';
import type { OperationDef, ServiceName } from '../catalogue/types';
import { GatewayError } from '../errors';
import { parseLegacyResult } from '../soap/legacy';
import { DEFAULT_SEGMENT_LIMITS, contentCapProblem, type SegmentLimits } from '../text';
import { resolveInvokeLimits, type InvokeLimits } from '../generic/limits';
import { buildRequest, type Transport } from '../soap/request';
import { readTargetNamespace } from '../soap/wsdl';
import { createDispatcher } from '../transport/dispatcher';
import { DEFAULT_MAX_RESPONSE_BYTES, exchange, type BodyConsumer, type HttpRequest } from '../transport/http';
import { methodName } from '../catalogue/names';
import { NamespaceCache } from './namespaces';
import {
  checkInvokeOptions,
  credentialNames,
  invokeLimitsOf,
  loadGeneric,
  resolveTarget,
  withCredentialsFilled,
  type InvokeOptions,
  type InvokeTarget,
  type InvokeTargetInfo,
} from './invoke';
import type { CallOptions, GatewayClientOptions, GatewayWarning } from './options';
import { typedOutcome } from './outcome';
import { CatalogueResponse, consumerFor, type ResponseContext } from './response';
import { cleanCause, makeCleaner } from './secrets';
import type {
  CustomerMethods,
  InformationMethods,
  LegacyMethods,
  OperationTypes,
  SendMethods,
} from './types.generated';
import { validateParams, type ValidationLimits } from './validate';
import { defaultCountryOf, type RecipientRules } from './recipients';
import { recordSeparator, withRecordSeparator } from './separator';
import { FlowControl } from '../reliability/flow-control';
import { captionParamOf, duplicateOf, lookupJob, recoveredValue } from '../reliability/job-lookup';
import {
  captionWithReference,
  createReference,
  isReference,
  resolveReferenceOptions,
  type ResolvedReferenceOptions,
} from '../reliability/reference';
import {
  newSafeSendStats,
  resolveSafeRetryOptions,
  safeSend,
  type Attempted,
  type ResolvedSafeRetryOptions,
  type SafeSendStats,
} from '../reliability/safe-send';

const TRANSPORTS: readonly Transport[] = ['soap11', 'soap12', 'get', 'post'];
const SERVICES: readonly ServiceName[] = ['information', 'send', 'customer', 'legacy'];
/**
 * Most bytes of a generic answer checked (src/generic/gate.ts) in one turn of the event loop. Unpaced, one
 * socket's wake-up hands over up to 2 MiB (libuv reads 32 times 64 KiB while the socket has data), all of it
 * scanned before any other request of the process is served; not yet optimised by V8, the gate takes tens of
 * milliseconds per 64 KiB on a busy machine. 16 KiB keeps one turn at a few milliseconds (measured: an
 * unrelated Node-RED endpoint answers within 1 s while a 23 MB hostile answer is refused) and costs a
 * setImmediate per 16 KiB.
 */
export const GENERIC_BYTES_PER_TURN = 16 * 1024;
/**
 * Most bytes of a typed answer decoded in one turn of the event loop. A 5,000-record QueryReceivedDLR page is
 * 2.2 MB: when it waits in the socket (the process was busy, or the gateway is close), one wake-up handed the
 * decoder up to 2 MiB, ~30 chunks of 64 KiB at ~2 ms each, and every timer, socket and flow of the process waited
 * that long (the delivery-reports trigger's longest event-loop delay). 64 KiB is one of undici's reads: one
 * chunk's decode per turn. Answers announced at most this long (every send's) are not paced at all.
 */
export const TYPED_BYTES_PER_TURN = 64 * 1024;
const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1)$/i;
/**
 * Whether typed sends carry a reference in their Caption unless the `reference` option says otherwise. On:
 * flows that query by caption use the caption as sent (whether the gateway matches captions whole or by
 * prefix is not shown, so nothing may rely on a prefix match).
 */
const REFERENCE_BY_DEFAULT = true;

/** Parameters of `call(service, operation, ...)`. */
export type ParamsOf<
  S extends ServiceName,
  O extends keyof OperationTypes[S],
> = OperationTypes[S][O] extends {
  params: infer P;
}
  ? P
  : never;
/** What `call(service, operation, ...)` resolves with: the decoded answer as the service sent it. */
export type ResultOf<
  S extends ServiceName,
  O extends keyof OperationTypes[S],
> = OperationTypes[S][O] extends {
  result: infer R;
}
  ? R
  : never;
/** What the typed method resolves with. */
export type ValueOf<S extends ServiceName, O extends keyof OperationTypes[S]> = OperationTypes[S][O] extends {
  value: infer V;
}
  ? V
  : never;

function configError(message: string): never {
  throw new GatewayError('CONFIG', message, { ambiguous: false });
}

function positiveInt(name: string, v: number | undefined, dflt: number, min = 1): number {
  if (v === undefined) return dflt;
  if (!Number.isInteger(v) || v < min) configError(`${name} must be an integer ≥ ${min}`);
  return v;
}

/** The segment limits to check (defaults filled in), or undefined when switched off. */
function segmentLimitsOf(v: GatewayClientOptions['segmentLimits']): SegmentLimits | undefined {
  if (v === false) return undefined;
  return {
    single: positiveInt('segmentLimits.single', v?.single, DEFAULT_SEGMENT_LIMITS.single, 0),
    long: positiveInt('segmentLimits.long', v?.long, DEFAULT_SEGMENT_LIMITS.long, 0),
  };
}

function parseBaseUrl(baseUrl: unknown): URL {
  try {
    return new URL(String(baseUrl));
  } catch {
    return configError('baseUrl is not a valid URL');
  }
}

/** The password in a proxy URL (masked in errors like the gateway's), or ''. */
function proxyPassword(proxyUrl: unknown): string {
  if (typeof proxyUrl !== 'string' || proxyUrl === '') return '';
  try {
    const { password } = new URL(proxyUrl);
    return password ? decodeURIComponent(password) : '';
  } catch {
    return '';
  }
}

/** Read-only operations may be repeated; sends and CreateCustomer (it creates a record) never are. */
/** Runs `fn`, a synchronous throw becoming a rejection: one promise less per call than an async wrapper. */
function guarded(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    return fn();
  } catch (e) {
    return Promise.reject(e);
  }
}

const retryable = (op: OperationDef): boolean => op.sends !== true && !op.name.startsWith('Create');
/** Whether a request the gateway may have got changed something there: a failure is then ambiguous. */
const acts = (op: OperationDef): boolean => op.sends === true || op.collects === true;

/** Who an error is about: the operation, its service (if known) and whether it may create something. */
interface ErrorScope {
  service: ServiceName | undefined;
  name: string;
  sends?: boolean | undefined;
  collects?: boolean | undefined;
}

/** The limits of one call: the caller's signal and the moment its time is up. */
interface Scope {
  signal?: AbortSignal | undefined;
  deadline?: number | undefined;
}

const over = (scope: Scope): boolean =>
  scope.signal?.aborted === true || (scope.deadline !== undefined && Date.now() >= scope.deadline);

const sleep = (ms: number, scope: Scope): Promise<void> =>
  new Promise((resolve) => {
    const wait = scope.deadline === undefined ? ms : Math.min(ms, Math.max(0, scope.deadline - Date.now()));
    const t = setTimeout(done, wait);
    function done(): void {
      clearTimeout(t);
      scope.signal?.removeEventListener('abort', done);
      resolve();
    }
    scope.signal?.addEventListener('abort', done, { once: true });
  });

/**
 * A typed client for every operation of the gateway's catalogue, over SOAP 1.1, SOAP 1.2, HTTP GET or HTTP POST.
 *
 * ```ts
 * const client = new GatewayClient({ baseUrl, user, password, transport: 'soap11' });
 * const { JobId } = await client.send.sendSms({ Recipient: ['+4917012345678'], SMSText: 'Hi', ... });
 * await client.close();
 * ```
 */
export class GatewayClient {
  /** Information operations (`/gateway/Information.asmx`). */
  readonly information: InformationMethods;
  /** Send operations (`/gateway/Send.asmx`). */
  readonly send: SendMethods;
  /** Customer operations (default `/gateway/Customer.asmx`). */
  readonly customer: CustomerMethods;
  /** The older string-result service (`/soap/send.asmx`). */
  readonly legacy: LegacyMethods;
  /** The wire binding in use. */
  readonly transport: Transport;
  /** The flow control of every call (undefined without the `flowControl` option): `depth`, `onChange`. */
  readonly flow: FlowControl | undefined;
  /** Counters of the safe sends of this client (attempts, lookups, retries, recovered, ...). */
  readonly stats: SafeSendStats = newSafeSendStats();

  private readonly origin: string;
  private readonly prefix: string;
  private readonly user: string;
  private readonly password: string;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly retryDelayMs: number;
  private readonly maxRecipients: number;
  /** What validateParams checks; one object, made once. */
  private readonly limits: ValidationLimits;
  private readonly maxResponseBytes: number;
  private readonly invokeLimits: Readonly<InvokeLimits>;
  private readonly zoneless: 'utc' | 'local';
  private readonly paths: Record<ServiceName, string>;
  /** The operations known: the typed methods, call() and what invoke() knows of an operation. */
  private readonly catalogue: Catalogue;
  private readonly namespaces: NamespaceCache;
  private readonly clean: (s: string) => string;
  /** What `clean` masks: the password and the proxy's. */
  private readonly secrets: string[];
  private readonly safe: ResolvedSafeRetryOptions | undefined;
  private readonly referenceOptions: ResolvedReferenceOptions | undefined;
  private readonly legacySeparator: string;
  private readonly ownsFlow: boolean;
  private readonly onWarning: ((w: GatewayWarning) => void) | undefined;
  private closed = false;
  private readonly lifetime = new AbortController();

  constructor(options: GatewayClientOptions) {
    if (!options || typeof options !== 'object') configError('options are required');
    const url = parseBaseUrl(options.baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') configError('baseUrl must be http: or https:');
    if (url.username || url.password) configError('baseUrl must not contain credentials');
    if (typeof options.user !== 'string' || typeof options.password !== 'string') {
      configError('user and password are required strings');
    }
    const transport = options.transport ?? 'soap11';
    if (!TRANSPORTS.includes(transport)) configError(`transport must be one of ${TRANSPORTS.join(', ')}`);
    const plainForm = (transport === 'get' || transport === 'post') && url.protocol === 'http:';
    if (plainForm && !LOOPBACK.test(url.hostname) && !options.allowInsecureCredentials) {
      configError(
        `transport '${transport}' over plain http would expose the password; use https or set allowInsecureCredentials`,
      );
    }
    this.transport = transport;
    this.origin = url.origin;
    this.prefix = url.pathname.replace(/\/+$/, '');
    this.user = options.user;
    this.password = options.password;
    this.secrets = [options.password, proxyPassword(options.proxyUrl)];
    this.clean = makeCleaner(...this.secrets);
    this.timeoutMs = positiveInt('timeoutMs', options.timeoutMs, 30_000, 0);
    this.retries = positiveInt('retries', options.retries, 2, 0);
    this.retryDelayMs = positiveInt('retryDelayMs', options.retryDelayMs, 100, 0);
    this.maxRecipients = positiveInt('maxRecipients', options.maxRecipients, 1000);
    const defaultCountry = defaultCountryOf(options.defaultCountry);
    this.limits = {
      maxRecipients: this.maxRecipients,
      segments: segmentLimitsOf(options.segmentLimits),
      recipients: options.checkRecipients === false ? undefined : { defaultCountry },
    };
    try {
      this.invokeLimits = resolveInvokeLimits(options.invokeLimits);
    } catch (e) {
      configError(`invokeLimits: ${(e as Error).message}`);
    }
    this.maxResponseBytes = positiveInt(
      'maxResponseBytes',
      options.maxResponseBytes,
      DEFAULT_MAX_RESPONSE_BYTES,
    );
    this.zoneless = options.zoneless === 'local' ? 'local' : 'utc';
    this.safe =
      options.safeRetries === false
        ? undefined
        : resolveSafeRetryOptions(options.safeRetries === true ? undefined : options.safeRetries);
    const reference = options.reference ?? REFERENCE_BY_DEFAULT;
    this.referenceOptions =
      reference === false ? undefined : resolveReferenceOptions(reference === true ? undefined : reference);
    try {
      this.legacySeparator = recordSeparator(options.legacySeparator);
    } catch (e) {
      configError(`legacySeparator: ${(e as Error).message}`);
    }
    this.onWarning = typeof options.onWarning === 'function' ? options.onWarning : undefined;
    this.ownsFlow = options.flowControl !== undefined && !(options.flowControl instanceof FlowControl);
    this.flow =
      options.flowControl instanceof FlowControl
        ? options.flowControl
        : options.flowControl
          ? new FlowControl(options.flowControl)
          : undefined;
    this.paths = { ...DEFAULT_PATHS, ...(options.customerPath ? { customer: options.customerPath } : {}) };
    this.catalogue = options.catalogue ?? CATALOGUE;
    if (options.dispatcher) {
      this.dispatcher = options.dispatcher;
      this.ownsDispatcher = false;
    } else {
      this.dispatcher = createDispatcher({
        origin: this.origin,
        maxConnections: positiveInt('maxConnections', options.maxConnections, 8),
        proxyUrl: options.proxyUrl,
        tls: options.tls,
      });
      this.ownsDispatcher = true;
    }
    // A discovery is shared by every caller, so no caller's signal may end it; closing the client does.
    this.namespaces = new NamespaceCache(
      (path, signal) => this.discover(path, AbortSignal.any([signal, this.lifetime.signal])),
      this.timeoutMs,
    );
    for (const s of SERVICES) {
      const ns = namespaceKind(s) === 'legacy' ? options.legacyNamespace : options.gatewayNamespace;
      // Keyed as once() looks it up: with the baseUrl's path prefix.
      if (ns) this.namespaces.set(this.prefix + this.paths[s], ns);
    }
    this.information = this.methods('information') as unknown as InformationMethods;
    this.send = this.methods('send') as unknown as SendMethods;
    this.customer = this.methods('customer') as unknown as CustomerMethods;
    this.legacy = this.methods('legacy') as unknown as LegacyMethods;
  }

  /**
   * Calls any operation by its exact name and resolves with the decoded answer as the service returned it
   * (`{ StatusCode, Value }`, or `{ raw, ...parsed }` for the older service). Rejects with a GatewayError only
   * for transport and protocol failures (VALIDATION, CONFIG, NETWORK, TIMEOUT, HTTP, FAULT, PARSE).
   * The credential parameters are filled in from the constructor unless given.
   */
  call<S extends ServiceName, O extends keyof OperationTypes[S] & string>(
    service: S,
    operation: O,
    params?: ParamsOf<S, O>,
    options?: CallOptions,
  ): Promise<ResultOf<S, O>> {
    return guarded(() => this.run(service, operation, params, options, false)) as Promise<ResultOf<S, O>>;
  }

  /**
   * Calls any operation, also one the catalogue does not know, and resolves with the answer as a plain object:
   * namespace prefixes removed, `<Op>Result` unwrapped, values as text (numbers and booleans with
   * `options.typed`). `target` is a service name or a service path (`/gateway/Other.asmx`); `params` a plain
   * object (nested objects are child elements, arrays repeated elements, Dates xs:dateTime, Buffers base64).
   * Same transport, limits, fault mapping and password masking as the typed methods; a SOAP fault rejects with
   * FAULT and its `detail`. Never retries a send and adds no reference: prefer the typed methods where they
   * exist (docs/api.md).
   */
  invoke(
    target: InvokeTarget,
    operation: string,
    params?: Record<string, unknown>,
    options?: InvokeOptions,
  ): Promise<unknown> {
    return guarded(() => this.runInvoke(target, operation, params, options));
  }

  /**
   * The catalogue entry `invoke(target, operation)` would use (its credentials, style and retries), or
   * undefined for an operation the catalogue does not know. Throws VALIDATION for a target or name invoke()
   * would refuse.
   */
  knownOperation(target: InvokeTarget, operation: string): OperationDef | undefined {
    return resolveTarget(target, operation, this.paths, this.catalogue).op;
  }

  /**
   * Checks a call's parameters as the call itself would (missing values, recipients that are no phone number,
   * a text too long for its SMS type, list limits) without sending anything, and returns the values it would
   * send: recipients in international form where a default country is set. Throws VALIDATION. A node that sends
   * later on its own (an ask node's steps) refuses a bad message while the flow can still be told.
   */
  checkParams(
    service: ServiceName,
    operation: string,
    params: Record<string, unknown>,
  ): Record<string, unknown> {
    const op = this.catalogue.find(service, operation);
    if (!op) {
      throw new GatewayError('VALIDATION', `unknown operation ${String(service)}/${String(operation)}`, {
        ambiguous: false,
      });
    }
    return validateParams(op, params, this.limits);
  }

  /** How recipients are checked (the default country), or undefined when the check is off. */
  get recipientRules(): Readonly<RecipientRules> | undefined {
    return this.limits.recipients;
  }

  /**
   * Closes the connection pool (not a dispatcher passed in). A namespace discovery still under way is aborted;
   * calls already sent finish (each within its timeout); later calls reject with CONFIG.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsFlow) this.flow?.close();
    this.lifetime.abort(new GatewayError('CONFIG', 'client is closed', { ambiguous: false }));
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  private methods(
    service: ServiceName,
  ): Record<string, (params?: unknown, options?: CallOptions) => Promise<unknown>> {
    const out: Record<string, (params?: unknown, options?: CallOptions) => Promise<unknown>> = {};
    for (const op of this.catalogue.of(service)) {
      out[methodName(op)] = (params, options) =>
        guarded(() => this.run(service, op.name, params, options, true));
    }
    return Object.freeze(out);
  }

  private run(
    service: ServiceName,
    operation: string,
    params: unknown,
    options: CallOptions | undefined,
    typed: boolean,
  ): Promise<unknown> {
    const op = this.catalogue.find(service, operation);
    if (!op) {
      throw new GatewayError('VALIDATION', `unknown operation ${String(service)}/${String(operation)}`, {
        ambiguous: false,
      });
    }
    if (this.closed)
      throw new GatewayError('CONFIG', 'client is closed', { service, operation, ambiguous: false });
    const values = this.withCredentials(op, withRecordSeparator(op, validateParams(op, params, this.limits)));
    const clean = this.cleanerFor(op, values);
    // A caller-given reference (the outbox) asks for the lookup even where safe retries are off.
    const pinned = options?.reference !== undefined || options?.lookupFirst === true;
    const safe = this.safe ?? (pinned ? resolveSafeRetryOptions({ maxAttempts: 1 }) : undefined);
    const task = (): Promise<unknown> =>
      typed && op.sends === true && safe
        ? this.runSafe(op, values, clean, options, safe)
        : this.once(op, values, clean, options, typed);
    return this.flow ? this.flow.run(task, options?.signal) : task();
  }

  private runInvoke(
    target: unknown,
    operation: unknown,
    params: unknown,
    options: InvokeOptions | undefined,
  ): Promise<unknown> {
    const where = resolveTarget(target, operation, this.paths, this.catalogue);
    const name = operation as string;
    checkInvokeOptions(options, name);
    if (this.closed) {
      throw new GatewayError('CONFIG', 'client is closed', {
        service: where.service,
        operation: name,
        ambiguous: false,
      });
    }
    const names = credentialNames(where.op, options?.credentials);
    const values = withCredentialsFilled(params, names, { user: this.user, password: this.password }, name);
    // A text or data no SMS can carry is refused before the request is built.
    const tooLarge = contentCapProblem(values);
    if (tooLarge !== undefined) {
      throw new GatewayError('VALIDATION', tooLarge, {
        service: where.service,
        operation: name,
        ambiguous: false,
      });
    }
    const given = names.password === undefined ? undefined : values[names.password];
    const clean =
      typeof given === 'string' && given !== this.password ? makeCleaner(...this.secrets, given) : this.clean;
    const task = (): Promise<unknown> => this.invokeOnce(where, name, values, clean, options);
    return this.flow ? this.flow.run(task, options?.signal) : task();
  }

  /** One generic request (read-only catalogue operations with the retries of `retries`) and its answer. */
  private async invokeOnce(
    where: InvokeTargetInfo,
    operation: string,
    values: Record<string, unknown>,
    clean: (s: string) => string,
    options: InvokeOptions | undefined,
  ): Promise<unknown> {
    const { service } = where;
    // An operation the catalogue does not know may create something: its failures are treated like a send's.
    const errorScope: ErrorScope = {
      service,
      name: operation,
      sends: where.op ? acts(where.op) : true,
    };
    const ms = options?.timeoutMs ?? this.timeoutMs;
    const scope: Scope = { signal: options?.signal, deadline: ms ? Date.now() + ms : undefined };
    try {
      const path = this.prefix + where.path;
      const namespace =
        options?.namespace ?? this.namespaces.peek(path) ?? (await this.discoverFor(path, scope));
      const generic = loadGeneric();
      let req: HttpRequest;
      try {
        req = generic.buildGenericRequest({
          transport: this.transport,
          path,
          namespace,
          operation,
          params: values,
          style: options?.style ?? where.op?.style ?? 'document',
          headers: options?.headers,
          soapAction: options?.soapAction,
        });
      } catch (e) {
        if (!(e instanceof generic.GenericRequestError)) throw e;
        throw new GatewayError('VALIDATION', e.message, { service, operation, ambiguous: false });
      }
      const transport = this.transport;
      const limits = invokeLimitsOf(options, this.invokeLimits, operation);
      const ctx: ResponseContext = {
        service,
        operation,
        clean,
        decoder: () =>
          generic.createGenericDecoder(
            { transport, service, operation, typed: options?.typed, lists: options?.lists },
            limits,
          ),
      };
      const send = (): Promise<unknown> =>
        exchange(this.dispatcher, req, {
          origin: this.origin,
          signal: scope.signal,
          deadline: scope.deadline,
          details: { service, operation },
          clean,
          // The generic decoder holds the whole answer: bounded by this and, while it reads, by `limits`.
          maxBytes: this.maxResponseBytes,
          bytesPerTurn: GENERIC_BYTES_PER_TURN,
          onHead: (head) => consumerFor(ctx, head),
        });
      return await (where.op && retryable(where.op)
        ? this.withRetries(true, scope, send, where.op.collects === true)
        : send());
    } catch (e) {
      throw this.sanitize(e, errorScope, clean);
    }
  }

  /**
   * A typed send with safe retries: the reference goes into the Caption before the first attempt; failures
   * that surely sent nothing are retried; after an ambiguous one the job is looked up by its reference first.
   */
  private async runSafe(
    op: OperationDef,
    values: Record<string, unknown>,
    clean: (s: string) => string,
    options: CallOptions | undefined,
    safe: ResolvedSafeRetryOptions,
  ): Promise<unknown> {
    const captionParam = captionParamOf(op);
    let sent = values;
    let reference: string | undefined;
    const refOptions =
      this.referenceOptions ??
      (options?.reference !== undefined ? resolveReferenceOptions(undefined) : undefined);
    if (captionParam && refOptions) {
      // A reference made here is valid by construction: only the caller's is checked.
      reference = options?.reference ?? createReference(refOptions.length);
      if (options?.reference !== undefined && !isReference(reference)) {
        throw new GatewayError('VALIDATION', 'reference must be 4 to 64 letters or digits', {
          service: op.service,
          operation: op.name,
          ambiguous: false,
        });
      }
      const caption = typeof values[captionParam] === 'string' ? values[captionParam] : '';
      sent = { ...values, [captionParam]: captionWithReference(caption, reference, refOptions) };
    }
    const since = options?.since !== undefined && Number.isFinite(options.since) ? options.since : Date.now();
    const perRequest: CallOptions = {};
    if (options?.signal) perRequest.signal = options.signal;
    if (options?.timeoutMs !== undefined) perRequest.timeoutMs = options.timeoutMs;
    const lookupCall = (service: ServiceName, operation: string, params: Record<string, unknown>) => {
      const lop = this.catalogue.find(service, operation)!;
      const lvalues = this.withCredentials(
        lop,
        withRecordSeparator(lop, validateParams(lop, params, { maxRecipients: this.maxRecipients })),
      );
      return this.once(lop, lvalues, this.cleanerFor(lop, lvalues), perRequest, false);
    };
    const target = reference && captionParam ? { caption: String(sent[captionParam]), reference } : undefined;
    const result = await safeSend(
      {
        attempt: async (): Promise<Attempted<unknown>> => {
          const raw = await this.once(op, sent, clean, perRequest, false);
          const dup = duplicateOf(op, raw);
          if (dup) {
            const error = new GatewayError('REJECTED', `refused: ${clean(dup.status)}`, {
              service: op.service,
              operation: op.name,
              status: clean(dup.status),
              ambiguous: false,
            });
            const single = op.result.type.kind !== 'list' && dup.jobId !== undefined;
            return {
              kind: 'duplicate',
              value: single ? recoveredValue(op, [{ id: dup.jobId!, queued: false }]) : undefined,
              error,
            };
          }
          return { kind: 'ok', value: typedOutcome(op, raw, clean, this.catalogue) };
        },
        lookup: target
          ? () =>
              lookupJob(lookupCall, {
                op,
                ...target,
                since,
                legacySeparator: this.legacySeparator,
              })
          : undefined,
        lookupFirst: options?.lookupFirst === true,
        failFast: options?.failFast === true,
        reference,
        signal: options?.signal,
        stats: this.stats,
        pace: this.flow ? () => this.flow!.pace(options?.signal) : undefined,
      },
      safe,
    );
    return result.value;
  }

  /** One request (with the read-only retries of `retries`) and its decoding. */
  private async once(
    op: OperationDef,
    values: Record<string, unknown>,
    clean: (s: string) => string,
    options: CallOptions | undefined,
    typed: boolean,
  ): Promise<unknown> {
    const service = op.service;
    const ms = options?.timeoutMs ?? this.timeoutMs;
    const scope: Scope = { signal: options?.signal, deadline: ms ? Date.now() + ms : undefined };
    try {
      const path = this.prefix + this.paths[service];
      const namespace = this.namespaces.peek(path) ?? (await this.discoverFor(path, scope));
      const catalogue = this.catalogue;
      const req: HttpRequest = buildRequest(op, values, {
        transport: this.transport,
        namespace,
        path,
        catalogue,
      });
      const warn = this.warnerFor(options, clean);
      const ctx = new CatalogueResponse(op, this.transport, this.zoneless, clean, warn, catalogue);
      const send = (): Promise<unknown> =>
        exchange(this.dispatcher, req, {
          origin: this.origin,
          signal: scope.signal,
          deadline: scope.deadline,
          details: { service, operation: op.name },
          clean,
          maxBytes: this.maxResponseBytes,
          bytesPerTurn: TYPED_BYTES_PER_TURN,
          onHead: (head) => consumerFor(ctx, head),
        });
      // Sends are never repeated here (safe-send decides): no retry loop around them.
      // A collecting read is repeated only when the failed attempt surely did not reach the gateway.
      const decoded = await (retryable(op)
        ? this.withRetries(true, scope, send, op.collects === true)
        : send());
      const result = op.result.legacy ? this.parseLegacy(op, decoded, values, clean, warn) : decoded;
      return typed ? typedOutcome(op, result, clean, catalogue) : result;
    } catch (e) {
      throw this.sanitize(e, op, clean);
    }
  }

  /**
   * Who hears this call's warnings: the client's listener and the call's (undefined when nobody listens: the
   * decoder then builds no warning at all). Texts from the answer are cleaned like error texts.
   */
  private warnerFor(
    options: CallOptions | undefined,
    clean: (s: string) => string,
  ): ((w: GatewayWarning) => void) | undefined {
    const own = this.onWarning;
    const call = typeof options?.onWarning === 'function' ? options.onWarning : undefined;
    if (!own && !call) return undefined;
    return (w) => {
      const safe = { ...w, value: clean(w.value), message: clean(w.message) };
      own?.(safe);
      call?.(safe);
    };
  }

  /** The client's cleaner, or one that also masks a password passed as a parameter of this call. */
  private cleanerFor(op: OperationDef, values: Record<string, unknown>): (s: string) => string {
    for (const p of op.params) {
      const v = values[p.name];
      if (p.credential === 'password' && typeof v === 'string' && v !== this.password) {
        return makeCleaner(...this.secrets, v);
      }
    }
    return this.clean;
  }

  /**
   * A fresh object with the operation's parameters in catalogue order: every call of an operation then has
   * one object shape, which keeps the request builder's property reads monomorphic (validateParams has already
   * refused names the operation does not know).
   */
  private withCredentials(op: OperationDef, params: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const p of op.params) {
      const v = params[p.name];
      if (v !== undefined) out[p.name] = v;
      else if (p.credential) out[p.name] = p.credential === 'user' ? this.user : this.password;
    }
    return out;
  }

  private parseLegacy(
    op: OperationDef,
    decoded: unknown,
    params: Record<string, unknown>,
    clean: (s: string) => string,
    warn: ((w: GatewayWarning) => void) | undefined,
  ): unknown {
    const raw = typeof decoded === 'string' ? decoded : '';
    const separator =
      typeof params.Trennzeichen === 'string' && params.Trennzeichen ? params.Trennzeichen : undefined;
    try {
      return parseLegacyResult(op.result.legacy!, raw, {
        ...(separator ? { separator } : {}),
        zoneless: this.zoneless,
        warn,
        operation: op.name,
      });
    } catch (e) {
      const message = e instanceof GatewayError ? e.message : `unreadable result string: ${String(e)}`;
      // An unreadable answer to a send may hide a message that was accepted.
      throw new GatewayError('PARSE', message, {
        service: op.service,
        operation: op.name,
        body: clean(raw.slice(0, 300)),
        ambiguous: acts(op),
        cause: e,
      });
    }
  }

  /** Waits for the shared discovery of a path's namespace within this call's limits. */
  private async discoverFor(path: string, scope: Scope): Promise<string> {
    const ac = new AbortController();
    const onOuter = (): void => ac.abort(scope.signal?.reason);
    let timer: NodeJS.Timeout | undefined;
    if (scope.deadline !== undefined) {
      const left = Math.max(0, scope.deadline - Date.now());
      timer = setTimeout(() => ac.abort(new DOMException('no answer in time', 'TimeoutError')), left);
    }
    if (scope.signal?.aborted) ac.abort(scope.signal.reason);
    else scope.signal?.addEventListener('abort', onOuter, { once: true });
    try {
      return await this.namespaces.get(path, ac.signal);
    } finally {
      if (timer) clearTimeout(timer);
      scope.signal?.removeEventListener('abort', onOuter);
    }
  }

  /**
   * Read-only calls are repeated after NETWORK errors; a send is never repeated blindly, and a collecting read
   * (`onlyUnsent`) only after an error that surely did not reach the gateway.
   */
  private async withRetries<T>(
    retry: boolean,
    scope: Scope,
    attempt: () => Promise<T>,
    onlyUnsent = false,
  ): Promise<T> {
    for (let i = 0; ; i++) {
      try {
        return await attempt();
      } catch (e) {
        const again =
          retry &&
          i < this.retries &&
          e instanceof GatewayError &&
          e.code === 'NETWORK' &&
          !(onlyUnsent && e.ambiguous) &&
          !over(scope);
        if (!again) throw e;
        await sleep(this.retryDelayMs * 2 ** i * (0.5 + Math.random() / 2), scope);
        if (over(scope)) throw e;
      }
    }
  }

  private async discover(path: string, signal: AbortSignal): Promise<string> {
    const details = { operation: `WSDL ${path}` };
    const text = await this.withRetries(true, { signal }, () => this.readWsdl(path, signal, details)).catch(
      (e: unknown) => {
        // A server that cannot be reached fails the operation that needed the namespace in the same way: the
        // error says only that, as for any other call (a user never asked for the WSDL). An answer that is not
        // a usable WSDL keeps naming it.
        if (e instanceof GatewayError && (e.code === 'NETWORK' || e.code === 'TIMEOUT')) {
          const prefix = `${details.operation}: `;
          throw new GatewayError(
            e.code,
            e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message,
            {
              service: e.service,
              status: e.status,
              httpStatus: e.httpStatus,
              body: e.body,
              ambiguous: e.ambiguous,
              detail: e.detail,
              cause: e.cause,
            },
          );
        }
        throw e;
      },
    );
    try {
      return readTargetNamespace(text);
    } catch (e) {
      throw new GatewayError('CONFIG', 'no targetNamespace in the WSDL (set the namespace option)', {
        ...details,
        cause: e,
      });
    }
  }

  private readWsdl(path: string, signal: AbortSignal, details: { operation: string }): Promise<string> {
    return exchange(
      this.dispatcher,
      { method: 'GET', path: `${path}?WSDL`, headers: {} },
      {
        origin: this.origin,
        signal,
        details,
        clean: this.clean,
        maxBytes: this.maxResponseBytes,
        onHead: ({ status }): BodyConsumer<string> => {
          const chunks: Buffer[] = [];
          return {
            write(chunk) {
              chunks.push(chunk);
            },
            end() {
              const body = Buffer.concat(chunks).toString('utf8');
              if (status !== 200) {
                throw new GatewayError(
                  'HTTP',
                  `HTTP ${status} for the WSDL (set the namespace option to skip discovery)`,
                  {
                    ...details,
                    httpStatus: status,
                    body: body.slice(0, 300),
                  },
                );
              }
              return body;
            },
          };
        },
      },
    );
  }

  /** Last line of defence: whatever escapes carries no password (message, body, status, cause). */
  private sanitize(e: unknown, op: ErrorScope, clean: (s: string) => string): GatewayError {
    const err =
      e instanceof GatewayError
        ? e
        : new GatewayError('NETWORK', e instanceof Error ? e.message : String(e), {
            service: op.service,
            operation: op.name,
            ambiguous: op.sends === true || op.collects === true,
            cause: e,
          });
    // Errors of the namespace discovery name the WSDL as their operation: keep that in the message only.
    const prefix = err.operation === op.name ? `${op.name}: ` : '';
    const msg = prefix && err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
    return new GatewayError(err.code, clean(msg), {
      service: op.service,
      operation: op.name,
      status: err.status === undefined ? undefined : clean(err.status),
      httpStatus: err.httpStatus,
      body: err.body === undefined ? undefined : clean(err.body),
      ambiguous: err.ambiguous,
      detail: err.detail,
      cause: err.cause === undefined ? undefined : cleanCause(err.cause, clean),
    });
  }
}
