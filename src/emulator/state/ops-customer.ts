/** Customer operations: a small customer list per account (its own customer plus the ones it created). */
import { complexType, findOperation } from '../../catalogue';
import { num, str, type AccountHandler } from './env';
import type { AccountState, CustomerRecord } from './model';
import type { Store } from './store';
import { userFor } from './store';
import { customerView } from './views';

const ipLockOf = (state: AccountState, c: CustomerRecord): string[] | null =>
  c.id === state.account.custId ? state.account.ipAllowList : null;

export const getCustomerList: AccountHandler = (_env, state) =>
  state.customers.map((c) => customerView(c, ipLockOf(state, c), false));

/** An unknown (or foreign) CustomerId answers StatusCode Ok without a Value. */
export const getCustomer: AccountHandler = (_env, state, p) => {
  const c = state.customers.find((x) => x.id === num(p, 'CustomerId'));
  return c ? customerView(c, ipLockOf(state, c), false) : undefined;
};

/** By SMSC serial or e-mail (case-insensitive); empty: the account's own customer; unknown: no Value. */
export const getCustomerWithAuthUser: AccountHandler = (_env, state, p) => {
  const key = (str(p, 'SerialOrEmail') ?? '').trim().toLowerCase();
  const c =
    key === ''
      ? state.customers.find((x) => x.id === state.account.custId)
      : state.customers.find(
          (x) => x.fields['SMSCSerial']?.toLowerCase() === key || x.fields['EMail']?.toLowerCase() === key,
        );
  return c ? customerView(c, ipLockOf(state, c), true) : undefined;
};

const MIN_SERIAL = 4;
const MIN_PASSWORD = 6;
/** CreateCustomer's parameters that are also Customer fields, derived from the catalogue (SMSCPassword is not one). */
const CUSTOMER_FIELDS: readonly string[] = (() => {
  const fields = new Set(complexType('Customer').fields.map((f) => f.name));
  const op = findOperation('customer', 'CreateCustomer');
  return (op?.params ?? []).filter((p) => !p.credential && fields.has(p.name)).map((p) => p.name);
})();

function serialTaken(store: Store, serial: string): boolean {
  const s = serial.toLowerCase();
  for (const a of store.accounts.values()) {
    if (a.account.serial.toLowerCase() === s) return true;
    if (a.customers.some((c) => c.fields['SMSCSerial']?.toLowerCase() === s)) return true;
  }
  return false;
}

/** Checks in the order of the CustomerStatus enum: serial length, serial free, password length, company or contact. */
export const createCustomer: AccountHandler = (env, state, p) => {
  const serial = (str(p, 'SMSCSerial') ?? '').trim();
  const password = str(p, 'SMSCPassword') ?? '';
  const company = (str(p, 'CompanyName') ?? '').trim();
  const contact = (str(p, 'ContactPerson') ?? '').trim();
  if (serial.length < MIN_SERIAL) return { Status: 'SMSCSerialToShort' };
  if (serialTaken(env.store, serial)) return { Status: 'SMSCSerialAlreadyExists' };
  if (password.length < MIN_PASSWORD) return { Status: 'PasswordToShort' };
  if (company === '' && contact === '') return { Status: 'CustomerMisstatement' };
  const fields: Record<string, string> = {};
  for (const name of CUSTOMER_FIELDS) {
    const v = str(p, name);
    if (v !== undefined && v !== '') fields[name] = v;
  }
  fields['SMSCSerial'] = serial;
  const id = env.store.nextId('customer');
  const customer: CustomerRecord = {
    id,
    resId: state.account.custId,
    fields,
    password,
    createdAt: env.now,
    authUser: userFor(id, contact || company, fields['EMail'] ?? '', env.now),
  };
  state.customers.push(customer);
  return { Status: 'Ok', ModifiedCustomer: customerView(customer, null, false) };
};
