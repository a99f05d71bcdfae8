import { strict as assert } from 'node:assert';
import { T0, call, jobById, legacy, makeState } from './helpers';

const okId = (answer: string): number => {
  const m = /^OK (\d+)$/.exec(answer);
  if (!m) throw new Error(`expected 'OK <id>', got '${answer}'`);
  return Number(m[1]);
};

const text = {
  Caption: 'legacy',
  Sender: 'ACME',
  Recipient: '+4917012345678',
  SMSText: 'Hello',
  SmsTyp: '',
  SendDate: '',
};

describe('emulator state: older string service', () => {
  it('SendText answers OK <jobId>; Sender is used only for SmsTyp 1 and 18', () => {
    const state = makeState({ duplicateWindowMs: 0 });
    const withSender = okId(legacy(state, 'SendText', { ...text, SmsTyp: '18' }));
    assert.equal(jobById(state, withSender)['Typ'], 'HighQuality');
    assert.equal(jobById(state, withSender)['Sender'], 'ACME');
    assert.equal(
      jobById(state, okId(legacy(state, 'SendText2', { ...text, SmsTyp: '1' })))['Typ'],
      'AbsenderUeberAusland',
    );
    const standard = okId(legacy(state, 'SendText', { ...text, SmsTyp: '6' }));
    assert.equal(jobById(state, standard)['Typ'], 'Standart');
    assert.equal(jobById(state, standard)['Sender'], '');
    assert.equal(
      jobById(state, okId(legacy(state, 'SendText', text)))['Typ'],
      'Standart',
      'empty SmsTyp = Standart',
    );
  });

  it('answers Error texts for rejected sends', () => {
    const state = makeState();
    assert.equal(legacy(state, 'SendText', { ...text, SMSText: '' }), 'Error No text found');
    assert.equal(legacy(state, 'SendText', { ...text, Recipient: ' ; ' }), 'Error No recipient found');
    assert.equal(
      legacy(state, 'SendText', { ...text, SmsTyp: '3' }),
      'Error SMS type error',
      '3 = SmallLogo is no text type',
    );
    assert.equal(legacy(state, 'SendText', { ...text, SmsTyp: '99' }), 'Error SMS type error');
    assert.equal(legacy(state, 'SendText', { ...text, SendDate: 'tomorrow-ish' }), 'Error Invalid date');
    assert.equal(
      legacy(state, 'SendText', { ...text, SmsTyp: '1', Sender: '1234' }),
      'Error Short ID as sender not allowed',
    );
    assert.equal(
      legacy(state, 'SendText', { ...text, SMSText: 'BLACKLISTED offer' }),
      'Error Message text blacklisted',
    );
    const first = okId(legacy(state, 'SendText', text));
    assert.equal(legacy(state, 'SendText', text), `Error Duplicate SMS job found: ${first}`);
  });

  it('answers OK <jobId> for a job queued for credit', () => {
    const state = makeState({ balance: 0 });
    const id = okId(legacy(state, 'SendText', text));
    assert.equal(jobById(state, id)['Status'], 'ZuWenigKontingent');
  });

  it('SendSMS/SendSMS2 take a recipient list, an int type and a dateTime', () => {
    const state = makeState({ duplicateWindowMs: 0 });
    const at = new Date(T0 + 3_600_000);
    for (const op of ['SendSMS', 'SendSMS2']) {
      const id = okId(
        legacy(state, op, {
          Caption: op,
          Sender: 'ACME',
          Recipient: ['+4917011111111', '+4917022222222'],
          SMSText: 'x',
          SmsTyp: 17,
          SendDate: at,
        }),
      );
      const job = jobById(state, id);
      assert.equal(job['Typ'], 'StandartLongSMS');
      assert.equal(job['Recipient'], '+4917011111111,+4917022222222');
      assert.deepEqual(job['FavoredDate'], at);
    }
  });

  it('SendSimpleSMS sends a standard SMS without caption or sender', () => {
    const state = makeState();
    const job = jobById(
      state,
      okId(legacy(state, 'SendSimpleSMS', { Recipient: '+4917012345678', SMSText: 'simple' })),
    );
    assert.equal(job['Typ'], 'Standart');
    assert.equal(job['Caption'], '');
  });

  it('SMSCR reads bRecipient as UTF-8 text of numbers separated by , ; or newline', () => {
    const state = makeState();
    const answer = call(state, 'legacy', 'SMSCR', {
      serial: 'demo',
      password: 'demo-password',
      caption: 'cr',
      Msg: 'transfer',
      Sender: 'ACME',
      bRecipient: Buffer.from('+4917011111111;+4917022222222\n+4917033333333', 'utf8'),
      SendDate: null,
      SmsTyp: 1,
    });
    const job = jobById(state, okId(String(answer)));
    assert.equal(job['Recipient'], '+4917011111111,+4917022222222,+4917033333333');
    assert.equal(job['Text'], 'transfer');
  });

  it('binary sends: URL (never fetched), bytes and base64 text', () => {
    const state = makeState();
    const url = okId(
      legacy(state, 'SendBinURL', {
        Recipient: '+491',
        MsgType: 11,
        binTyp: 3,
        URL: 'https://files.example/pic.jpg',
        sendDate: null,
      }),
    );
    assert.deepEqual(
      [jobById(state, url)['Typ'], jobById(state, url)['BinDataTyp'], jobById(state, url)['BinData']],
      ['PICTURE', 'JPG', 'https://files.example/pic.jpg'],
    );
    assert.equal(
      legacy(state, 'SendBinURL', { Recipient: '+491', MsgType: 0, binTyp: 0, URL: '', sendDate: null }),
      'Error No URL found',
    );
    assert.equal(
      legacy(state, 'SendBinURL', { Recipient: '+491', MsgType: 0, binTyp: 0, URL: 'ftp:x', sendDate: null }),
      'Error Invalid URL',
    );
    const bytes = okId(
      legacy(state, 'SendBinData', {
        Recipient: '+491',
        strMsg: 'logo',
        MsgType: 0,
        binTyp: 1,
        Data: Buffer.alloc(300, 1),
        sendDate: null,
      }),
    );
    assert.equal(jobById(state, bytes)['Typ'], 'UDH');
    assert.equal(jobById(state, bytes)['TotalSequences'], 3, '300 octets = 3 parts of 134');
    assert.equal(
      legacy(state, 'SendBinData', {
        Recipient: '+491',
        strMsg: '',
        MsgType: 0,
        binTyp: 0,
        Data: undefined,
        sendDate: null,
      }),
      'Error No data found',
    );
    const b64 = okId(
      legacy(state, 'SendBinData2', {
        Recipient: '+491',
        strMsg: '',
        MsgType: 0,
        binTyp: 0,
        Data: 'AQID',
        sendDate: '',
      }),
    );
    assert.equal(jobById(state, b64)['BinData'], '010203');
    assert.equal(
      legacy(state, 'SendBinData2', {
        Recipient: '+491',
        strMsg: '',
        MsgType: 0,
        binTyp: 0,
        Data: '@@',
        sendDate: '',
      }),
      'Error Invalid data',
    );
  });

  it('QueryBalance2 answers the balance as invariant text', () => {
    const state = makeState({ balance: 99, prices: { HighQuality: 1.5 } });
    legacy(state, 'SendText', { ...text, SmsTyp: '18' });
    state.finishJobs();
    assert.equal(legacy(state, 'QueryBalance2', {}), '97.5');
  });

  it('GetRecivedSMS2 and RecivedSMS2 list messages since a date, with separators in text replaced', () => {
    const state = makeState();
    state.injectInbound({ from: '+491', text: 'old', date: new Date(T0 - 86_400_000) });
    const { id } = state.injectInbound({
      from: '+492',
      text: 'a;b\nc',
      jobId: 77,
      date: new Date(T0 + 90_000),
    });
    assert.equal(
      legacy(state, 'GetRecivedSMS2', { SearchDate: '22.11.2026 10:00' }),
      `${id},77;+492;a b c;2026-11-22 10:01:30\n`,
    );
    assert.equal(
      legacy(state, 'GetRecivedSMS2', { SearchDate: '' }).split('\n').length,
      3,
      'empty date: every message',
    );
    assert.equal(
      legacy(state, 'RecivedSMS2', { strLastDate: '2026-11-22T10:00:00Z' }),
      '+492;2026-11-22 10:01:30;a b c\n',
    );
    assert.equal(legacy(state, 'RecivedSMS2', { strLastDate: 'gestern' }), 'Error Invalid date');
    assert.equal(
      legacy(state, 'GetNewRecivedSMS2', {}).split('\n').length,
      3,
      'listing by date does not collect',
    );
  });

  it('GetJobs1 and GetGetJobsWithStatusResult list JobId;Caption;cost;sendtime + the caller’s separator verbatim', () => {
    const state = makeState({ duplicateWindowMs: 0 });
    const a = okId(legacy(state, 'SendText', { ...text, Caption: 'first;one' }));
    state.finishJobs();
    state.advance(3_600_000);
    const b = okId(legacy(state, 'SendText', { ...text, Caption: 'second' }));
    const period = { StartDate: '', EndDate: '' };
    assert.equal(
      legacy(state, 'GetJobs1', { ...period, Trennzeichen: '\n', JobId: '' }),
      `${a};first one;1;2026-11-22 10:00:00\n${b};second;1;2026-11-22 11:00:00\n`,
    );
    // Empty: nothing between the records (what the real service most likely does; the client never sends it).
    assert.equal(
      legacy(state, 'GetJobs1', { ...period, Trennzeichen: '', JobId: '' }),
      `${a};first one;1;2026-11-22 10:00:00${b};second;1;2026-11-22 11:00:00`,
    );
    // Typed as text, `\t` is two characters, and stays two characters.
    assert.equal(
      legacy(state, 'GetJobs1', { ...period, Trennzeichen: '\\t', JobId: String(a) }),
      `${a};first one;1;2026-11-22 10:00:00\\t`,
    );
    assert.equal(
      legacy(state, 'GetGetJobsWithStatusResult', { ...period, Trennzeichen: '|', JobId: String(b) }),
      `${b};second;1;2026-11-22 11:00:00|`,
    );
    assert.equal(
      legacy(state, 'GetJobs1', {
        StartDate: '22.11.2026 10:30',
        EndDate: '',
        Trennzeichen: '\r\n',
        JobId: '',
      }),
      `${b};second;1;2026-11-22 11:00:00\r\n`,
    );
    assert.equal(
      legacy(state, 'GetJobs1', { StartDate: 'x', EndDate: '', Trennzeichen: '', JobId: '' }),
      'Error Invalid date',
    );
  });
});
