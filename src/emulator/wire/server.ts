import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OperationDef, ServiceName } from '../../catalogue/types';
import type { CallContext, EmulatorControl, GatewayBackend, ParamValues, WireTransport } from '../contract';
import { handleControl, type ControlContext } from './control-api';
import {
  FormError,
  WireFault,
  aspNetErrorPage,
  formErrorText,
  serviceUnavailablePage,
  unableToProcess,
  writeSoapFault,
} from './faults';
import type { ActiveFault, FaultInjector } from './fault-injection';
import { collectForm, readFormParams } from './form-params';
import { helpPage } from './help-page';
import { soapContentType } from './ns';
import type { RequestLog, RequestLogEntry } from './request-log';
import { writeBareResponse, writeSoapResponse } from './responses';
import { parseMediaType, readSoapRequest } from './soap-request';
import { generateWsdl } from './wsdl';
import type { XmlLimits } from './xml-tree';

export interface ServiceEntry {
  readonly service: ServiceName;
  readonly path: string;
  readonly ns: string;
  readonly ops: readonly OperationDef[];
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
  readonly log: RequestLog;
  readonly startedAt: number;
}

class BodyTooLarge extends Error {}

/** What one request did, for the request log and for the injected faults that act on the response. */
interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly started: number;
  operation: OperationDef | undefined;
  service: ServiceName | undefined;
  transport: RequestLogEntry['transport'];
  request: string;
  sabotage: ActiveFault | undefined;
  logged: boolean;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > max) {
      reject(new BodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.removeAllListeners('data');
        req.pause();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const normalizeAddress = (a: string | undefined): string => (a ?? '').replace(/^::ffff:/, '');

export function createRequestHandler(
  cfg: WireConfig,
  deps: WireDeps,
): (req: IncomingMessage, res: ServerResponse) => void {
  const byPath = new Map(cfg.services.map((s) => [s.path.toLowerCase(), s]));
  const controlCtx: ControlContext = {
    control: deps.backend,
    faults: deps.faults,
    log: deps.log,
    startedAt: deps.startedAt,
  };

  function log(ex: Exchange, status: number, response: string, fault?: string): void {
    if (ex.logged || ex.transport === null) return;
    ex.logged = true;
    const entry: RequestLogEntry = {
      time: new Date().toISOString(),
      operation: ex.operation?.name ?? null,
      service: ex.service ?? null,
      transport: ex.transport,
      status,
      durationMs: Math.round((performance.now() - ex.started) * 1000) / 1000,
      request: ex.request,
      response,
    };
    if (fault !== undefined) entry.fault = fault;
    deps.log.add(entry);
  }

  function reply(
    ex: Exchange,
    status: number,
    contentType: string | undefined,
    body: string,
    fault?: string,
  ): void {
    const { res } = ex;
    const bytes = Buffer.from(body, 'utf8');
    const headers: Record<string, string | number> = {
      'Content-Length': bytes.length,
      'Cache-Control': 'private',
    };
    if (contentType) headers['Content-Type'] = contentType;
    const sabotage = ex.sabotage;
    if (sabotage?.kind === 'commitThenDrop') {
      log(ex, 0, body, 'commitThenDrop');
      res.socket?.destroy();
      return;
    }
    if (res.headersSent || res.destroyed) return;
    if (sabotage?.kind === 'truncate') {
      log(ex, status, body, 'truncate');
      res.writeHead(status, headers);
      res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.socket?.destroy());
      return;
    }
    log(ex, status, body, fault);
    res.writeHead(status, headers);
    res.end(bytes);
  }

  /** Applies a pending injected fault; returns false when the request must not go on. */
  async function injectFault(ex: Exchange): Promise<boolean> {
    const fault = deps.faults.take(ex.operation?.name);
    if (!fault) return true;
    switch (fault.kind) {
      case 'delay':
        await sleep(fault.ms);
        return !ex.res.destroyed;
      case 'reset':
        log(ex, 0, '', 'reset');
        ex.req.socket.destroy();
        return false;
      case 'http503':
        reply(ex, 503, 'text/html; charset=us-ascii', serviceUnavailablePage(), 'http503');
        return false;
      default:
        ex.sabotage = fault;
        return true;
    }
  }

  async function invoke(
    ex: Exchange,
    op: OperationDef,
    params: ParamValues,
    transport: WireTransport,
  ): Promise<unknown> {
    const ctx: CallContext = { remoteAddress: normalizeAddress(ex.req.socket.remoteAddress), transport };
    return await deps.backend.invoke(op, params, ctx);
  }

  const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));

  async function handleSoap(ex: Exchange, entry: ServiceEntry, body: Buffer): Promise<void> {
    ex.transport = 'soap11';
    ex.request = body.toString('utf8');
    const outcome = readSoapRequest(entry, ex.req.headers, body, cfg.limits);
    if (outcome.kind !== 'status') {
      ex.transport = outcome.version === '1.1' ? 'soap11' : 'soap12';
      ex.operation = outcome.op;
    }
    if (!(await injectFault(ex))) return;
    if (outcome.kind === 'status') {
      reply(ex, outcome.status, undefined, '');
      return;
    }
    const contentType = soapContentType(outcome.version);
    const sendFault = (fault: WireFault): void =>
      reply(ex, 500, contentType, writeSoapFault(fault, outcome.version, cfg.verboseFaults), fault.message);
    if (outcome.kind === 'fault') {
      sendFault(outcome.fault);
      return;
    }
    let xml: string;
    try {
      const result = await invoke(
        ex,
        outcome.op,
        outcome.params,
        outcome.version === '1.1' ? 'soap11' : 'soap12',
      );
      xml = writeSoapResponse(outcome.op, entry.ns, outcome.version, result);
    } catch (err) {
      sendFault(err instanceof WireFault ? err : unableToProcess(errorMessage(err)));
      return;
    }
    reply(ex, 200, contentType, xml);
  }

  async function handleForm(
    ex: Exchange,
    entry: ServiceEntry,
    methodName: string,
    body: Buffer,
    query: string,
  ): Promise<void> {
    const isGet = ex.req.method === 'GET' || ex.req.method === 'HEAD';
    const transport: WireTransport = isGet ? 'get' : 'post';
    ex.transport = transport;
    ex.request = isGet ? `GET ${ex.req.url ?? ''}` : `POST ${ex.req.url ?? ''}\n${body.toString('utf8')}`;
    ex.operation = entry.ops.find((o) => o.name === methodName);
    const enabled = (isGet && cfg.enableGet) || (ex.req.method === 'POST' && cfg.enablePost);
    if (!enabled) {
      const msg = `Request format is unrecognized for URL unexpectedly ending in '/${methodName}'.`;
      reply(ex, 500, 'text/html; charset=utf-8', aspNetErrorPage(msg, ex.req.url ?? ''), msg);
      return;
    }
    if (!(await injectFault(ex))) return;
    const sendError = (err: FormError): void =>
      reply(ex, 500, 'text/plain; charset=utf-8', formErrorText(err, cfg.verboseFaults), err.message);
    const op = ex.operation;
    if (!op) {
      const other = entry.ops.find((o) => o.name.toLowerCase() === methodName.toLowerCase());
      sendError(
        other
          ? new FormError(
              'System.ArgumentException',
              `Invalid method name '${methodName}',  method names are case sensitive.   The method name '${other.name}' with the same name but different casing was found.\r\nParameter name: methodName`,
            )
          : new FormError(
              'System.InvalidOperationException',
              `${methodName} Web Service method name is not valid.`,
            ),
      );
      return;
    }
    let params: ParamValues | undefined;
    if (isGet) params = readOrError(() => readFormParams(op, collectForm(query)), sendError);
    else {
      const media = parseMediaType(ex.req.headers['content-type']);
      if (media.type !== 'application/x-www-form-urlencoded') {
        sendError(
          new FormError(
            'System.InvalidOperationException',
            `Request format is invalid: ${ex.req.headers['content-type'] ?? ''}.`,
          ),
        );
        return;
      }
      params = readOrError(() => readFormParams(op, collectForm(body.toString('utf8'))), sendError);
    }
    if (!params) return;
    let xml: string;
    try {
      const result = await invoke(ex, op, params, transport);
      xml = writeBareResponse(op, entry.ns, result);
    } catch (err) {
      sendError(
        new FormError(
          err instanceof Error && err.name !== 'Error' ? `System.${err.name}` : 'System.Exception',
          errorMessage(err),
        ),
      );
      return;
    }
    reply(ex, 200, 'text/xml; charset=utf-8', xml);
  }

  function readOrError(read: () => ParamValues, onError: (e: FormError) => void): ParamValues | undefined {
    try {
      return read();
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      onError(err);
      return undefined;
    }
  }

  function handleDocumentation(ex: Exchange, entry: ServiceEntry, query: string): void {
    const host =
      ex.req.headers.host ?? `${ex.req.socket.localAddress ?? '127.0.0.1'}:${ex.req.socket.localPort ?? ''}`;
    const isWsdl = query.toLowerCase() === 'wsdl';
    ex.transport = isWsdl ? 'wsdl' : 'help';
    ex.request = `GET ${ex.req.url ?? ''}`;
    if (isWsdl) {
      const wsdl = generateWsdl({
        serviceName: entry.wsdlName,
        ns: entry.ns,
        ops: entry.ops,
        location: `http://${host}${entry.path}`,
        enableGet: cfg.enableGet,
        enablePost: cfg.enablePost,
      });
      reply(ex, 200, 'text/xml; charset=utf-8', wsdl);
      return;
    }
    reply(ex, 200, 'text/html; charset=utf-8', helpPage(entry.wsdlName, entry.path, entry.ops));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const ex: Exchange = {
      req,
      res,
      started: performance.now(),
      operation: undefined,
      service: undefined,
      transport: null,
      request: '',
      sabotage: undefined,
      logged: false,
    };
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    let pathname: string;
    try {
      pathname = decodeURIComponent(q < 0 ? rawUrl : rawUrl.slice(0, q));
    } catch {
      pathname = q < 0 ? rawUrl : rawUrl.slice(0, q);
    }
    const query = q < 0 ? '' : rawUrl.slice(q + 1);
    const method = req.method ?? 'GET';

    let body: Buffer;
    try {
      body = await readBody(req, cfg.maxBodyBytes);
    } catch (err) {
      if (err instanceof BodyTooLarge) {
        res.writeHead(413, { 'Content-Length': 0, Connection: 'close' });
        res.end(() => res.socket?.destroy());
        return;
      }
      throw err;
    }

    if (pathname === '/_emulator' || pathname.startsWith('/_emulator/')) {
      let parsed: unknown;
      let answer;
      try {
        parsed = body.length ? JSON.parse(body.toString('utf8')) : undefined;
        answer = handleControl(controlCtx, method, pathname, parsed);
      } catch {
        answer = { status: 400, body: { error: 'request body is not valid JSON' } };
      }
      reply(ex, answer.status, 'application/json; charset=utf-8', JSON.stringify(answer.body));
      return;
    }

    const lower = pathname.toLowerCase();
    let entry = byPath.get(lower);
    let methodName: string | undefined;
    if (!entry) {
      const slash = lower.lastIndexOf('.asmx/');
      if (slash >= 0) {
        entry = byPath.get(lower.slice(0, slash + 5));
        methodName = pathname.slice(slash + 6);
      }
    }
    if (!entry) {
      reply(ex, 404, 'text/plain; charset=utf-8', 'Not Found\r\n');
      return;
    }
    ex.service = entry.service;
    if (methodName !== undefined) {
      await handleForm(ex, entry, methodName, body, query);
    } else if (method === 'POST') {
      await handleSoap(ex, entry, body);
    } else if (method === 'GET' || method === 'HEAD') {
      handleDocumentation(ex, entry, query);
    } else {
      reply(ex, 405, 'text/plain; charset=utf-8', 'Method Not Allowed\r\n');
    }
  }

  return (req, res) => {
    handle(req, res).catch((err: unknown) => {
      // Last line of defence: whatever happened, answer (or drop) without taking the process down.
      try {
        if (!res.headersSent && !res.destroyed) {
          const text = `Internal emulator error: ${err instanceof Error ? err.message : String(err)}\r\n`;
          res.writeHead(500, {
            'Content-Type': 'text/plain; charset=utf-8',
            'Content-Length': Buffer.byteLength(text),
          });
          res.end(text);
        } else res.destroy();
      } catch {
        res.socket?.destroy();
      }
    });
  };
}
