import { strict as assert } from 'node:assert';
import { makeState, sendSms, typed, type Rec } from './helpers';

describe('emulator state: the Caption of the ...ByJobCaption queries is a "starts with" filter', () => {
  it('QueryJobInfoByJobCaption finds the newest job whose caption starts with the filter', () => {
    const state = makeState();
    const a = sendSms(state, { Caption: 'order 4711 #k3x9q2mz7a' });
    state.advance(1000);
    const b = sendSms(state, { Caption: 'order 4711 #m2n4p6q8r9' });
    state.advance(1000);
    sendSms(state, { Caption: 'other order 4711' });
    const find = (Caption: string): Rec =>
      typed<Rec>(state, 'information', 'QueryJobInfoByJobCaption', { Caption, StartDate: null }).Value!;
    assert.equal((find('order 4711')['Job'] as Rec)['Id'], b.JobId, 'the newest of the two');
    assert.equal((find('order 4711 #k3x9q2mz7a')['Job'] as Rec)['Id'], a.JobId, 'the full caption');
    assert.equal(find('4711')['Status'], 'JobNotFound', 'not a substring match');
    assert.equal(find('order 4711 #k3x9q2mz7a-more')['Status'], 'JobNotFound');
  });

  it('QueryReceivedSMSByJobCaption returns replies to every job whose caption starts with the filter', () => {
    const state = makeState();
    const a = sendSms(state, { Caption: 'poll #aaaa2222' });
    const b = sendSms(state, { Caption: 'poll #bbbb3333' });
    const c = sendSms(state, { Caption: 'xpoll' });
    state.injectInbound({ from: '+4917012345678', text: 'to a', jobId: a.JobId });
    state.injectInbound({ from: '+4917012345678', text: 'to b', jobId: b.JobId });
    state.injectInbound({ from: '+4917012345678', text: 'to c', jobId: c.JobId });
    const texts = (Caption: string): unknown[] =>
      typed<Rec[]>(state, 'information', 'QueryReceivedSMSByJobCaption', {
        Caption,
        StartDate: null,
      }).Value!.map((m) => m['Text']);
    assert.deepEqual(texts('poll'), ['to a', 'to b']);
    assert.deepEqual(texts('poll #bbbb3333'), ['to b']);
  });
});
