/**
 * The sandbox console's HTTP side: the page (`/`, `/console/*`), the event stream (`/_emulator/events`) and
 * the Host/Origin guard in front of the page and the control API. The wire layer hands every request here first.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CATALOGUE, type Catalogue } from '../../catalogue';
import { escapeAttr } from '../../soap/escape';
import type { EmulatorControl } from '../contract';
import type { FaultInjector } from '../wire/fault-injection';
import type { RequestLog } from '../wire/request-log';
import { CONSOLE_CSS } from './assets/console-css';
import { CONSOLE_HTML } from './assets/console-html';
import { CONSOLE_JS } from './assets/console-js';
import { FAVICON_SVG } from './assets/favicon';
import { ConsoleFeed } from './feed';
import { allowedHost, allowedOrigin, type BindAddress } from './host-guard';

export interface ConsoleOptions {
  readonly control: EmulatorControl & { onChange?: (listener: () => void) => () => void };
  readonly faults: FaultInjector;
  readonly log: RequestLog;
  /** Where the emulator listens; read at request time (the port is known only after listen). */
  readonly bind: () => BindAddress;
  /** For grouping national numbers with international ones (default '49'). */
  readonly countryCode?: string;
  /** How often the clock is checked while the page is open (default 1000 ms). */
  readonly tickMs?: number;
  /** Whose operation names the fault form offers (default: the package's catalogue). */
  readonly catalogue?: Catalogue;
}

export interface SandboxConsole {
  /** Answers console requests and refuses foreign Host/Origin on the control API; true when it answered. */
  handle(req: IncomingMessage, res: ServerResponse, pathname: string): boolean;
  readonly feed: ConsoleFeed;
  close(): void;
}

/** Sent with every console answer. No inline script or style is needed, so nothing but 'self' is allowed. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

type Assets = Readonly<Record<string, { type: string; body: Buffer }>>;

/** The console's files; the fault form offers the operation names of the catalogue. */
function assetsOf(catalogue: Catalogue): Assets {
  const page = CONSOLE_HTML.replace(
    '<datalist id="operations"></datalist>',
    `<datalist id="operations">${[...new Set(catalogue.operations.map((o) => o.name))]
      .sort()
      .map((n) => `<option value="${escapeAttr(n)}">`)
      .join('')}</datalist>`,
  );
  return {
    '/': { type: 'text/html; charset=utf-8', body: Buffer.from(page, 'utf8') },
    '/console/console.js': { type: 'text/javascript; charset=utf-8', body: Buffer.from(CONSOLE_JS, 'utf8') },
    '/console/console.css': { type: 'text/css; charset=utf-8', body: Buffer.from(CONSOLE_CSS, 'utf8') },
    '/console/favicon.svg': { type: 'image/svg+xml', body: Buffer.from(FAVICON_SVG, 'utf8') },
  };
}

const ASSETS: Assets = assetsOf(CATALOGUE);

const isConsolePath = (p: string): boolean => p === '/' || p === '/console' || p.startsWith('/console/');
const isControlPath = (p: string): boolean => p === '/_emulator' || p.startsWith('/_emulator/');

function plain(res: ServerResponse, status: number, text: string, extra: Record<string, string> = {}): void {
  const body = Buffer.from(`${text}\r\n`, 'utf8');
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    ...extra,
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': body.length,
    'Cache-Control': 'no-store',
  });
  res.end(body);
}

export function createConsole(options: ConsoleOptions): SandboxConsole {
  const assets = options.catalogue && options.catalogue !== CATALOGUE ? assetsOf(options.catalogue) : ASSETS;
  const feed = new ConsoleFeed({
    control: options.control,
    faults: options.faults,
    log: options.log,
    countryCode: options.countryCode,
    tickMs: options.tickMs,
    headers: SECURITY_HEADERS,
  });

  function handle(req: IncomingMessage, res: ServerResponse, pathname: string): boolean {
    const page = isConsolePath(pathname);
    const control = isControlPath(pathname);
    if (!page && !control) {
      // Service requests: whatever they did may show on the page.
      if (feed.listeners > 0) res.once('close', () => feed.poke());
      return false;
    }
    const bind = options.bind();
    if (!allowedHost(req.headers.host, bind)) {
      plain(res, 403, 'Forbidden: the Host header does not name this emulator');
      return true;
    }
    if (!allowedOrigin(req.headers.origin, bind)) {
      plain(res, 403, 'Forbidden: cross-origin request');
      return true;
    }
    const method = req.method ?? 'GET';
    if (control) {
      if (pathname.replace(/\/+$/, '') !== '/_emulator/events') {
        res.once('close', () => feed.poke());
        return false;
      }
      if (method !== 'GET') {
        plain(res, 405, 'Method Not Allowed', { Allow: 'GET' });
        return true;
      }
      feed.addClient(res);
      return true;
    }
    if (pathname === '/console') {
      res.writeHead(308, { ...SECURITY_HEADERS, Location: '/', 'Content-Length': 0 });
      res.end();
      return true;
    }
    const asset = assets[pathname];
    if (!asset) {
      plain(res, 404, 'Not Found');
      return true;
    }
    if (method !== 'GET' && method !== 'HEAD') {
      plain(res, 405, 'Method Not Allowed', { Allow: 'GET, HEAD' });
      return true;
    }
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Type': asset.type,
      'Content-Length': asset.body.length,
      'Cache-Control': 'no-cache',
    });
    res.end(method === 'HEAD' ? undefined : asset.body);
    return true;
  }

  return { handle, feed, close: () => feed.close() };
}
