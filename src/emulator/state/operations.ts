/**
 * How the emulator finds an operation's business logic: from its catalogue entry, not from a table of its own.
 * The module of the entry's service exports a function named as the operation's typed method (`QueryJobs` →
 * `queryJobs` in ops-info.ts, `SendText2` → `sendText2` in ops-legacy.ts); the entry's shape says how it is
 * wrapped (typed envelope, list of envelopes, legacy string). Authentication happens here, once, and each
 * kind of operation answers a failed login its own way.
 */
import { methodName, type Catalogue, type OperationDef, type ServiceName } from '../../catalogue';
import type { ParamValues } from '../contract';
import { LEGACY_LOGIN_ERROR, authenticate } from './auth';
import type { AccountHandler, OpEnv } from './env';
import type { OperationLogic } from './options';
import * as customer from './ops-customer';
import * as information from './ops-info';
import * as legacy from './ops-legacy';
import * as send from './ops-send';

export type OperationHandler = (env: OpEnv, op: OperationDef, params: ParamValues) => unknown;

/** The package's logic: one module per service. */
export const LOGIC: OperationLogic = { information, send, customer, legacy };

/** Where each service's logic lives, for the message naming a missing function. */
const LOGIC_FILES: Readonly<Record<ServiceName, string>> = {
  information: 'src/emulator/state/ops-info.ts',
  send: 'src/emulator/state/ops-send.ts',
  customer: 'src/emulator/state/ops-customer.ts',
  legacy: 'src/emulator/state/ops-legacy.ts',
};

/** Typed operations: `{ StatusCode, Value }`, Value omitted when the login fails. */
const typed =
  (fn: AccountHandler): OperationHandler =>
  (env, op, params) => {
    const auth = authenticate(env.store, op, params, env.ctx);
    return auth.ok ? { StatusCode: 'Ok', Value: fn(env, auth.state, params) } : { StatusCode: auth.status };
  };

/** A list of envelopes (SendMobileOrFixlineSMS): the logic writes them; a failed login is one envelope. */
const envelopes =
  (fn: AccountHandler): OperationHandler =>
  (env, op, params) => {
    const auth = authenticate(env.store, op, params, env.ctx);
    return auth.ok ? fn(env, auth.state, params) : [{ StatusCode: auth.status }];
  };

/** Legacy operations: a string, `Error ...` when the login fails. */
const legacyOp =
  (fn: AccountHandler): OperationHandler =>
  (env, op, params) => {
    const auth = authenticate(env.store, op, params, env.ctx);
    return auth.ok ? fn(env, auth.state, params) : LEGACY_LOGIN_ERROR[auth.status];
  };

/** The handler of one catalogue operation, or undefined when its service's logic has no such function. */
export function handlerFor(op: OperationDef, logic: OperationLogic = LOGIC): OperationHandler | undefined {
  const fn = logic[op.service]?.[methodName(op)];
  if (typeof fn !== 'function') return undefined;
  const run = fn as AccountHandler;
  if (op.service === 'legacy') return legacyOp(run);
  return op.result.type.kind === 'list' ? envelopes(run) : typed(run);
}

/** Every operation of the catalogue with its handler; throws naming what is missing and where it belongs. */
export function handlersOf(
  catalogue: Catalogue,
  logic: OperationLogic = LOGIC,
): Map<OperationDef, OperationHandler> {
  const out = new Map<OperationDef, OperationHandler>();
  const missing: string[] = [];
  for (const op of catalogue.operations) {
    const handler = handlerFor(op, logic);
    if (handler) out.set(op, handler);
    else missing.push(`${op.service}/${op.name} (export ${methodName(op)} from ${LOGIC_FILES[op.service]})`);
  }
  if (missing.length > 0) throw new Error(`emulator state has no business logic for ${missing.join(', ')}`);
  return out;
}
