/**
 * A fixed-response server in its own process (the baseline): answers each request with a body chosen
 * by method, path (without query) and SOAP version, after reading the request body. Nothing is parsed.
 * Config: { responses: { "<METHOD> <path> <soap11|soap12|form>": { type, body } } }. `{{self}}` in a body becomes
 * the stub's own origin (a WSDL whose address must point back at the stub).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { announce, config } from './serve';

interface Canned {
  type: string;
  body: string;
}
const cfg = config<{ responses: Record<string, Canned>; keepAliveMs?: number }>();
const table = new Map<string, { head: Record<string, string | number>; body: Buffer }>();
function fill(self: string): void {
  for (const [k, v] of Object.entries(cfg.responses)) {
    const body = Buffer.from(v.body.replaceAll('{{self}}', self), 'utf8');
    table.set(k, { head: { 'Content-Type': v.type, 'Content-Length': body.length }, body });
  }
}

const server = createServer((req, res) => {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const ct = req.headers['content-type'] ?? '';
  const kind = ct.startsWith('application/soap+xml')
    ? 'soap12'
    : ct.startsWith('text/xml')
      ? 'soap11'
      : 'form';
  const hit = table.get(`${req.method} ${path} ${kind}`);
  req.on('data', () => {});
  req.on('end', () => {
    if (!hit) {
      res.writeHead(404, { 'Content-Length': 0 });
      res.end();
      return;
    }
    res.writeHead(200, hit.head);
    res.end(hit.body);
  });
});
// keepAliveMs (the anchor): idle keep-alive sockets stay open across its phases. Node closes them after 5 s by
// default, and the http request node's agent reusing one just then fails with "socket hang up" (a race of
// keep-alive, not what is measured).
if (cfg.keepAliveMs) server.keepAliveTimeout = cfg.keepAliveMs;
server.listen(0, '127.0.0.1', () => {
  const self = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fill(self);
  announce(self);
});
