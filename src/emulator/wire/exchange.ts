import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Catalogue } from '../../catalogue/catalogue';
import type { OperationDef, ServiceName } from '../../catalogue/types';
import type { CallContext, EmulatorControl, GatewayBackend, ParamValues, WireTransport } from '../contract';
import type { ActiveFault, FaultInjector } from './fault-injection';
import type { StatusForcer } from './forced-status';
import { serviceUnavailablePage } from './faults';
import type { RequestLog, RequestLogEntry } from './request-log';
import type { XmlLimits } from './xml-tree';

export interface ServiceEntry {
  readonly service: ServiceName;
  readonly path: string;
  readonly ns: string;
  readonly ops: readonly OperationDef[];
  /** The catalogue the operations come from: their types are looked up there. */
  readonly catalogue: Catalogue;
  /** Name of the service in its WSDL and help page. */
  readonly wsdlName: string;
}

export interface WireConfig {
  readonly services: readonly ServiceEntry[];
  readonly enableGet: boolean;
  readonly enablePost: boolean;
  readonly verboseFaults: boolean;
  readonly maxBodyBytes: number;
  readonly limits: XmlLimits;
}

export interface WireDeps {
  readonly backend: GatewayBackend & EmulatorControl;
  readonly faults: FaultInjector;
  /** Service statuses forced for the next calls (answered instead of calling the backend). */
  readonly statuses: StatusForcer;
  readonly log: RequestLog;
  readonly startedAt: number;
  /** Sees every request first (the sandbox console); true when it has answered. */
  readonly preHandler?: (req: IncomingMessage, res: ServerResponse, pathname: string) => boolean;
}

export interface WireContext {
  readonly cfg: WireConfig;
  readonly deps: WireDeps;
}

/** One request in flight: what it did (for the request log) and the injected fault acting on its answer. */
export interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly started: number;
  operation: OperationDef | undefined;
  service: ServiceName | undefined;
  transport: RequestLogEntry['transport'];
  /** The request as logged: this text, then `body` as UTF-8 when set (decoded only if the log is read). */
  request: string;
  body: Buffer | undefined;
  sabotage: ActiveFault | undefined;
  logged: boolean;
}

export function newExchange(req: IncomingMessage, res: ServerResponse): Exchange {
  return {
    req,
    res,
    started: performance.now(),
    operation: undefined,
    service: undefined,
    transport: null,
    request: '',
    body: undefined,
    sabotage: undefined,
    logged: false,
  };
}

function log(ctx: WireContext, ex: Exchange, status: number, response: string, fault?: string): void {
  if (ex.logged || ex.transport === null) return;
  ex.logged = true;
  ctx.deps.log.addRaw({
    at: Date.now(),
    operation: ex.operation?.name ?? null,
    service: ex.service ?? null,
    transport: ex.transport,
    status,
    durationMs: Math.round((performance.now() - ex.started) * 1000) / 1000,
    prefix: ex.request,
    body: ex.body,
    response,
    fault,
  });
}

/** Sends the answer, unless an injected `truncate` or `commitThenDrop` says otherwise. */
export function reply(
  ctx: WireContext,
  ex: Exchange,
  status: number,
  contentType: string | undefined,
  body: string,
  fault?: string,
): void {
  const { res } = ex;
  const sabotage = ex.sabotage;
  if (sabotage?.kind === 'commitThenDrop') {
    log(ctx, ex, 0, body, 'commitThenDrop');
    res.socket?.destroy();
    return;
  }
  if (res.headersSent || res.destroyed) return;
  const length = Buffer.byteLength(body, 'utf8');
  const headers: Array<string | number> = contentType
    ? ['Content-Length', length, 'Cache-Control', 'private', 'Content-Type', contentType]
    : ['Content-Length', length, 'Cache-Control', 'private'];
  if (sabotage?.kind === 'truncate') {
    log(ctx, ex, status, body, 'truncate');
    res.writeHead(status, headers);
    const bytes = Buffer.from(body, 'utf8');
    res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.socket?.destroy());
    return;
  }
  log(ctx, ex, status, body, fault);
  res.writeHead(status, headers);
  // A string goes out in one write together with the head (Node joins them); the bytes are the same.
  res.end(body, 'utf8');
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Applies a pending injected fault; false when the request must not go on (nothing is performed). Only a
 * delay answers later (a Promise): the usual request, without a fault, goes on without a trip through the
 * microtask queue.
 */
export function injectFault(ctx: WireContext, ex: Exchange): boolean | Promise<boolean> {
  const fault = ctx.deps.faults.take(ex.operation?.name);
  if (!fault) return true;
  switch (fault.kind) {
    case 'delay':
      return sleep(fault.ms).then(() => !ex.res.destroyed);
    case 'reset':
      log(ctx, ex, 0, '', 'reset');
      ex.req.socket.destroy();
      return false;
    case 'http503':
      reply(ctx, ex, 503, 'text/html; charset=us-ascii', serviceUnavailablePage(), 'http503');
      return false;
    default:
      ex.sabotage = fault;
      return true;
  }
}

const normalizeAddress = (a: string | undefined): string =>
  a === undefined ? '' : a.startsWith('::ffff:') ? a.slice(7) : a;

/**
 * Calls the backend: its result as it comes, a value or a thenable (a synchronous throw is thrown). A forced
 * status answers instead, and the operation is not performed.
 */
export function invokeNow(
  ctx: WireContext,
  ex: Exchange,
  op: OperationDef,
  params: ParamValues,
  transport: WireTransport,
): unknown {
  const forced = ctx.deps.statuses.take(op);
  if (forced !== undefined) return forced;
  const call: CallContext = { remoteAddress: normalizeAddress(ex.req.socket.remoteAddress), transport };
  return ctx.deps.backend.invoke(op, params, call);
}

/** What `await` would wait for. */
export const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === 'object' || typeof value === 'function') &&
  value !== null &&
  typeof (value as { then?: unknown }).then === 'function';

export const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));
