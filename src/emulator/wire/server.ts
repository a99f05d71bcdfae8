import type { IncomingMessage, ServerResponse } from 'node:http';
import { handleControl, type ControlContext } from './control-api';
import {
  newExchange,
  reply,
  type Exchange,
  type ServiceEntry,
  type WireConfig,
  type WireContext,
  type WireDeps,
} from './exchange';
import { AspNetQuery, discoDocument, documentationRoute } from './discovery';
import { DISCOVERY_FRAMES, FormError, aspNetErrorPage, formErrorText } from './faults';
import { handleForm, unrecognizedUrl } from './form-endpoint';
import { helpPage, operationPage, type HelpInput } from './help-page';
import { handleSoap } from './soap-endpoint';
import { generateWsdl } from './wsdl';

export type { ServiceEntry, WireConfig, WireDeps } from './exchange';

class BodyTooLarge extends Error {}

/**
 * `?schema=<id>` names a schema this service does not have (all its types are inside the WSDL). The reference
 * material does not give ASMX's text for this (WebSchemaNotFound); this one is ours (docs/assumptions.md).
 */
const SCHEMA_NOT_FOUND = 'Schema was not found.';

function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > max) {
      reject(new BodyTooLarge());
      return;
    }
    // One chunk (the usual small request) is used as it is: nothing else holds or changes it. A list is made
    // only for a second chunk (an array's first push reserves 17 slots).
    let first: Buffer | undefined;
    let more: Buffer[] | undefined;
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.removeAllListeners('data');
        req.pause();
        reject(new BodyTooLarge());
        return;
      }
      if (first === undefined) first = chunk;
      else if (more === undefined) more = [first, chunk];
      else more.push(chunk);
    });
    req.on('end', () => resolve(more ? Buffer.concat(more) : (first ?? Buffer.alloc(0))));
    req.on('error', reject);
  });
}

export function createRequestHandler(
  cfg: WireConfig,
  deps: WireDeps,
): (req: IncomingMessage, res: ServerResponse) => void {
  const byPath = new Map(cfg.services.map((s) => [s.path.toLowerCase(), s]));
  const ctx: WireContext = { cfg, deps };
  const controlCtx: ControlContext = {
    control: deps.backend,
    faults: deps.faults,
    statuses: deps.statuses,
    log: deps.log,
    startedAt: deps.startedAt,
  };

  /** `GET <P>`: the Discovery protocol (`?wsdl`, `?disco`, `?wsdl=<id>`) or the Documentation protocol. */
  function handleDocumentation(ex: Exchange, entry: ServiceEntry, query: string): void {
    const host =
      ex.req.headers.host ?? `${ex.req.socket.localAddress ?? '127.0.0.1'}:${ex.req.socket.localPort ?? ''}`;
    const location = `http://${host}${entry.path}`;
    const route = documentationRoute(new AspNetQuery(query));
    ex.transport = route.kind === 'help' ? 'help' : 'wsdl';
    ex.request = `GET ${ex.req.url ?? ''}`;
    switch (route.kind) {
      case 'wsdl': {
        const wsdl = generateWsdl({
          serviceName: entry.wsdlName,
          ns: entry.ns,
          ops: entry.ops,
          catalogue: entry.catalogue,
          location,
          enableGet: cfg.enableGet,
          enablePost: cfg.enablePost,
        });
        reply(ctx, ex, 200, 'text/xml; charset=utf-8', wsdl);
        return;
      }
      case 'disco':
        reply(ctx, ex, 200, 'text/xml; charset=utf-8', discoDocument(location, entry.ns, entry.wsdlName));
        return;
      case 'wsdlId':
      case 'schemaId': {
        // The WSDL holds every type: the service has no imported document, whatever the id.
        const err = new FormError(
          'System.InvalidOperationException',
          route.kind === 'wsdlId' ? 'XML Web service description was not found.' : SCHEMA_NOT_FOUND,
          undefined,
          DISCOVERY_FRAMES,
        );
        reply(ctx, ex, 500, 'text/plain; charset=utf-8', formErrorText(err, cfg.verboseFaults), err.message);
        return;
      }
      case 'help': {
        const help: HelpInput = {
          serviceName: entry.wsdlName,
          path: entry.path,
          ns: entry.ns,
          ops: entry.ops,
          enableGet: cfg.enableGet,
          enablePost: cfg.enablePost,
        };
        const op = route.op === undefined ? undefined : entry.ops.find((o) => o.name === route.op);
        reply(ctx, ex, 200, 'text/html; charset=utf-8', op ? operationPage(help, op) : helpPage(help));
      }
    }
  }

  /**
   * A verb other than GET or POST on the bare path: each protocol that would take the path answers "not this
   * verb", the last (Documentation) too, and ASMX throws HttpException(405): ASP.NET's error page.
   */
  function methodNotAllowed(ex: Exchange): void {
    ex.transport = 'help';
    ex.request = `${ex.req.method ?? ''} ${ex.req.url ?? ''}`;
    const msg = 'Request format is unrecognized.';
    const page = aspNetErrorPage(msg, ex.req.url ?? '', 'System.Web.HttpException');
    reply(ctx, ex, 405, 'text/html; charset=utf-8', page, msg);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const ex = newExchange(req, res);
      const rawUrl = req.url ?? '/';
      const q = rawUrl.indexOf('?');
      let pathname = q < 0 ? rawUrl : rawUrl.slice(0, q);
      if (pathname.includes('%')) {
        try {
          pathname = decodeURIComponent(pathname);
        } catch {
          // kept as sent
        }
      }
      const query = q < 0 ? '' : rawUrl.slice(q + 1);
      const method = req.method ?? 'GET';

      if (deps.preHandler?.(req, res, pathname)) return;

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
        reply(ctx, ex, answer.status, 'application/json; charset=utf-8', JSON.stringify(answer.body));
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
        reply(ctx, ex, 404, 'text/plain; charset=utf-8', 'Not Found\r\n');
        return;
      }
      ex.service = entry.service;
      if (methodName !== undefined) {
        if (method === 'GET' || method === 'POST') await handleForm(ctx, ex, entry, methodName, body, query);
        else {
          ex.transport = 'help';
          ex.request = `${method} ${rawUrl}`;
          unrecognizedUrl(ctx, ex, methodName);
        }
      } else if (method === 'POST') {
        await handleSoap(ctx, ex, entry, body);
      } else if (method === 'GET') {
        handleDocumentation(ex, entry, query);
      } else {
        methodNotAllowed(ex);
      }
    } catch (err) {
      internalError(res, err);
    }
  }

  // handle() never rejects: no `.catch` closure and promise per request.
  return (req, res) => {
    void handle(req, res);
  };
}

/** Last line of defence: whatever happened, answer (or drop) without taking the process down. */
function internalError(res: ServerResponse, err: unknown): void {
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
}
