import { strict as assert } from 'node:assert';
import { balance, call, jobById, makeState, sendSms, typed, type JobInfo, type Rec } from './helpers';

describe('emulator state: typed sends', () => {
  it('accepts a send with Ok and increasing JobIds', () => {
    const state = makeState();
    const a = sendSms(state, { Caption: 'a' });
    const b = sendSms(state, { Caption: 'b' });
    assert.equal(a.Status, 'Ok');
    assert.equal(b.Status, 'Ok');
    assert.ok(b.JobId > a.JobId);
  });

  it('reports NoTextFound, NoRecipientFound and ShortIDAsSenderFound', () => {
    const state = makeState();
    assert.deepEqual(sendSms(state, { SMSText: undefined }), { Status: 'NoTextFound', JobId: 0 });
    assert.deepEqual(sendSms(state, { SMSText: '   ' }), { Status: 'NoTextFound', JobId: 0 });
    assert.deepEqual(sendSms(state, { Recipient: [] }), { Status: 'NoRecipientFound', JobId: 0 });
    assert.deepEqual(sendSms(state, { Recipient: undefined }), { Status: 'NoRecipientFound', JobId: 0 });
    assert.deepEqual(sendSms(state, { Sender: '12345' }), { Status: 'ShortIDAsSenderFound', JobId: 0 });
    assert.equal(sendSms(state, { Sender: '+491701234567' }).Status, 'Ok', 'a full number is a valid sender');
  });

  it('rejects blacklisted text (case-insensitive, configurable list)', () => {
    const state = makeState({ blacklist: ['casino'] });
    assert.equal(sendSms(state, { SMSText: 'Visit our CASINO now' }).Status, 'MsgTextBlacklistFound');
    assert.equal(
      sendSms(state, { SMSText: 'BLACKLISTED' }).Status,
      'Ok',
      'the configured list replaces the default',
    );
    assert.equal(
      sendSms(makeState(), { SMSText: 'this is blacklisted' }).Status,
      'MsgTextBlacklistFound',
      'default list',
    );
  });

  it('finds duplicates within the window and returns the original JobId', () => {
    const state = makeState({ duplicateWindowMs: 60_000 });
    const first = sendSms(state, { Caption: 'dup', SMSText: 'same' });
    const again = sendSms(state, { Caption: 'dup', SMSText: 'same' });
    assert.deepEqual(again, { Status: 'DuplicateSMSJobFound', JobId: first.JobId });
    assert.equal(
      sendSms(state, { Caption: 'dup2', SMSText: 'same' }).Status,
      'Ok',
      'another caption is no duplicate',
    );
    state.advance(60_000);
    assert.equal(
      sendSms(state, { Caption: 'dup', SMSText: 'same' }).Status,
      'Ok',
      'after the window it is new',
    );
  });

  it('does not look for duplicates when the window is 0', () => {
    const state = makeState({ duplicateWindowMs: 0 });
    sendSms(state);
    assert.equal(sendSms(state).Status, 'Ok');
  });

  it('rejects a too long text for non-long types with SMSTypeError, or truncates it when configured', () => {
    const long = 'x'.repeat(161);
    assert.equal(sendSms(makeState(), { SMSText: long, SmsTyp: 'Standard' }).Status, 'SMSTypeError');
    assert.equal(sendSms(makeState(), { SMSText: long, SmsTyp: 'Flash' }).Status, 'SMSTypeError');
    const state = makeState({ tooLongText: 'truncate' });
    const r = sendSms(state, { SMSText: long, SmsTyp: 'HighQuality' });
    assert.equal(r.Status, 'Ok');
    assert.equal((jobById(state, r.JobId)['Text'] as string).length, 160);
  });

  it('splits long types into segments, up to maxSegments', () => {
    const state = makeState({ maxSegments: 3 });
    const r = sendSms(state, {
      SMSText: 'x'.repeat(400),
      SmsTyp: 'StandardLong',
      Recipient: ['+4917011111111', '+4917022222222'],
    });
    const job = jobById(state, r.JobId);
    assert.equal(job['Typ'], 'StandartLongSMS');
    assert.equal(job['TotalSequences'], 3);
    assert.equal(job['SMSTotal'], 6);
    assert.equal(sendSms(state, { SMSText: 'x'.repeat(460), SmsTyp: 'StandardLong' }).Status, 'SMSTypeError');
  });

  it('charges price × segments × recipients when the job is sent, not before', () => {
    const state = makeState({ prices: { StandartLongSMS: 0.25, HighQuality: 2 } });
    const r = sendSms(state, {
      SMSText: 'ç'.repeat(100),
      SmsTyp: 'StandardLong',
      Recipient: ['+4917011111111', '+4917022222222'],
    });
    assert.equal(jobById(state, r.JobId)['Amount'], 1, 'UCS-2 100 chars = 2 segments × 2 recipients × 0.25');
    assert.equal(balance(state), 100, 'not yet sent: not charged');
    state.advance(200);
    assert.equal(balance(state), 99);
    sendSms(state, { SmsTyp: 'HighQuality', SMSText: 'plain' });
    state.finishJobs();
    assert.equal(balance(state), 97);
  });

  it('queues a job without enough credit (with a JobId) and sends it once the balance is raised', () => {
    const state = makeState({ balance: 1.5 });
    const ok = sendSms(state, { Caption: 'first' });
    const queued = sendSms(state, { Caption: 'second', SMSText: 'other' });
    assert.equal(ok.Status, 'Ok');
    assert.equal(queued.Status, 'JobIsQueuedInsufficientCredits');
    assert.ok(queued.JobId > ok.JobId);
    state.advance(10_000);
    assert.equal(jobById(state, queued.JobId)['Status'], 'ZuWenigKontingent');
    assert.equal(jobById(state, ok.JobId)['Status'], 'Erledigt');
    assert.equal(balance(state), 0.5);
    state.setBalance('demo', 10);
    assert.equal(jobById(state, queued.JobId)['Status'], 'Offen');
    state.advance(700);
    assert.equal(jobById(state, queued.JobId)['Status'], 'Erledigt');
    assert.equal(balance(state), 9);
  });

  it('queues an accepted job at send time when the balance was lowered meanwhile', () => {
    const state = makeState({ balance: 2 });
    const r = sendSms(state);
    assert.equal(r.Status, 'Ok');
    state.setBalance('demo', 0.5);
    state.advance(200);
    assert.equal(jobById(state, r.JobId)['Status'], 'ZuWenigKontingent');
    assert.equal(balance(state), 0.5, 'nothing charged');
    state.setBalance('demo', 5);
    state.finishJobs();
    assert.equal(jobById(state, r.JobId)['Status'], 'Erledigt');
    assert.equal(balance(state), 4);
  });

  it('maps every SmsType to its JobType', () => {
    const state = makeState();
    const expected: Record<string, string> = {
      Flash: 'Flash',
      Standard: 'Standart',
      StandardDeliveryNotification: 'StandartDeliveryNotification',
      StandardLong: 'StandartLongSMS',
      HighQuality: 'HighQuality',
      HighQualityLong: 'HighQualityLong',
      PSTNFixedLine: 'Festnetz',
    };
    for (const [smsTyp, jobType] of Object.entries(expected)) {
      const r = sendSms(state, { SmsTyp: smsTyp, Caption: smsTyp });
      assert.equal(jobById(state, r.JobId)['Typ'], jobType);
    }
    assert.equal(sendSms(state, { SmsTyp: 'Bogus' }).Status, 'SMSTypeError');
  });

  it('records JobPriority only where enabled; elsewhere ignores it with a Warn log entry', () => {
    const state = makeState({ accounts: [{ user: 'vip', password: 'vip-password', priorityEnabled: true }] });
    const r = sendSms(state, { JobPriority: 5, Caption: 'prio' });
    assert.equal(r.Status, 'Ok');
    assert.equal(jobById(state, r.JobId)['Priority'], 0);
    const info = typed<Rec>(state, 'information', 'QueryJobInfoByJobCaption', {
      Caption: 'prio',
      StartDate: null,
    }).Value!;
    assert.ok(
      (info['Log'] as Rec[]).some(
        (l) => l['Priorety'] === 'Warn' && String(l['Text']).includes('JobPriority'),
      ),
    );
    const vip = call(state, 'send', 'SendSMS', {
      User: 'vip',
      Password: 'vip-password',
      Caption: 'v',
      Sender: 'ACME',
      Recipient: ['+4917011111111'],
      SMSText: 'x',
      SmsTyp: 'Standard',
      SendDate: null,
      JobPriority: 5,
    }) as { Value: JobInfo };
    assert.equal(state.jobs('vip')[0]!.id, vip.Value.JobId);
    const snap = state.snapshot() as {
      accounts: Array<{ account: { user: string }; jobs: Array<{ priority: number }> }>;
    };
    assert.equal(snap.accounts.find((a) => a.account.user === 'vip')!.jobs[0]!.priority, 5);
  });

  it('holds a job with a future SendDate until then', () => {
    const state = makeState();
    const at = new Date(Date.UTC(2026, 10, 22, 12, 0, 0));
    const r = sendSms(state, { SendDate: at });
    state.advance(60 * 60_000);
    assert.equal(jobById(state, r.JobId)['Status'], 'Offen');
    assert.equal(balance(state), 100);
    state.advance(60 * 60_000 + 700);
    const job = jobById(state, r.JobId);
    assert.equal(job['Status'], 'Erledigt');
    assert.deepEqual(job['FavoredDate'], at);
    assert.equal((job['SendDate'] as Date).getTime(), at.getTime() + 200);
  });

  it('SendSimpleSMS takes one recipient and a SendDate text', () => {
    const state = makeState();
    const r = typed<JobInfo>(state, 'send', 'SendSimpleSMS', {
      Caption: 'simple',
      Sender: 'ACME',
      Recipient: '+4917012345678',
      SMSText: 'Hi',
      SmsTyp: 'Flash',
      SendDate: '22.11.2026 11:30',
    }).Value!;
    assert.equal(r.Status, 'Ok');
    const job = jobById(state, r.JobId);
    assert.equal(job['Typ'], 'Flash');
    assert.deepEqual(job['FavoredDate'], new Date(Date.UTC(2026, 10, 22, 11, 30)));
  });

  it('SendMobileOrFixlineSMS sends mobiles as HighQuality(Long) and other numbers as PSTNFixedLine', () => {
    const state = makeState();
    const r = typed(state, 'send', 'SendMobileOrFixlineSMS', {
      Caption: 'mix',
      Sender: 'ACME',
      Recipient: '+4917012345678, 0301234567',
      SMSText: 'Hello',
      SendDate: '',
      MobileSMSType: 'HighQualityLong',
    }) as unknown as Array<{ StatusCode: string; Value: JobInfo }>;
    assert.equal(r.length, 2);
    assert.deepEqual(
      r.map((e) => [
        e.StatusCode,
        e.Value.Status,
        jobById(state, e.Value.JobId)['Typ'],
        jobById(state, e.Value.JobId)['Recipient'],
      ]),
      [
        ['Ok', 'Ok', 'HighQualityLong', '+4917012345678'],
        ['Ok', 'Ok', 'Festnetz', '0301234567'],
      ],
    );
    const none = typed(state, 'send', 'SendMobileOrFixlineSMS', {
      Recipient: '',
      SMSText: 'x',
    }) as unknown as Array<{ Value: JobInfo }>;
    assert.deepEqual(
      none.map((e) => e.Value.Status),
      ['NoRecipientFound'],
    );
  });

  it('SendUDH accepts hex (or base64) data and rejects missing or invalid data', () => {
    const state = makeState();
    const udh = (Data: string | undefined, Recipient = '+4917012345678') =>
      typed<Rec>(state, 'send', 'SendUDH', { Caption: 'udh', Recipient, Sender: 'ACME', Data, SendDate: '' })
        .Value!['ParseStatus'];
    assert.equal(udh('0605040B8423F0DEADBEEF'), 'Ok');
    assert.equal(udh(Buffer.from('binary!').toString('base64')), 'Ok');
    assert.equal(udh(undefined), 'MMSSubjectORDataNotFound');
    assert.equal(udh('0605', ''), 'MMSSubjectORDataNotFound');
    assert.equal(udh('not data!'), 'MMSInvalidData');
    const job = state.jobs().find((j) => j.type === 'UDH')!;
    assert.equal(jobById(state, job.id)['BinData'], '0605040B8423F0DEADBEEF');
  });

  it('SendHLR creates an HLR job per call and needs a recipient', () => {
    const state = makeState();
    const r = typed<JobInfo>(state, 'send', 'SendHLR', {
      Caption: 'hlr',
      Recipient: '+4917012345678',
    }).Value!;
    assert.equal(r.Status, 'Ok');
    assert.equal(jobById(state, r.JobId)['Typ'], 'HLR');
    assert.equal(
      typed<JobInfo>(state, 'send', 'SendHLR', { Caption: 'hlr', Recipient: '' }).Value!.Status,
      'NoRecipientFound',
    );
  });
});
