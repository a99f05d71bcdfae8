import type { GatewayClientOptions } from '../../client';
import { GatewayError } from '../../errors';
import type { SmsgwConfigDef, SmsgwCredentials, TransportKind } from './types';

const TRANSPORTS: readonly TransportKind[] = ['soap11', 'soap12', 'get', 'post'];

const blank = (v: string | undefined): string | undefined => {
  const t = (v ?? '').trim();
  return t === '' ? undefined : t;
};

function positive(v: number | string | undefined, name: string): number | undefined {
  if (v === undefined || v === null || String(v).trim() === '') return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new GatewayError('CONFIG', `${name} must be a positive number`);
  return n;
}

/**
 * Turns the config node's fields into client options. Refuses HTTP GET/POST over plain http unless the
 * user ticked "allow": those transports put the password in a URL or form body that anyone on the path
 * can read (and GET leaves it in proxy and server logs).
 */
export function clientOptions(def: SmsgwConfigDef, creds: SmsgwCredentials): GatewayClientOptions {
  const baseUrl = blank(def.baseUrl);
  if (!baseUrl) throw new GatewayError('CONFIG', 'the base URL is empty');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new GatewayError('CONFIG', `the base URL "${baseUrl}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new GatewayError('CONFIG', 'the base URL must start with http:// or https://');
  }
  const transport = TRANSPORTS.includes(def.transport) ? def.transport : 'soap11';
  const insecure = url.protocol === 'http:' && (transport === 'get' || transport === 'post');
  if (insecure && !def.allowInsecure) {
    throw new GatewayError(
      'CONFIG',
      `HTTP ${transport.toUpperCase()} over plain http would expose the password; use https, a SOAP transport, or tick "allow over http"`,
    );
  }
  const timeoutS = positive(def.timeout, 'timeout');
  const maxConnections = positive(def.maxConnections, 'maximum concurrent requests');
  const options: GatewayClientOptions = {
    baseUrl,
    user: creds.user ?? '',
    password: creds.password ?? '',
    transport,
    allowInsecureCredentials: !!def.allowInsecure,
  };
  const gatewayNamespace = blank(def.gatewayNamespace);
  const legacyNamespace = blank(def.legacyNamespace);
  const customerPath = blank(def.customerPath);
  const proxyUrl = blank(def.proxyUrl);
  const ca = blank(def.tlsCa);
  if (gatewayNamespace) options.gatewayNamespace = gatewayNamespace;
  if (legacyNamespace) options.legacyNamespace = legacyNamespace;
  if (customerPath) options.customerPath = customerPath;
  if (timeoutS) options.timeoutMs = Math.round(timeoutS * 1000);
  if (maxConnections) options.maxConnections = Math.round(maxConnections);
  if (proxyUrl) options.proxyUrl = proxyUrl;
  if (ca || def.tlsRejectUnauthorized === false) {
    options.tls = { rejectUnauthorized: def.tlsRejectUnauthorized !== false };
    if (ca) options.tls.ca = ca;
  }
  return options;
}
