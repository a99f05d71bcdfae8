import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type StubHandler = (req: SeenRequest, res: ServerResponse) => void;

/** A tiny HTTP server on 127.0.0.1:0 answering with canned bodies, recording what it received. */
export class Stub {
  readonly seen: SeenRequest[] = [];
  handler: StubHandler = (_req, res) => res.end();
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const seen = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
        };
        this.seen.push(seen);
        this.handler(seen, res);
      });
    });
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  requests(filter = (r: SeenRequest) => !r.url.includes('?WSDL')): SeenRequest[] {
    return this.seen.filter(filter);
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

const SOAP11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const SOAP12 = 'http://www.w3.org/2003/05/soap-envelope';
const XS =
  'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"';

/** A SOAP 1.1 document/literal response `<Op>Response/<Op>Result` holding `inner`. */
export function soapResult(op: string, inner: string, ns = 'urn:test'): string {
  return (
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${SOAP11}" ${XS}><soap:Body>` +
    `<${op}Response xmlns="${ns}"><${op}Result>${inner}</${op}Result></${op}Response></soap:Body></soap:Envelope>`
  );
}

export function fault11(code: string, text: string): string {
  return (
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${SOAP11}" ${XS}><soap:Body><soap:Fault>` +
    `<faultcode>${code}</faultcode><faultstring>${text}</faultstring><detail /></soap:Fault></soap:Body></soap:Envelope>`
  );
}

export function fault12(code: string, text: string): string {
  return (
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${SOAP12}" ${XS}><soap:Body><soap:Fault>` +
    `<soap:Code><soap:Value>${code}</soap:Value></soap:Code><soap:Reason><soap:Text xml:lang="en">${text}</soap:Text>` +
    `</soap:Reason><soap:Detail /></soap:Fault></soap:Body></soap:Envelope>`
  );
}

export function wsdl(ns: string): string {
  return (
    `<?xml version="1.0" encoding="utf-8"?><wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" ` +
    `xmlns:s="http://www.w3.org/2001/XMLSchema" targetNamespace="${ns}" xmlns:tns="${ns}"><wsdl:types /></wsdl:definitions>`
  );
}

export function reply(
  res: ServerResponse,
  status: number,
  contentType: string | undefined,
  body: string,
): void {
  const headers: Record<string, string> = {};
  if (contentType) headers['content-type'] = contentType;
  res.writeHead(status, headers);
  res.end(body);
}
