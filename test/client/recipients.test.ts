/** Recipients checked before sending, and made international with a default country. */
import assert from 'node:assert/strict';
import { GatewayClient } from '../../src/client';
import { checkRecipientText } from '../../src/client/recipients';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { GatewayError } from '../../src/errors';

async function refusal(p: Promise<unknown>): Promise<GatewayError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof GatewayError, String(e));
    return e;
  }
  assert.fail('expected a refusal');
}

describe('GatewayClient: recipients are checked before sending', () => {
  let emu: RunningEmulator;
  before(async () => {
    emu = await startEmulator({ balance: 100_000, duplicateWindowMs: 0 });
  });
  after(() => emu.close());

  const sends = (): string[] =>
    emu.requests
      .list()
      .filter((r) => /Send|SMSCR/.test(r.operation ?? ''))
      .map((r) => r.request ?? '');
  const client = (extra: Partial<ConstructorParameters<typeof GatewayClient>[0]> = {}) =>
    new GatewayClient({ baseUrl: emu.url, user: 'demo', password: 'demo-password', ...extra });
  const sms = (Recipient: string[]) => ({
    Caption: 'c',
    Sender: '',
    Recipient,
    SMSText: 'hello',
    SmsTyp: 'Standard' as const,
    SendDate: null,
  });

  it('refuses "abc" with VALIDATION naming each bad entry, and nothing reaches the gateway', async () => {
    const c = client();
    const before = sends().length;
    const err = await refusal(c.send.sendSms(sms(['abc', '+49 (170) 123-45.67', '12x4'])));
    assert.equal(err.code, 'VALIDATION');
    assert.equal(err.ambiguous, false);
    assert.equal(
      err.message,
      'SendSMS: 2 recipients are not phone numbers: "abc", "12x4" (digits with an optional leading +; spaces, dashes, dots and brackets are ignored)',
    );
    const one = await refusal(
      c.legacy.sendText({
        Caption: 'c',
        Sender: '',
        Recipient: '+4917012345678;abc',
        SMSText: 'x',
        SmsTyp: '1',
        SendDate: '',
      }),
    );
    assert.match(one.message, /^SendText: not a phone number: "abc" \(/);
    const hlr = await refusal(c.send.sendHlr({ Caption: 'c', Recipient: 'call me' }));
    assert.match(hlr.message, /^SendHLR: not a phone number: "call me"/);
    assert.equal(sends().length, before, 'nothing was sent');
    await c.close();
  });

  it('sends numbers written with spaces, dashes, dots and brackets as given', async () => {
    const c = client();
    const ok = await c.send.sendSms(sms(['+49 (170) 123-45.67', '0170/1234567']));
    assert.equal(ok.Status, 'Ok');
    assert.match(sends().at(-1)!, /<string>\+49 \(170\) 123-45\.67<\/string><string>0170\/1234567<\/string>/);
    await c.close();
  });

  it('defaultCountry DE sends national numbers in international form', async () => {
    const c = client({ defaultCountry: 'de' });
    const ok = await c.send.sendSms(sms(['0170 1234567', '+43 664 1234567', '0049 170 7654321']));
    assert.equal(ok.Status, 'Ok');
    assert.match(
      sends().at(-1)!,
      /<Recipient><string>\+491701234567<\/string><string>\+436641234567<\/string><string>\+491707654321<\/string><\/Recipient>/,
    );
    const simple = await c.send.sendSimpleSms({
      Caption: 'c',
      Sender: '',
      Recipient: '0170 1234567',
      SMSText: 'x',
      SmsTyp: 'Standard',
      SendDate: '',
    });
    assert.equal(simple.Status, 'Ok');
    assert.match(sends().at(-1)!, /<Recipient>\+491701234567<\/Recipient>/);
    await c.close();
  });

  it('checkRecipients: false sends whatever is given; an unknown default country is a CONFIG error', async () => {
    const c = client({ checkRecipients: false });
    const r = await c.send.sendSms(sms(['abc']));
    assert.equal(r.Status, 'Ok');
    await c.close();
    assert.throws(
      () => client({ defaultCountry: 'XX' }),
      (e: unknown) => e instanceof GatewayError && e.code === 'CONFIG' && /XX/.test(e.message),
    );
  });

  it('checkRecipientText: each entry as given and as sent', () => {
    assert.deepEqual(checkRecipientText('0170 1234567; abc', { defaultCountry: 'DE' }), [
      { input: '0170 1234567', number: '+491701234567' },
      { input: 'abc', problem: 'format' },
    ]);
    assert.deepEqual(checkRecipientText(' +4917012345678 ,', {}), [
      { input: '+4917012345678', number: '+4917012345678' },
    ]);
  });

  it('splits as the spending guard counts: numbers separated by CR, tab or | are each checked and sent as a comma list', async () => {
    // Without the split, "0170 1111111\r0170 2222222" read as one number of 20 digits and passed.
    assert.deepEqual(
      checkRecipientText('0170 1111111\r0170 2222222\t+4917033333333|abc', {}).map((e) => e.input),
      ['0170 1111111', '0170 2222222', '+4917033333333', 'abc'],
    );
    const c = client();
    await c.send.sendSimpleSms({
      ...sms([]),
      SendDate: '',
      Recipient: '+4917011111111\r+4917022222222|+4917033333333',
    });
    assert.match(sends().at(-1)!, /<Recipient>\+4917011111111,\+4917022222222,\+4917033333333<\/Recipient>/);
    // The usual separators stay as the flow wrote them.
    await c.send.sendSimpleSms({ ...sms([]), SendDate: '', Recipient: '+4917011111111;\n+4917022222222' });
    assert.match(sends().at(-1)!, /<Recipient>\+4917011111111;\n\+4917022222222<\/Recipient>/);
    await c.close();
  });
});
