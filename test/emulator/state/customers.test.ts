import { strict as assert } from 'node:assert';
import { makeState, typed, type Rec } from './helpers';

const valid = {
  CompanyName: 'Shop GmbH',
  ContactPerson: 'Ann',
  SMSCSerial: 'shop01',
  SMSCPassword: 'secret1',
  EMail: 'ann@shop.example',
};

describe('emulator state: customers', () => {
  it('lists the account’s own customer and finds it by id', () => {
    const state = makeState();
    const list = typed<Rec[]>(state, 'customer', 'GetCustomerList', {}).Value!;
    assert.equal(list.length, 1);
    assert.equal(list[0]!['SMSCSerial'], 'demo');
    const one = typed<Rec>(state, 'customer', 'GetCustomer', { CustomerId: list[0]!['Id'] });
    assert.equal(one.StatusCode, 'Ok');
    assert.equal(one.Value!['Id'], list[0]!['Id']);
    assert.equal(one.Value!['Password'], undefined, 'never a password');
  });

  it('answers Ok without a Value for an unknown customer id', () => {
    const r = typed(makeState(), 'customer', 'GetCustomer', { CustomerId: 424242 });
    assert.equal(r.StatusCode, 'Ok');
    assert.equal(r.Value, undefined);
  });

  it('creates a customer, then finds it by serial or e-mail with its AuthUser', () => {
    const state = makeState();
    const created = typed<Rec>(state, 'customer', 'CreateCustomer', valid).Value!;
    assert.equal(created['Status'], 'Ok');
    const customer = created['ModifiedCustomer'] as Rec;
    assert.equal(customer['CompanyName'], 'Shop GmbH');
    assert.equal(customer['Password'], undefined);
    assert.equal(typed<Rec[]>(state, 'customer', 'GetCustomerList', {}).Value!.length, 2);
    for (const SerialOrEmail of ['shop01', 'ANN@shop.example']) {
      const found = typed<Rec>(state, 'customer', 'GetCustomerWithAuthUser', { SerialOrEmail }).Value!;
      assert.equal(found['Id'], customer['Id']);
      const user = found['AuthUser'] as Rec;
      assert.equal(user['CustId'], customer['Id']);
      assert.equal(user['EMail'], 'ann@shop.example');
      assert.equal(user['Password'], undefined);
    }
    const own = typed<Rec>(state, 'customer', 'GetCustomerWithAuthUser', { SerialOrEmail: undefined }).Value!;
    assert.equal(own['SMSCSerial'], 'demo');
    assert.equal(
      typed(state, 'customer', 'GetCustomerWithAuthUser', { SerialOrEmail: 'nobody' }).Value,
      undefined,
    );
  });

  it('checks CreateCustomer input: serial length, serial taken, password length, company or contact', () => {
    const state = makeState();
    const status = (over: Rec) =>
      typed<Rec>(state, 'customer', 'CreateCustomer', { ...valid, ...over }).Value!['Status'];
    assert.equal(status({ SMSCSerial: 'abc' }), 'SMSCSerialToShort');
    assert.equal(status({ SMSCSerial: undefined }), 'SMSCSerialToShort');
    assert.equal(status({ SMSCSerial: 'demo' }), 'SMSCSerialAlreadyExists', 'an account serial is taken');
    assert.equal(status({ SMSCPassword: '12345' }), 'PasswordToShort');
    assert.equal(status({ CompanyName: undefined, ContactPerson: '' }), 'CustomerMisstatement');
    assert.equal(status({}), 'Ok');
    assert.equal(
      status({ SMSCSerial: 'SHOP01' }),
      'SMSCSerialAlreadyExists',
      'serials compare case-insensitively',
    );
  });

  it('shows the account’s IP allow-list in its own customer’s IPLock', () => {
    const state = makeState();
    state.setIpAllowList('demo', ['127.0.0.1', '::1']);
    const own = typed<Rec[]>(state, 'customer', 'GetCustomerList', {}).Value![0]!;
    assert.equal(own['IPLock'], '127.0.0.1;::1');
  });
});
