import type { GatewayClientOptions } from '../../client';
import { GatewayError } from '../../errors';
import type { FlowControlOptions } from '../../reliability/flow-control';
import type { ReferenceOptions } from '../../reliability/reference';
import type { CountryCode } from 'libphonenumber-js/min';
import type { SegmentLimits } from '../../text';
import { fieldLabel, settingOf, settingsOf } from '../common/fields';
import type { SmsgwConfigDef, SmsgwCredentials, TransportKind } from './types';

const CONFIG = 'smsgw-config';
const MIB = 1024 * 1024;

/** A text setting as the field rules give it: undefined when blank. */
const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * Turns the config node's fields into client options (each judged by its rule, src/nodes/fields/config.ts: a
 * refused one throws the CONFIG error naming every refused field). Refuses HTTP GET/POST over plain http unless
 * the user ticked "allow": those transports put the password in a URL or form body that anyone on the path
 * can read (and GET leaves it in proxy and server logs).
 */
export function clientOptions(def: SmsgwConfigDef, creds: SmsgwCredentials): GatewayClientOptions {
  const v = settingsOf(CONFIG, def);
  const baseUrl = v.baseUrl as string;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new GatewayError('CONFIG', `"${fieldLabel(CONFIG, 'baseUrl')}" ${baseUrl} is not a URL`);
  }
  const transport = v.transport as TransportKind;
  const insecure = url.protocol === 'http:' && (transport === 'get' || transport === 'post');
  if (insecure && v.allowInsecure !== true) {
    throw new GatewayError(
      'CONFIG',
      `HTTP ${transport.toUpperCase()} over plain http would expose the password: use https or a SOAP transport, or tick "${fieldLabel(CONFIG, 'allowInsecure')}" (gateway configuration, Connection tab)`,
    );
  }
  const options: GatewayClientOptions = {
    baseUrl,
    user: creds.user ?? '',
    password: creds.password ?? '',
    transport,
    allowInsecureCredentials: v.allowInsecure === true,
    timeoutMs: Math.round((v.timeout as number) * 1000),
    maxConnections: v.maxConnections as number,
    maxResponseBytes: Math.max(1024, Math.round((v.maxResponseSize as number) * MIB)),
    customerPath: v.customerPath as string,
  };
  const gatewayNamespace = text(v.gatewayNamespace);
  const legacyNamespace = text(v.legacyNamespace);
  const proxyUrl = proxyUrlOf(def, creds);
  const ca = text(v.tlsCa);
  if (gatewayNamespace) options.gatewayNamespace = gatewayNamespace;
  if (legacyNamespace) options.legacyNamespace = legacyNamespace;
  if (proxyUrl) options.proxyUrl = proxyUrl;
  if (ca || v.tlsRejectUnauthorized === false) {
    options.tls = { rejectUnauthorized: v.tlsRejectUnauthorized !== false };
    if (ca) options.tls.ca = ca;
  }
  options.reference = referenceOf(def) ?? false;
  options.segmentLimits = segmentLimitsOf(def);
  options.checkRecipients = v.checkRecipients !== false;
  const country = text(v.defaultCountry);
  if (country) options.defaultCountry = country as CountryCode;
  return options;
}

/**
 * The proxy URL the client gets: the dialog's URL (a user name in it is fine, a password is refused by its rule:
 * flows.json is not the place for it) with the password from the credentials ("Proxy password") put in, in
 * memory only.
 */
export function proxyUrlOf(
  def: Pick<SmsgwConfigDef, 'proxyUrl'>,
  creds: Pick<SmsgwCredentials, 'proxyPassword'>,
): string | undefined {
  const proxy = text(settingOf(CONFIG, 'proxyUrl', def));
  if (!proxy) return undefined;
  if (!creds.proxyPassword) return proxy;
  let url: URL;
  try {
    url = new URL(proxy);
  } catch {
    throw new GatewayError('CONFIG', `"${fieldLabel(CONFIG, 'proxyUrl')}" is not a URL`);
  }
  url.password = creds.proxyPassword;
  return url.href;
}

/** Segments per SMS type checked before sending (blank = the default, 0 = no check). */
export function segmentLimitsOf(def: Pick<SmsgwConfigDef, 'segmentsSingle' | 'segmentsLong'>): SegmentLimits {
  return {
    single: settingOf(CONFIG, 'segmentsSingle', def) as number,
    long: settingOf(CONFIG, 'segmentsLong', def) as number,
  };
}

/** The reference setting of a config node: suffix (default), prefix, or undefined when off. */
export function referenceOf(
  def: Pick<SmsgwConfigDef, 'reference' | 'referenceSeparator'>,
): ReferenceOptions | undefined {
  const reference = settingOf(CONFIG, 'reference', def);
  if (reference === 'off') return undefined;
  // The separator is kept as typed (a space is meaningful); blank means the default.
  return {
    position: reference === 'prefix' ? 'prefix' : 'suffix',
    separator: settingOf(CONFIG, 'referenceSeparator', def) as string,
  };
}

/**
 * Flow control of a config node: requests per second (blank or 0 = none), messages in flight (blank = the
 * connection count, so nothing waits unbounded inside the connection pool) and the bounded queue. Judges every
 * field of the config: the ReliabilityHost keeps the error naming all refused ones for every msg.
 */
export function flowOptions(def: SmsgwConfigDef): FlowControlOptions {
  const v = settingsOf(CONFIG, def);
  const out: FlowControlOptions = {
    maxConcurrent: (v.maxConcurrent as number | undefined) ?? (v.maxConnections as number),
    maxQueue: v.maxQueue as number,
  };
  const rate = v.rate as number | undefined;
  if (rate) out.ratePerSecond = rate;
  return out;
}
