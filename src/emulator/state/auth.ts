/** Authentication of every operation, by the parameters the catalogue marks as credentials. */
import type { OperationDef } from '../../catalogue';
import type { CallContext, ParamValues } from '../contract';
import type { AccountState } from './model';
import { normalizeAddress } from './numbers';
import type { Store } from './store';

export type LoginFailure = 'InvalidUser' | 'AccountLocked' | 'IPLock';
export type AuthResult = { ok: true; state: AccountState } | { ok: false; status: LoginFailure };

/** Names of an operation's user and password parameters ('' when it has none), found once per operation. */
const credentialNames = new WeakMap<OperationDef, { user: string; password: string }>();

function namesOf(op: OperationDef): { user: string; password: string } {
  let names = credentialNames.get(op);
  if (!names) {
    names = {
      user: op.params.find((p) => p.credential === 'user')?.name ?? '',
      password: op.params.find((p) => p.credential === 'password')?.name ?? '',
    };
    credentialNames.set(op, names);
  }
  return names;
}

function credential(params: ParamValues, name: string): string | undefined {
  const value = name === '' ? undefined : params[name];
  return typeof value === 'string' ? value : undefined;
}

export function authenticate(
  store: Store,
  op: OperationDef,
  params: ParamValues,
  ctx: CallContext,
): AuthResult {
  const names = namesOf(op);
  const user = credential(params, names.user);
  const password = credential(params, names.password);
  // SMSCR names its login "serial": accept the account's serial there (which defaults to the user name).
  const state = store.get(user) ?? (names.user === 'serial' ? store.bySerial(user) : undefined);
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
