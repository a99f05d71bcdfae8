import { strict as assert } from 'node:assert';
import { balance, makeState, sendSms } from './helpers';

// onChange: the sandbox console's way to hear about changes without polling the whole state.

describe('emulator state: onChange', () => {
  it('calls the listener after operations and control calls, not after snapshots', () => {
    const state = makeState();
    let calls = 0;
    state.onChange(() => (calls += 1));
    sendSms(state);
    assert.equal(calls, 1);
    balance(state);
    assert.equal(calls, 2, 'reads are operations too (they may move jobs on)');
    state.injectInbound({ from: '+4917012345678', text: 'hi' });
    state.advance(1000);
    state.finishJobs();
    state.setBalance('demo', 50);
    state.lockAccount('demo', false);
    state.setIpAllowList('demo', null);
    state.setSubscriberState('+4917012345678', 'unreachable');
    assert.equal(calls, 9);
    state.snapshot();
    state.jobs();
    assert.equal(calls, 9);
  });

  it('stops after unsubscribing, and a throwing listener breaks nothing', () => {
    const state = makeState();
    let calls = 0;
    state.onChange(() => {
      throw new Error('observer bug');
    });
    const off = state.onChange(() => (calls += 1));
    const job = sendSms(state);
    assert.equal(job.Status, 'Ok');
    assert.equal(calls, 1);
    off();
    sendSms(state, { Caption: 'second' });
    assert.equal(calls, 1);
  });

  it('is not called when a control call is rejected before changing anything', () => {
    const state = makeState();
    let calls = 0;
    state.onChange(() => (calls += 1));
    assert.throws(() => state.setBalance('nobody', 1), /unknown account/);
    assert.throws(() => state.advance(-1), RangeError);
    assert.equal(calls, 0);
  });
});
