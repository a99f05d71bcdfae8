/**
 * What `client.invoke()` decides before anything is built: which service path and catalogue entry a target
 * means, which parameters receive the account's credentials, and which options are valid. The request and the
 * answer themselves are src/generic's.
 */
import { CATALOGUE, type Catalogue } from '../catalogue';
import type { OperationDef, ServiceName } from '../catalogue/types';
import type * as Generic from '../generic';
import { GatewayError } from '../errors';
import { isPlainObject } from '../shape';
import { DEFAULT_INVOKE_LIMITS, resolveInvokeLimits, type InvokeLimits } from '../generic/limits';
import type { CallOptions } from './options';

let generic: typeof Generic | undefined;

/**
 * src/generic and its libraries (xmlbuilder2 takes about as long to load as undici) load with the first
 * invoke(): the typed client, the nodes and the emulator never pay for them.
 */
export function loadGeneric(): typeof Generic {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, on purpose
  return (generic ??= require('../generic') as typeof Generic);
}

/** A service name, or a service path below the base URL (`/gateway/Other.asmx`). */
export type InvokeTarget = ServiceName | `/${string}`;

/** Options of `client.invoke()` (besides signal and timeoutMs, as for every call). */
export interface InvokeOptions extends Pick<CallOptions, 'signal' | 'timeoutMs'> {
  /** Namespace of the operation element; default: the service's (configured or read from `<path>?WSDL`). */
  namespace?: string;
  /** SOAPAction (SOAP 1.1 header, SOAP 1.2 `action`); default as ASMX forms it: namespace + operation. */
  soapAction?: string;
  /**
   * SOAP header blocks, e.g. `{ AuthHeader: { Token: 't' } }`, each in the operation's namespace; a name
   * written `{uri}Name` is put into that namespace. SOAP transports only.
   */
  headers?: Record<string, unknown>;
  /** `document` (literal) or `rpc` (SOAP encoding); default: the catalogue's style, else `document`. */
  style?: 'document' | 'rpc';
  /**
   * The parameters that receive the client's user and password (unless `params` holds them). Default: the
   * catalogue's for an operation it knows (`User`/`Password`, SMSCR's `serial`/`password`), none for an
   * operation it does not know. `false`: none.
   */
  credentials?: { user?: string; password?: string } | false;
  /** Text that reads as a number or `true`/`false` becomes one (default: every value stays text). */
  typed?: boolean;
  /**
   * Names of list elements: each reads as an array of its children's values (`[]` when empty), e.g.
   * `['Value']` turns `<Value><dbSMSJob>…</dbSMSJob></Value>` into `Value: [ … ]`.
   */
  lists?: string[];
  /**
   * Limits of this call's answer, over the client's `invokeLimits` (defaults: 250,000 elements, 64 levels, 8 MiB
   * per text, 64 MiB of text in total). An answer past one fails with PARSE naming it, while it is read.
   */
  limits?: Partial<InvokeLimits>;
}

/** The limits of one call: `options.limits` over the client's (VALIDATION naming a bad field). */
export function invokeLimitsOf(
  options: InvokeOptions | undefined,
  base: Readonly<InvokeLimits>,
  operation: string,
): Readonly<InvokeLimits> {
  if (options?.limits === undefined) return base;
  try {
    return resolveInvokeLimits(options.limits, base);
  } catch (e) {
    return invalid((e as Error).message, operation);
  }
}

/** Where an invoke() goes: the service path (below the base URL's prefix) and what the catalogue knows. */
export interface InvokeTargetInfo {
  path: string;
  service: ServiceName | undefined;
  op: OperationDef | undefined;
}

const SERVICES = new Set<string>(['information', 'send', 'customer', 'legacy']);
/** A path of plain segments: no query, fragment, dot segments, spaces or percent escapes. */
const PATH_RE = /^(\/[A-Za-z0-9_\-.~]+)+$/;
const OPERATION_RE = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

function invalid(message: string, operation?: string): never {
  throw new GatewayError('VALIDATION', message, { operation, ambiguous: false });
}

export function resolveTarget(
  target: unknown,
  operation: unknown,
  paths: Readonly<Record<ServiceName, string>>,
  catalogue: Catalogue = CATALOGUE,
): InvokeTargetInfo {
  if (typeof operation !== 'string' || !OPERATION_RE.test(operation)) {
    invalid(`operation must be an operation name (letters, digits, _ . -), got ${JSON.stringify(operation)}`);
  }
  const name = operation as string;
  if (typeof target === 'string' && SERVICES.has(target)) {
    const service = target as ServiceName;
    return { path: paths[service], service, op: catalogue.find(service, name) };
  }
  if (
    typeof target !== 'string' ||
    !PATH_RE.test(target) ||
    target.split('/').some((s) => s === '.' || s === '..')
  ) {
    return invalid(
      `target must be information, send, customer, legacy or a path such as /gateway/Other.asmx`,
      name,
    );
  }
  // A path of a known service is that service (its namespace, its catalogue entries).
  const service = (Object.keys(paths) as ServiceName[]).find((s) => paths[s] === target);
  return { path: target, service, op: service ? catalogue.find(service, name) : undefined };
}

/** The parameter names that receive user and password (see InvokeOptions.credentials). */
export function credentialNames(
  op: OperationDef | undefined,
  option: InvokeOptions['credentials'],
): { user?: string | undefined; password?: string | undefined } {
  if (option === false) return {};
  if (option !== undefined) {
    if (typeof option !== 'object' || option === null) invalid('credentials must be an object or false');
    for (const v of [option.user, option.password]) {
      if (v !== undefined && (typeof v !== 'string' || !OPERATION_RE.test(v))) {
        invalid('credentials names must be parameter names');
      }
    }
    return { user: option.user, password: option.password };
  }
  if (!op) return {};
  return {
    user: op.params.find((p) => p.credential === 'user')?.name,
    password: op.params.find((p) => p.credential === 'password')?.name,
  };
}

/** The caller's parameters with the credentials filled in where named and not given. */
export function withCredentialsFilled(
  params: unknown,
  names: { user?: string | undefined; password?: string | undefined },
  account: { user: string; password: string },
  operation: string,
): Record<string, unknown> {
  if (params !== undefined && params !== null && !isPlainObject(params)) {
    invalid('params must be a plain object', operation);
  }
  const out: Record<string, unknown> = { ...(params as Record<string, unknown> | undefined) };
  if (names.user && out[names.user] === undefined) out[names.user] = account.user;
  if (names.password && out[names.password] === undefined) out[names.password] = account.password;
  return out;
}

/** Checks the options that are not checked where they are used. */
export function checkInvokeOptions(options: InvokeOptions | undefined, operation: string): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null) invalid('options must be an object', operation);
  const { namespace, soapAction, headers, style, lists } = options;
  if (namespace !== undefined && typeof namespace !== 'string')
    invalid('namespace must be a string', operation);
  if (soapAction !== undefined && (typeof soapAction !== 'string' || /["\r\n]/.test(soapAction))) {
    invalid('soapAction must be a string without quotes or line breaks', operation);
  }
  if (headers !== undefined && !isPlainObject(headers)) invalid('headers must be a plain object', operation);
  if (style !== undefined && style !== 'document' && style !== 'rpc') {
    invalid("style must be 'document' or 'rpc'", operation);
  }
  if (lists !== undefined && (!Array.isArray(lists) || !lists.every((l) => typeof l === 'string'))) {
    invalid('lists must be an array of element names', operation);
  }
  // Checked before anything is sent (also a namespace discovery).
  invokeLimitsOf(options, DEFAULT_INVOKE_LIMITS, operation);
}
