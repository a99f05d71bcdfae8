import { createRequire } from 'node:module';
import type { Dispatcher } from 'undici';

type Undici = typeof import('undici');
let undici: Undici | undefined;
/**
 * undici is loaded with the first pool, not when this module is required: Node-RED requires every installed
 * node module at start, and undici is most of this package's load time (bench/footprint.ts).
 */
const lib = (): Undici => (undici ??= loadUndici());

/** Loads undici now (see src/client/preload.ts): a require blocks the event loop, better at deploy than in a call. */
export function loadTransport(): void {
  lib();
}

const LEGACY_GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

/**
 * undici claims the process-wide dispatcher slot when it is loaded and finds it free; Node's own `fetch` then
 * runs through our undici, whose stricter checks fail any fetch that sets Content-Length itself
 * (nodejs/undici#5500) — in a user's function node, say. Letting Node's bundled fetch claim the slot first keeps
 * the process as it was: we never use the global dispatcher, every request names its own pool.
 */
function loadUndici(): Undici {
  const slots = globalThis as unknown as Record<symbol, unknown>;
  if (slots[LEGACY_GLOBAL_DISPATCHER] === undefined && typeof fetch === 'function') {
    fetch('data:,').catch(() => undefined); // a data: URL: no network, only Node's fetch initialising itself
  }
  return createRequire(__filename)('undici') as Undici;
}

export interface TlsOptions {
  /** Extra CA certificate(s), PEM. */
  ca?: string | Buffer | readonly (string | Buffer)[];
  /** Default true. Only turn off against a test server. */
  rejectUnauthorized?: boolean;
}

export interface DispatcherOptions {
  origin: string;
  maxConnections: number;
  proxyUrl?: string | undefined;
  tls?: TlsOptions | undefined;
}

function connectOptions(tls: TlsOptions | undefined): {
  ca?: string | Buffer | (string | Buffer)[];
  rejectUnauthorized?: boolean;
} {
  if (!tls) return {};
  const out: { ca?: string | Buffer | (string | Buffer)[]; rejectUnauthorized?: boolean } = {};
  if (tls.ca !== undefined)
    out.ca = Array.isArray(tls.ca) ? [...(tls.ca as (string | Buffer)[])] : (tls.ca as string | Buffer);
  if (tls.rejectUnauthorized !== undefined) out.rejectUnauthorized = tls.rejectUnauthorized;
  return out;
}

/** A keep-alive pool bounded to `maxConnections` for the base URL's origin, or a proxy agent. */
export function createDispatcher(opts: DispatcherOptions): Dispatcher {
  const connect = connectOptions(opts.tls);
  if (opts.proxyUrl) {
    return new (lib().ProxyAgent)({
      uri: opts.proxyUrl,
      connections: opts.maxConnections,
      requestTls: connect,
    });
  }
  return new (lib().Pool)(opts.origin, {
    connections: opts.maxConnections,
    pipelining: 1,
    keepAliveTimeout: 4_000,
    connect,
  });
}
