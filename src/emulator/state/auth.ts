/** Authentication of every operation, by the parameters the catalogue marks as credentials. */
import type { OperationDef } from '../../catalogue';
import type { CallContext, ParamValues } from '../contract';
import type { AccountState } from './model';
import { normalizeAddress } from './numbers';
import type { Store } from './store';

export type LoginFailure = 'InvalidUser' | 'AccountLocked' | 'IPLock';
export type AuthResult = { ok: true; state: AccountState } | { ok: false; status: LoginFailure };

function credential(
  op: OperationDef,
  params: ParamValues,
  role: 'user' | 'password',
): { name: string; value: string | undefined } {
  const def = op.params.find((p) => p.credential === role);
  const value = def ? params[def.name] : undefined;
  return { name: def?.name ?? '', value: typeof value === 'string' ? value : undefined };
}

export function authenticate(
  store: Store,
  op: OperationDef,
  params: ParamValues,
  ctx: CallContext,
): AuthResult {
  const user = credential(op, params, 'user');
  const password = credential(op, params, 'password').value;
  // SMSCR names its login "serial": accept the account's serial there (which defaults to the user name).
  const state = store.get(user.value) ?? (user.name === 'serial' ? store.bySerial(user.value) : undefined);
  if (!state || password === undefined || state.account.password !== password)
    return { ok: false, status: 'InvalidUser' };
  if (state.account.locked) return { ok: false, status: 'AccountLocked' };
  const allow = state.account.ipAllowList;
  if (allow && !allow.map(normalizeAddress).includes(normalizeAddress(ctx.remoteAddress))) {
    return { ok: false, status: 'IPLock' };
  }
  return { ok: true, state };
}

/** The older service's answers to a failed login. */
export const LEGACY_LOGIN_ERROR: Readonly<Record<LoginFailure, string>> = {
  InvalidUser: 'Error Login failed',
  AccountLocked: 'Error Account locked',
  IPLock: 'Error IP address not allowed',
};
