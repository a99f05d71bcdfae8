/**
 * The account of a config node: whether it has one (a config without user or password fails every call with
 * CONFIG before anything is sent, instead of the gateway's "InvalidUser"), and where its requests go (Test
 * connection uses the stored credentials only for the destination they were deployed with).
 */
import { GatewayError } from '../../errors';
import type { Destination, SmsgwConfigDef, SmsgwCredentials } from './types';

const blank = (v: unknown): string | undefined => {
  const t = typeof v === 'string' ? v.trim() : '';
  return t === '' ? undefined : t;
};

/** How the config node is named in messages: its name, else its base URL, else the type's label. */
export function gatewayName(def: { name?: unknown; baseUrl?: unknown }): string {
  return blank(def.name) ?? blank(def.baseUrl) ?? 'SMS gateway';
}

/** True when both a user and a password are set (`${ENV}` references already resolved by Node-RED). */
export function hasAccount(creds: SmsgwCredentials | undefined): boolean {
  return blank(creds?.user) !== undefined && typeof creds?.password === 'string' && creds.password !== '';
}

/** CONFIG "gateway '<name>' has no user/password", or undefined when the account is complete. */
export function accountErrorOf(
  def: { name?: unknown; baseUrl?: unknown },
  creds: SmsgwCredentials | undefined,
): GatewayError | undefined {
  if (hasAccount(creds)) return undefined;
  return new GatewayError(
    'CONFIG',
    `gateway '${gatewayName(def)}' has no user/password (type them on the Security tab of its configuration)`,
    { ambiguous: false },
  );
}

/** Where requests of these settings go and who can read them on the way (see Destination). */
export function destinationOf(
  def: Partial<Pick<SmsgwConfigDef, 'baseUrl' | 'proxyUrl' | 'tlsRejectUnauthorized' | 'tlsCa'>>,
): Destination {
  return {
    baseUrl: blank(def.baseUrl),
    proxyUrl: blank(def.proxyUrl),
    tlsRejectUnauthorized: def.tlsRejectUnauthorized !== false,
    tlsCa: blank(def.tlsCa),
  };
}

/** The fields in which two destinations differ (none: the same gateway, reached the same way). */
export function destinationChanges(a: Destination, b: Destination): string[] {
  return (Object.keys(a) as (keyof Destination)[]).filter((k) => a[k] !== b[k]);
}
