import { strict as assert } from 'node:assert';
import { CATALOGUE, OPERATIONS, createCatalogue, findOperation } from '../../../src/catalogue';
import { GatewayState } from '../../../src/emulator/state';
import { AUTH, CTX, T0, balance, makeState, sendSms } from './helpers';

describe('emulator state: control and snapshot', () => {
  it('handles every operation of the catalogue', () => {
    const state = makeState();
    for (const op of OPERATIONS) {
      assert.doesNotThrow(
        () => state.invoke(op, { ...AUTH, serial: 'demo', password: 'demo-password' }, CTX),
        op.name,
      );
    }
  });

  it('throws for an operation the catalogue does not have', () => {
    const state = makeState();
    const bogus = { ...OPERATIONS[0]!, name: 'NoSuchOperation' };
    assert.throws(() => state.invoke(bogus, AUTH, CTX), /not implemented/);
  });

  it('refuses to start when an operation has no business logic, naming the function and where it belongs', () => {
    const made = { ...findOperation('information', 'QueryAccountBalance')!, name: 'MadeUpWithoutLogic' };
    const catalogue = createCatalogue({ ...CATALOGUE, operations: [...OPERATIONS, made] });
    assert.throws(
      () => new GatewayState({ catalogue }),
      /no business logic for information\/MadeUpWithoutLogic \(export madeUpWithoutLogic from src\/emulator\/state\/ops-info\.ts\)/,
    );
    const logic = { information: { madeUpWithoutLogic: () => 7 } };
    const state = new GatewayState({
      catalogue: createCatalogue({ ...CATALOGUE, operations: [made] }),
      logic,
    });
    assert.deepEqual(state.invoke(made, AUTH, CTX), { StatusCode: 'Ok', Value: 7 });
  });

  it('snapshot is plain JSON with every job’s caption and recipients and never a password', () => {
    const state = makeState({ accounts: [{ user: 'second', password: 'second-secret-pw' }] });
    sendSms(state, { Caption: 'snap', Recipient: ['+4917011111111', '+4917022222222'] });
    const snap = state.snapshot();
    const text = JSON.stringify(snap);
    assert.deepEqual(JSON.parse(text), snap);
    assert.ok(!text.includes('demo-password') && !text.includes('second-secret-pw'));
    const jobs = (
      snap as {
        accounts: Array<{ jobs: Array<{ caption: string; recipients: string[]; createdAt: string }> }>;
      }
    ).accounts[0]!.jobs;
    assert.deepEqual(
      jobs.map((j) => [j.caption, j.recipients, j.createdAt]),
      [['snap', ['+4917011111111', '+4917022222222'], new Date(T0).toISOString()]],
    );
  });

  it('jobs() lists every job with caption and recipients, per account or all', () => {
    const state = makeState({ accounts: [{ user: 'b', password: 'b-password' }] });
    const { JobId } = sendSms(state, { Caption: 'count-me' });
    assert.deepEqual(
      state.jobs().map((j) => [j.id, j.user, j.caption, j.recipients]),
      [[JobId, 'demo', 'count-me', ['+4917012345678']]],
    );
    assert.deepEqual(state.jobs('b'), []);
    assert.throws(() => state.jobs('ghost'), /unknown account/);
  });

  it('advance() refuses negative time; setBalance refuses non-numbers', () => {
    const state = makeState();
    assert.throws(() => state.advance(-1), RangeError);
    assert.throws(() => state.setBalance('demo', Number.NaN), RangeError);
    state.setBalance('demo', 12.25);
    assert.equal(balance(state), 12.25);
  });

  it('refuses malformed control input', () => {
    const state = makeState();
    assert.throws(() => state.setSubscriberState('+491', 'gone' as never), RangeError);
    assert.throws(() => state.injectInbound({ from: '+491' } as never), TypeError);
    assert.throws(() => state.setBalance('ghost', 1), /unknown account/);
    assert.throws(() => state.lockAccount('ghost', true), /unknown account/);
  });

  it('runs on the real clock when none is injected', () => {
    const state = new GatewayState();
    const before = Date.now();
    assert.ok(state.now() >= before && state.now() <= Date.now());
    state.advance(1000);
    assert.ok(state.now() >= before + 1000);
  });
});
