/**
 * DNS-rebinding and cross-site guard of the console and the control API: a page on another site may make a
 * browser talk to 127.0.0.1, but it cannot make the browser send our Host (unless it points a name of its own at
 * us, which is what the Host check refuses) nor our Origin.
 */
import { isIP } from 'node:net';

export interface BindAddress {
  /** The address the emulator listens on (`127.0.0.1`, `::1`, `0.0.0.0`, a name…). */
  readonly host: string;
  readonly port: number;
  /** Further host names that name this emulator (e.g. a container's service name), accepted on any port. */
  readonly allowedHosts?: readonly string[];
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);
const WILDCARDS = new Set(['0.0.0.0', '::', '']);

/** `host[:port]` or `[v6][:port]` → lower-case host name without brackets, and the port (80 when absent). */
export function parseHostHeader(value: string): { name: string; port: number } | undefined {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s/@]+))(?::(\d{1,5}))?$/.exec(value.trim());
  if (!m) return undefined;
  const name = (m[1] ?? m[2] ?? '').toLowerCase();
  const port = m[3] === undefined ? 80 : Number(m[3]);
  return port > 65535 ? undefined : { name, port };
}

/**
 * Whether a `Host` header names this emulator: `localhost` or the bound address with the bound port; any IP
 * literal also passes when the emulator listens on all interfaces (0.0.0.0 / ::), then on any port (port
 * forwarding, containers). Names other than `localhost` never pass unless they are the bound name itself or
 * listed in `allowedHosts`.
 */
export function allowedHost(header: string | undefined, bind: BindAddress): boolean {
  if (!header) return false;
  const parsed = parseHostHeader(header);
  if (!parsed) return false;
  if (bind.allowedHosts?.some((h) => h.toLowerCase() === parsed.name)) return true;
  const bound = bind.host.replace(/^\[|\]$/g, '').toLowerCase();
  if (WILDCARDS.has(bound)) return parsed.name === 'localhost' || isIP(parsed.name) !== 0;
  if (parsed.port !== bind.port) return false;
  if (parsed.name === bound) return true;
  // The loopback address may be reached as localhost and vice versa.
  return LOOPBACK_NAMES.has(bound) && LOOPBACK_NAMES.has(parsed.name);
}

/** An `Origin` header, when a browser sends one, must be our own http origin. */
export function allowedOrigin(header: string | undefined, bind: BindAddress): boolean {
  if (header === undefined) return true;
  let url: URL;
  try {
    url = new URL(header);
  } catch {
    return false;
  }
  return url.protocol === 'http:' && allowedHost(url.host, bind);
}
