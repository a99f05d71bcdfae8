import { strict as assert } from 'node:assert';
import { T0, jobById, makeState, sendSms, typed, type Rec } from './helpers';

describe('emulator state: job lifecycle and delivery reports', () => {
  it('moves a job Offen → InBearbeitung → Erledigt on the configured timing', () => {
    const state = makeState({ timing: { processingMs: 1000, deliveryMs: 5000 } });
    const { JobId } = sendSms(state);
    assert.equal(jobById(state, JobId)['Status'], 'Offen');
    assert.equal(jobById(state, JobId)['SMSTransferd'], 0);
    state.advance(999);
    assert.equal(jobById(state, JobId)['Status'], 'Offen');
    state.advance(1);
    const sent = jobById(state, JobId);
    assert.equal(sent['Status'], 'InBearbeitung');
    assert.equal(sent['SMSTransferd'], 1);
    assert.deepEqual(sent['SendDate'], new Date(T0 + 1000));
    state.advance(5000);
    const done = jobById(state, JobId);
    assert.equal(done['Status'], 'Erledigt');
    assert.deepEqual(done['ChangedDate'], new Date(T0 + 6000));
  });

  it('writes every field of dbSMSJob', () => {
    const state = makeState();
    const { JobId } = sendSms(state, {
      Caption: 'fields',
      Recipient: ['+4917011111111', '+4917022222222'],
      SMSText: 'Hi',
    });
    const job = jobById(state, JobId);
    assert.deepEqual(Object.keys(job).sort(), [
      'Amount',
      'BinData',
      'BinDataTyp',
      'Caption',
      'ChangedDate',
      'ChangedId',
      'CreateDate',
      'CustId',
      'FavoredDate',
      'Id',
      'Priority',
      'Recipient',
      'SMSTotal',
      'SMSTransferd',
      'SendDate',
      'Sender',
      'Status',
      'Text',
      'TotalSequences',
      'Typ',
    ]);
    assert.equal(job['Recipient'], '+4917011111111,+4917022222222');
    assert.equal(job['SMSTotal'], 2);
    assert.equal(job['Amount'], 2);
    assert.equal(job['BinDataTyp'], 'None');
    assert.deepEqual(job['CreateDate'], new Date(T0));
    assert.equal(job['SendDate'], null, 'not sent yet: no date');
  });

  it('gives each recipient × segment a report, failing for unknown and unreachable subscribers', () => {
    const state = makeState();
    state.setSubscriberState('+4917000000001', 'unknown');
    state.setSubscriberState('004917000000002', 'unreachable');
    const { JobId } = sendSms(state, {
      SmsTyp: 'StandardLong',
      SMSText: 'y'.repeat(200),
      Recipient: ['+4917000000001', '+4917000000002', '+4917000000003'],
    });
    state.advance(700);
    const reports = typed<Rec[]>(state, 'information', 'QueryReceivedDLR', {
      StartDate: null,
      Limit: 0,
    }).Value!;
    assert.deepEqual(
      reports.map((r) => [r['Recipient'], r['Sequence'], r['Status'], r['MsgCode']]),
      [
        ['+4917000000001', 1, 'UNDELIV', 1],
        ['+4917000000001', 2, 'UNDELIV', 1],
        ['+4917000000002', 1, 'EXPIRED', 27],
        ['+4917000000002', 2, 'EXPIRED', 27],
        ['+4917000000003', 1, 'DELIVERED', 0],
        ['+4917000000003', 2, 'DELIVERED', 0],
      ],
    );
    assert.ok(reports.every((r) => r['JobId'] === JobId && r['Caption'] === 'test'));
    assert.equal(jobById(state, JobId)['Status'], 'Erledigt', 'one recipient was reached');
  });

  it('marks a job Fehler when every recipient failed, and a number can be made ok again', () => {
    const state = makeState();
    state.setSubscriberState('+4917000000009', 'unknown');
    const failed = sendSms(state, { Recipient: ['+4917000000009'], Caption: 'f1' });
    state.finishJobs();
    assert.equal(jobById(state, failed.JobId)['Status'], 'Fehler');
    state.setSubscriberState('+4917000000009', 'ok');
    const ok = sendSms(state, { Recipient: ['+4917000000009'], Caption: 'f2' });
    state.finishJobs();
    assert.equal(jobById(state, ok.JobId)['Status'], 'Erledigt');
  });

  it('finishJobs completes every open job at once and says how many', () => {
    const state = makeState();
    sendSms(state, { Caption: 'a' });
    sendSms(state, { Caption: 'b', SendDate: new Date(T0 + 86_400_000) });
    assert.equal(state.finishJobs(), 2);
    assert.equal(state.finishJobs(), 0);
    assert.ok(state.jobs().every((j) => j.status === 'Erledigt'));
  });

  it('QueryReceivedDLR returns reports since StartDate ordered by date, at most Limit (≤ 5000)', () => {
    const state = makeState({ duplicateWindowMs: 0 });
    for (let i = 0; i < 3; i++) {
      sendSms(state, { Caption: `c${i}` });
      state.advance(1000);
    }
    const all = typed<Rec[]>(state, 'information', 'QueryReceivedDLR', {
      StartDate: null,
      Limit: 5000,
    }).Value!;
    assert.deepEqual(
      all.map((r) => r['Caption']),
      ['c0', 'c1', 'c2'],
    );
    const dates = all.map((r) => (r['Date'] as Date).getTime());
    assert.deepEqual(
      dates,
      [...dates].sort((a, b) => a - b),
    );
    const since = typed<Rec[]>(state, 'information', 'QueryReceivedDLR', {
      StartDate: all[1]!['Date'],
      Limit: 5000,
    }).Value!;
    assert.deepEqual(
      since.map((r) => r['Caption']),
      ['c1', 'c2'],
    );
    const limited = typed<Rec[]>(state, 'information', 'QueryReceivedDLR', {
      StartDate: null,
      Limit: 2,
    }).Value!;
    assert.deepEqual(
      limited.map((r) => r['Caption']),
      ['c0', 'c1'],
    );
  });

  it('QueryReceivedDLR never returns more than 5000 reports', () => {
    const state = makeState({ duplicateWindowMs: 0, prices: { Standart: 0 } });
    const recipients = Array.from({ length: 5100 }, (_, i) => `+49170${String(i).padStart(7, '0')}`);
    sendSms(state, { Recipient: recipients });
    state.finishJobs();
    assert.equal(
      typed<Rec[]>(state, 'information', 'QueryReceivedDLR', { StartDate: null, Limit: 9999 }).Value!.length,
      5000,
    );
    assert.equal(
      typed<Rec[]>(state, 'information', 'QueryReceivedDLR', { StartDate: null, Limit: 0 }).Value!.length,
      5000,
    );
  });

  it('QueryReceivedDLRByJobID reports single-recipient jobs only, pending before and final after delivery', () => {
    const state = makeState();
    state.setSubscriberState('+4917000000005', 'unknown');
    const single = sendSms(state, { Caption: 's', Recipient: ['+4917000000005'] });
    const multi = sendSms(state, { Caption: 'm', Recipient: ['+4917011111111', '+4917022222222'] });
    const list = `${single.JobId}, ${multi.JobId},999999,abc`;
    const before = typed<Rec[]>(state, 'information', 'QueryReceivedDLRByJobID', { JobIdList: list }).Value!;
    assert.deepEqual(
      before.map((d) => [d['JobID'], d['IsFinalState'], d['SmsState']]),
      [[single.JobId, false, 'ACCEPTED']],
    );
    state.advance(200);
    const sending = typed<Rec[]>(state, 'information', 'QueryReceivedDLRByJobID', { JobIdList: list }).Value!;
    assert.deepEqual(
      sending.map((d) => d['SmsState']),
      ['ENROUTE'],
    );
    state.advance(500);
    const after = typed<Rec[]>(state, 'information', 'QueryReceivedDLRByJobID', { JobIdList: list }).Value!;
    assert.equal(after.length, 1);
    assert.equal(after[0]!['IsFinalState'], true);
    assert.equal(after[0]!['SmsState'], 'UNDELIV');
    assert.equal(after[0]!['UnknownSubscriber'], true);
    assert.equal(after[0]!['CSMSPartNumber'], 1);
    assert.equal(after[0]!['DeliveredOn'], null);
  });

  it('QueryJobInfoByJobCaption finds the newest job with the caption, with reports, log and replies', () => {
    const state = makeState();
    sendSms(state, { Caption: 'order-1', SMSText: 'old' });
    state.advance(1000);
    const newest = sendSms(state, { Caption: 'order-1', SMSText: 'new' });
    state.advance(1000);
    state.injectInbound({ from: '+4917012345678', text: 'YES', jobId: newest.JobId });
    const info = typed<Rec>(state, 'information', 'QueryJobInfoByJobCaption', {
      Caption: 'order-1',
      StartDate: null,
    }).Value!;
    assert.equal(info['Status'], 'Ok');
    assert.equal((info['Job'] as Rec)['Id'], newest.JobId);
    assert.equal((info['Report'] as Rec[]).length, 1);
    assert.ok((info['Log'] as Rec[]).length >= 3, 'created, sent, finished');
    assert.deepEqual(
      (info['Received'] as Rec[]).map((m) => [m['Text'], m['Caption'], m['JobId']]),
      [['YES', 'order-1', newest.JobId]],
    );
  });

  it('QueryJobInfoByJobCaption answers JobNotFound without Job for unknown captions and for jobs older than 7 days', () => {
    const state = makeState();
    sendSms(state, { Caption: 'aged' });
    state.advance(8 * 86_400_000);
    for (const Caption of ['nope', 'aged']) {
      const info = typed<Rec>(state, 'information', 'QueryJobInfoByJobCaption', {
        Caption,
        StartDate: null,
      }).Value!;
      assert.equal(info['Status'], 'JobNotFound');
      assert.equal('Job' in info, false);
    }
    const explicit = typed<Rec>(state, 'information', 'QueryJobInfoByJobCaption', {
      Caption: 'aged',
      StartDate: new Date(T0 - 1),
    }).Value!;
    assert.equal(explicit['Status'], 'Ok');
  });

  it('QueryJobs filters by creation date', () => {
    const state = makeState();
    sendSms(state, { Caption: 'early' });
    state.advance(3_600_000);
    sendSms(state, { Caption: 'late' });
    const q = (StartDate: Date | null, EndDate: Date | null) =>
      typed<Rec[]>(state, 'information', 'QueryJobs', { StartDate, EndDate }).Value!.map((j) => j['Caption']);
    assert.deepEqual(q(null, null), ['early', 'late']);
    assert.deepEqual(q(new Date(T0 + 1), null), ['late']);
    assert.deepEqual(q(null, new Date(T0 + 1)), ['early']);
  });
});
