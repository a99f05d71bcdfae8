import assert from 'node:assert/strict';
import { GatewayClient } from '../../src/client';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { GatewayError } from '../../src/errors';

/** Requests the emulator received for a send operation (the request log keeps every call). */
const sendsSeen = (emu: RunningEmulator): number =>
  emu.requests.list().filter((r) => /Send|SMSCR/.test(r.operation ?? '')).length;

async function refusal(p: Promise<unknown>): Promise<GatewayError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof GatewayError, String(e));
    return e;
  }
  assert.fail('expected a refusal');
}

describe('GatewayClient: texts too long for their SMS type are refused before sending', () => {
  let emu: RunningEmulator;
  before(async () => {
    emu = await startEmulator({ balance: 100_000, duplicateWindowMs: 0 });
  });
  after(() => emu.close());

  const client = (extra: Partial<ConstructorParameters<typeof GatewayClient>[0]> = {}) =>
    new GatewayClient({ baseUrl: emu.url, user: 'demo', password: 'demo-password', ...extra });
  const text = 'a'.repeat(1993);
  const sms = (SmsTyp: string, SMSText = text) => ({
    Caption: 'c',
    Sender: '',
    Recipient: ['+491701234567'],
    SMSText,
    SmsTyp: SmsTyp as 'Standard',
    SendDate: null,
  });

  it('typed SendSMS: VALIDATION with what would fit, and nothing reaches the gateway', async () => {
    const c = client();
    const before = sendsSeen(emu);
    const err = await refusal(c.send.sendSms(sms('Standard')));
    assert.equal(err.code, 'VALIDATION');
    assert.equal(err.ambiguous, false);
    assert.equal(
      err.message,
      'SendSMS: 1,993 characters, 14 segments: Standard allows 1 segment; StandardLong allows up to 10',
    );
    assert.match(
      (await refusal(c.send.sendSms(sms('StandardLong')))).message,
      /StandardLong allows up to 10$/,
    );
    assert.equal(sendsSeen(emu), before, 'nothing was sent');
    // what fits goes out: 10 segments of a long type
    const ok = await c.send.sendSms(sms('StandardLong', 'a'.repeat(1530)));
    assert.equal(ok.Status, 'Ok');
    await c.close();
  });

  it('the older service: SendText with code 6 (Standart), SMSCR with 18 (HighQuality)', async () => {
    const c = client();
    const before = sendsSeen(emu);
    const base = {
      Caption: 'c',
      Sender: '',
      Recipient: '+491701234567',
      SMSText: 'x'.repeat(200),
      SendDate: '',
    };
    const err = await refusal(c.call('legacy', 'SendText', { ...base, SmsTyp: '6' }));
    assert.equal(err.code, 'VALIDATION');
    assert.equal(
      err.message,
      'SendText: 200 characters, 2 segments: SmsTyp 6 (Standart) allows 1 segment; SmsTyp 17 (StandartLongSMS) allows up to 10',
    );
    const smscr = {
      caption: 'c',
      Msg: 'y'.repeat(161),
      Sender: '',
      bRecipient: Buffer.from('+491701234567'),
      SendDate: null,
      SmsTyp: 18,
    };
    assert.match(
      (await refusal(c.call('legacy', 'SMSCR', smscr))).message,
      /SmsTyp 18 \(HighQuality\) allows 1/,
    );
    assert.equal(sendsSeen(emu), before);
    // code 17 is a long type: sent
    const sent = (await c.call('legacy', 'SendText', { ...base, SmsTyp: '17' })) as { ok: boolean };
    assert.equal(sent.ok, true);
    await c.close();
  });

  it('limits are options; false sends as before (and the gateway answers SMSTypeError itself)', async () => {
    // the emulator takes one segment for Standard: a client allowing two lets the gateway refuse it
    const two = client({ segmentLimits: { single: 2 } });
    const refused = await refusal(two.send.sendSms(sms('Standard', 'a'.repeat(300))));
    assert.deepEqual([refused.code, refused.status], ['REJECTED', 'SMSTypeError']);
    assert.equal((await refusal(two.send.sendSms(sms('Standard', 'a'.repeat(307))))).code, 'VALIDATION');
    await two.close();
    const off = client({ segmentLimits: false });
    const err = await refusal(off.send.sendSms(sms('Standard')));
    assert.deepEqual([err.code, err.status], ['REJECTED', 'SMSTypeError']);
    await off.close();
    assert.throws(() => client({ segmentLimits: { long: -1 } }), /segmentLimits.long/);
  });
});
