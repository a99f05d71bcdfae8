import type { GatewayClientOptions } from '../../client';
import { GatewayError } from '../../errors';
import type { FlowControlOptions } from '../../reliability/flow-control';
import type { ReferenceOptions } from '../../reliability/reference';
import { defaultCountryOf } from '../../client/recipients';
import { DEFAULT_SEGMENT_LIMITS, type SegmentLimits } from '../../text';
import type { SmsgwConfigDef, SmsgwCredentials, TransportKind } from './types';

const TRANSPORTS: readonly TransportKind[] = ['soap11', 'soap12', 'get', 'post'];

const blank = (v: string | undefined): string | undefined => {
  const t = (v ?? '').trim();
  return t === '' ? undefined : t;
};

function positive(v: number | string | undefined, name: string): number | undefined {
  if (v === undefined || v === null || String(v).trim() === '') return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new GatewayError('CONFIG', `"${name}" must be a positive number`);
  return n;
}

/**
 * The dialog's labels (nodes/locales/en-US/smsgw-config.json), so an error names the field a user sees.
 * test/nodes/config.test.ts holds them to the catalogue.
 */
export const FIELD_LABELS = {
  baseUrl: 'Base URL',
  allowInsecure: 'Allow GET/POST over plain http',
  timeout: 'Timeout',
  maxConnections: 'Connections',
  maxResponseSize: 'Max answer size',
  rate: 'Rate limit',
  maxConcurrent: 'In flight',
  maxQueue: 'Queue size',
  segmentsSingle: 'Single SMS',
  segmentsLong: 'Long SMS',
  defaultCountry: 'Default country',
  proxyUrl: 'Proxy URL',
  proxyPassword: 'Proxy password',
} as const;

/**
 * Turns the config node's fields into client options. Refuses HTTP GET/POST over plain http unless the
 * user ticked "allow": those transports put the password in a URL or form body that anyone on the path
 * can read (and GET leaves it in proxy and server logs).
 */
export function clientOptions(def: SmsgwConfigDef, creds: SmsgwCredentials): GatewayClientOptions {
  const baseUrl = blank(def.baseUrl);
  if (!baseUrl) throw new GatewayError('CONFIG', `"${FIELD_LABELS.baseUrl}" is empty`);
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new GatewayError('CONFIG', `"${FIELD_LABELS.baseUrl}" ${baseUrl} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new GatewayError('CONFIG', `"${FIELD_LABELS.baseUrl}" must start with http:// or https://`);
  }
  const transport = TRANSPORTS.includes(def.transport) ? def.transport : 'soap11';
  const insecure = url.protocol === 'http:' && (transport === 'get' || transport === 'post');
  if (insecure && !def.allowInsecure) {
    throw new GatewayError(
      'CONFIG',
      `HTTP ${transport.toUpperCase()} over plain http would expose the password: use https or a SOAP transport, or tick "${FIELD_LABELS.allowInsecure}" (gateway configuration, Connection tab)`,
    );
  }
  const timeoutS = positive(def.timeout, FIELD_LABELS.timeout);
  const maxConnections = positive(def.maxConnections, FIELD_LABELS.maxConnections);
  const maxResponseMiB = positive(def.maxResponseSize, FIELD_LABELS.maxResponseSize);
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
  const proxyUrl = proxyUrlOf(def, creds);
  const ca = blank(def.tlsCa);
  if (gatewayNamespace) options.gatewayNamespace = gatewayNamespace;
  if (legacyNamespace) options.legacyNamespace = legacyNamespace;
  if (customerPath) options.customerPath = customerPath;
  if (timeoutS) options.timeoutMs = Math.round(timeoutS * 1000);
  if (maxConnections) options.maxConnections = Math.round(maxConnections);
  if (maxResponseMiB) options.maxResponseBytes = Math.max(1024, Math.round(maxResponseMiB * 1024 * 1024));
  if (proxyUrl) options.proxyUrl = proxyUrl;
  if (ca || def.tlsRejectUnauthorized === false) {
    options.tls = { rejectUnauthorized: def.tlsRejectUnauthorized !== false };
    if (ca) options.tls.ca = ca;
  }
  options.reference = referenceOf(def) ?? false;
  options.segmentLimits = segmentLimitsOf(def);
  options.checkRecipients = def.checkRecipients !== false;
  // Checked here too, so the error names the field as the dialog labels it.
  const country = defaultCountryOf(def.defaultCountry, FIELD_LABELS.defaultCountry);
  if (country) options.defaultCountry = country;
  return options;
}

/**
 * The proxy URL the client gets: the dialog's URL (a user name in it is fine, a password is refused: flows.json
 * is not the place for it) with the password from the credentials ("Proxy password") put in, in memory only.
 */
export function proxyUrlOf(
  def: Pick<SmsgwConfigDef, 'proxyUrl'>,
  creds: Pick<SmsgwCredentials, 'proxyPassword'>,
): string | undefined {
  const text = blank(def.proxyUrl);
  if (!text) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new GatewayError('CONFIG', `"${FIELD_LABELS.proxyUrl}" is not a URL`);
  }
  if (url.password) {
    throw new GatewayError(
      'CONFIG',
      `"${FIELD_LABELS.proxyUrl}" must not hold a password: put it in "${FIELD_LABELS.proxyPassword}" (gateway configuration, Connection tab), which is kept with the credentials`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new GatewayError('CONFIG', `"${FIELD_LABELS.proxyUrl}" must start with http:// or https://`);
  }
  if (!creds.proxyPassword) return text;
  url.password = creds.proxyPassword;
  return url.href;
}

/** Segments per SMS type checked before sending (blank = the default, 0 = no check). */
export function segmentLimitsOf(def: Pick<SmsgwConfigDef, 'segmentsSingle' | 'segmentsLong'>): SegmentLimits {
  const single = whole(def.segmentsSingle, FIELD_LABELS.segmentsSingle, true);
  const long = whole(def.segmentsLong, FIELD_LABELS.segmentsLong, true);
  return {
    single: single === undefined ? DEFAULT_SEGMENT_LIMITS.single : Math.round(single),
    long: long === undefined ? DEFAULT_SEGMENT_LIMITS.long : Math.round(long),
  };
}

/** The reference setting of a config node: suffix (default), prefix, or undefined when off. */
export function referenceOf(
  def: Pick<SmsgwConfigDef, 'reference' | 'referenceSeparator'>,
): ReferenceOptions | undefined {
  if (def.reference === 'off') return undefined;
  const out: ReferenceOptions = { position: def.reference === 'prefix' ? 'prefix' : 'suffix' };
  // The separator is kept as typed (a space is meaningful); blank means the default.
  if (typeof def.referenceSeparator === 'string' && def.referenceSeparator !== '')
    out.separator = def.referenceSeparator;
  return out;
}

function whole(v: number | string | undefined, name: string, allowZero: boolean): number | undefined {
  if (v === undefined || v === null || String(v).trim() === '') return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || (!allowZero && n === 0))
    throw new GatewayError('CONFIG', `"${name}" must be a ${allowZero ? 'non-negative' : 'positive'} number`);
  return n;
}

/**
 * Flow control of a config node: requests per second (blank = none), messages in flight (blank = the
 * connection count, so nothing waits unbounded inside the connection pool) and the bounded queue.
 */
export function flowOptions(def: SmsgwConfigDef): FlowControlOptions {
  const rate = whole(def.rate, FIELD_LABELS.rate, true);
  const concurrent = whole(def.maxConcurrent, FIELD_LABELS.maxConcurrent, false);
  const queue = whole(def.maxQueue, FIELD_LABELS.maxQueue, true);
  const connections = positive(def.maxConnections, FIELD_LABELS.maxConnections) ?? 8;
  const out: FlowControlOptions = {
    maxConcurrent: Math.max(1, Math.round(concurrent ?? connections)),
    maxQueue: Math.round(queue ?? 1000),
  };
  if (rate) out.ratePerSecond = rate;
  return out;
}
