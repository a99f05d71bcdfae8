import { strict as assert } from 'node:assert';
import { OPERATIONS } from '../../../src/catalogue';
import { AUTH, CTX, call, legacy, makeState, typed, type JobInfo } from './helpers';

describe('emulator state: authentication', () => {
  it('answers every typed operation with InvalidUser for a wrong password and omits Value', () => {
    const state = makeState();
    for (const op of OPERATIONS.filter((o) => o.service !== 'legacy')) {
      const r = call(state, op.service, op.name, { User: 'demo', Password: 'wrong' });
      const envelope = Array.isArray(r) ? (r[0] as Record<string, unknown>) : (r as Record<string, unknown>);
      assert.equal(envelope['StatusCode'], 'InvalidUser', op.name);
      assert.equal(envelope['Value'], undefined, op.name);
    }
  });

  it('answers every legacy operation with an Error string for an unknown user', () => {
    const state = makeState();
    for (const op of OPERATIONS.filter((o) => o.service === 'legacy')) {
      const r = call(state, 'legacy', op.name, {
        User: 'nobody',
        Password: 'x',
        serial: 'nobody',
        password: 'x',
      });
      assert.equal(r, 'Error Login failed', op.name);
    }
  });

  it('reports a locked account as AccountLocked until it is unlocked', () => {
    const state = makeState();
    state.lockAccount('demo', true);
    assert.equal(typed(state, 'information', 'QueryAccountBalance', {}).StatusCode, 'AccountLocked');
    assert.equal(legacy(state, 'QueryBalance2', {}), 'Error Account locked');
    state.lockAccount('demo', false);
    assert.equal(typed(state, 'information', 'QueryAccountBalance', {}).StatusCode, 'Ok');
  });

  it('checks the IP allow-list, reading IPv4-mapped IPv6 addresses as IPv4', () => {
    const state = makeState();
    state.setIpAllowList('demo', ['127.0.0.1']);
    const mapped = { remoteAddress: '::ffff:127.0.0.1', transport: 'soap12' as const };
    assert.equal(typed(state, 'information', 'QueryAccountBalance', {}, mapped).StatusCode, 'Ok');
    const other = { remoteAddress: '10.1.2.3', transport: 'get' as const };
    assert.equal(typed(state, 'information', 'QueryAccountBalance', {}, other).StatusCode, 'IPLock');
    assert.equal(legacy(state, 'QueryBalance2', {}, other), 'Error IP address not allowed');
    state.setIpAllowList('demo', null);
    assert.equal(typed(state, 'information', 'QueryAccountBalance', {}, other).StatusCode, 'Ok');
  });

  it('lets SMSCR log in with serial/password (the serial defaults to the user name)', () => {
    const state = makeState({ accounts: [{ user: 'shop', password: 'shop-secret', serial: '40711' }] });
    const params = {
      caption: 'c',
      Msg: 'hi',
      Sender: '',
      bRecipient: Buffer.from('+4917011111111'),
      SendDate: null,
      SmsTyp: 0,
    };
    assert.match(
      String(call(state, 'legacy', 'SMSCR', { serial: '40711', password: 'shop-secret', ...params })),
      /^OK \d+$/,
    );
    assert.match(
      String(call(state, 'legacy', 'SMSCR', { serial: 'demo', password: 'demo-password', ...params })),
      /^OK \d+$/,
    );
    assert.equal(
      call(state, 'legacy', 'SMSCR', { serial: '40711', password: 'wrong', ...params }),
      'Error Login failed',
    );
  });

  it('keeps accounts apart: one account cannot see another account’s jobs', () => {
    const state = makeState({ accounts: [{ user: 'other', password: 'other-password' }] });
    const sent = typed<JobInfo>(state, 'send', 'SendSMS', {
      Caption: 'mine',
      Sender: 'ACME',
      Recipient: ['+4917012345678'],
      SMSText: 'x',
      SmsTyp: 'Standard',
      SendDate: null,
    }).Value!;
    const theirs = call(
      state,
      'information',
      'QueryJobs',
      { User: 'other', Password: 'other-password', StartDate: null, EndDate: null },
      CTX,
    );
    assert.deepEqual((theirs as { Value: unknown[] }).Value, []);
    const dlr = call(
      state,
      'information',
      'QueryReceivedDLRByJobID',
      { User: 'other', Password: 'other-password', JobIdList: String(sent.JobId) },
      CTX,
    );
    assert.deepEqual((dlr as { Value: unknown[] }).Value, []);
    assert.equal(AUTH.User, 'demo');
  });
});
