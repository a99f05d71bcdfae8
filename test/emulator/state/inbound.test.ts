import { strict as assert } from 'node:assert';
import { T0, legacy, makeState, sendSms, typed, type Rec } from './helpers';

describe('emulator state: received messages', () => {
  it('QueryReceivedNewSMS returns uncollected messages once and marks them collected', () => {
    const state = makeState();
    const { id } = state.injectInbound({ from: '+4917012345678', to: '+4930999', text: 'Hello' });
    const first = typed<Rec[]>(state, 'information', 'QueryReceivedNewSMS', {}).Value!;
    assert.equal(first.length, 1);
    assert.equal(first[0]!['Id'], id);
    assert.equal(first[0]!['Sender'], '+4917012345678');
    assert.equal(first[0]!['Info'], '+4930999');
    assert.equal(first[0]!['Send'], 0);
    assert.deepEqual(first[0]!['Date'], new Date(T0));
    assert.deepEqual(typed<Rec[]>(state, 'information', 'QueryReceivedNewSMS', {}).Value, []);
  });

  it('injectInbound({ report: true }) writes a record flagged Report = 1 (typed and older service)', () => {
    const state = makeState();
    state.injectInbound({ from: '+491', text: 'message' });
    state.injectInbound({ from: '+492', text: 'status', report: true });
    const typedRecords = typed<Rec[]>(state, 'information', 'QueryReceivedSMSByJobCaption', {
      Caption: '',
      StartDate: null,
    }).Value!;
    assert.deepEqual(
      typedRecords.map((m) => [m['Text'], m['Report']]),
      [
        ['message', 0],
        ['status', 1],
      ],
    );
    assert.equal(
      legacy(state, 'GetNewRecivedSMS2', {}),
      '+491;message;2026-11-22 10:00:00;0\n+492;status;2026-11-22 10:00:00;1\n',
    );
  });

  it('shares the collected flag with the legacy GetNewRecivedSMS2', () => {
    const state = makeState();
    state.injectInbound({ from: '+491', text: 'one' });
    assert.equal(legacy(state, 'GetNewRecivedSMS2', {}), '+491;one;2026-11-22 10:00:00;0\n');
    assert.deepEqual(typed<Rec[]>(state, 'information', 'QueryReceivedNewSMS', {}).Value, []);
    state.injectInbound({ from: '+492', text: 'two' });
    assert.equal(typed<Rec[]>(state, 'information', 'QueryReceivedNewSMS', {}).Value!.length, 1);
    assert.equal(legacy(state, 'GetNewRecivedSMS2', {}), '');
  });

  it('a reply carries the JobId; QueryReceivedSMSByJobCaption filters by caption and date', () => {
    const state = makeState();
    const job = sendSms(state, { Caption: 'poll' });
    state.injectInbound({
      from: '+4917012345678',
      text: 'early reply',
      jobId: job.JobId,
      date: new Date(T0 + 1000),
    });
    state.injectInbound({
      from: '+4917012345678',
      text: 'late reply',
      jobId: job.JobId,
      date: new Date(T0 + 5000),
    });
    state.injectInbound({ from: '+4917099999999', text: 'unrelated' });
    const q = (Caption: string, StartDate: Date | null) =>
      typed<Rec[]>(state, 'information', 'QueryReceivedSMSByJobCaption', { Caption, StartDate }).Value!.map(
        (m) => m['Text'],
      );
    assert.deepEqual(q('poll', null), ['early reply', 'late reply']);
    assert.deepEqual(q('poll', new Date(T0 + 2000)), ['late reply']);
    assert.deepEqual(q('other', null), []);
    assert.deepEqual(
      q('', null),
      ['unrelated', 'early reply', 'late reply'],
      'no caption: every message, by date',
    );
    const reply = typed<Rec[]>(state, 'information', 'QueryReceivedSMSByJobCaption', {
      Caption: 'poll',
      StartDate: null,
    }).Value![0]!;
    assert.equal(reply['JobId'], job.JobId);
    assert.equal(reply['Info'], 'ACME', 'sent to the job’s sender');
  });

  it('has no auto-reply by default; with autoReply every delivered recipient of a text job answers', () => {
    const quiet = makeState();
    sendSms(quiet);
    quiet.finishJobs();
    assert.deepEqual(typed<Rec[]>(quiet, 'information', 'QueryReceivedNewSMS', {}).Value, []);
    const chatty = makeState({ autoReply: 'STOP' });
    chatty.setSubscriberState('+4917000000001', 'unknown');
    const job = sendSms(chatty, { Recipient: ['+4917000000001', '+4917000000002'] });
    typed(chatty, 'send', 'SendHLR', { Caption: 'h', Recipient: '+4917000000003' });
    chatty.finishJobs();
    const replies = typed<Rec[]>(chatty, 'information', 'QueryReceivedNewSMS', {}).Value!;
    assert.deepEqual(
      replies.map((m) => [m['Sender'], m['Text'], m['JobId']]),
      [['+4917000000002', 'STOP', job.JobId]],
    );
  });

  it('injects into another account when asked and refuses unknown accounts', () => {
    const state = makeState({ accounts: [{ user: 'b', password: 'b-password' }] });
    state.injectInbound({ user: 'b', from: '+491', text: 'for b' });
    assert.deepEqual(typed<Rec[]>(state, 'information', 'QueryReceivedNewSMS', {}).Value, []);
    assert.throws(() => state.injectInbound({ user: 'ghost', from: '+491', text: 'x' }), /unknown account/);
  });
});
