import { strict as assert } from 'node:assert';
import { startEmulator, type RunningEmulator } from '../../../src/emulator';
import { FakeBackend } from './helpers/fake-backend';
import { http, type HttpAnswer } from './helpers/http';
import { child, parse, path } from './helpers/xml';

// Value types (int, enum, dateTime) read as XmlSerializer and Enum.Parse read them (asmx-wire §2, §7.2, §8):
// xsi:nil where null does not fit, an Int32 overflow, and an enum number that names no member.

const GW = 'https://gateway.smsgw.example/';
const LEGACY = 'https://gateway.smsgw.example/soap/';
const S11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const S12 = 'http://www.w3.org/2003/05/soap-envelope';
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
const SEND = '/gateway/Send.asmx';

/** A complete SendSMS (demo account) with `extra` as its last parameters. */
const sendSms = (envNs: string, extra: string): string =>
  `<soap:Envelope xmlns:soap="${envNs}" xmlns:xsi="${XSI}"><soap:Body><SendSMS xmlns="${GW}">` +
  '<User>demo</User><Password>demo-password</Password><Caption>c</Caption><Sender>s</Sender>' +
  '<Recipient><string>+4917000001</string></Recipient><SMSText>hi</SMSText>' +
  `${extra}</SendSMS></soap:Body></soap:Envelope>`;

const HEADERS = {
  '1.1': { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${GW}SendSMS"` },
  '1.2': { 'Content-Type': `application/soap+xml; charset=utf-8; action="${GW}SendSMS"` },
} as const;

function faultText(res: HttpAnswer, version: '1.1' | '1.2'): { code: string; text: string } {
  assert.equal(res.status, 500, res.body);
  const f = path(parse(res.body), 'Body', 'Fault');
  assert.ok(f, `a Fault: ${res.body}`);
  return version === '1.1'
    ? { code: child(f, 'faultcode')?.text ?? '', text: child(f, 'faultstring')?.text ?? '' }
    : { code: path(f, 'Code', 'Value')?.text ?? '', text: path(f, 'Reason', 'Text')?.text ?? '' };
}

describe('emulator wire: value types as XmlSerializer and Enum.Parse read them', () => {
  let emu: RunningEmulator;
  let fake: RunningEmulator<FakeBackend>;
  const backend = new FakeBackend();
  before(async () => {
    // the real state: the send must not happen (it would cost money at the gateway)
    emu = await startEmulator({ duplicateWindowMs: 0 });
    fake = await startEmulator({ backend });
  });
  after(async () => {
    await emu.close();
    await fake.close();
  });
  const jobCount = (): number => emu.state.jobs().length;

  describe('xsi:nil="true" on a value type is a Client fault, not a null (SOAP 1.1 and 1.2)', () => {
    const cases = [
      {
        param: 'JobPriority',
        xml: '<SmsTyp>Standard</SmsTyp><SendDate>2026-11-22T10:00:00</SendDate><JobPriority xsi:nil="true" />',
        inner: 'Input string was not in a correct format.',
      },
      {
        param: 'SmsTyp',
        xml: '<SmsTyp xsi:nil="true" /><SendDate>2026-11-22T10:00:00</SendDate>',
        // the generated enum reader's default branch: CreateUnknownConstantException('', SmsType)
        inner: "Instance validation error: '' is not a valid value for SmsType.",
      },
      {
        param: 'SendDate',
        xml: '<SmsTyp>Standard</SmsTyp><SendDate xsi:nil="true"></SendDate>',
        // XmlConvert.ToDateTime(s, RoundtripKind) → new XsdDateTime(s, AllXsd)
        inner: "The string '' is not a valid AllXsd value.",
      },
    ];
    for (const version of ['1.1', '1.2'] as const) {
      for (const c of cases) {
        it(`${c.param}, SOAP ${version}: "${c.inner}", and no job`, async () => {
          const before = jobCount();
          const body = sendSms(version === '1.1' ? S11 : S12, c.xml);
          const f = faultText(await http(emu.url, 'POST', SEND, HEADERS[version], body), version);
          assert.equal(f.code, version === '1.1' ? 'soap:Client' : 'soap:Sender');
          assert.match(
            f.text,
            /^Server was unable to read request\. ---> There is an error in XML document \(1, \d+\)\. ---> /,
          );
          assert.ok(f.text.endsWith(` ---> ${c.inner}`), f.text);
          assert.equal(jobCount(), before, 'nothing was sent');
        });
      }
    }

    it('the position is the one after the nil element, as for an empty element as long', async () => {
      const at = async (param: string): Promise<string> => {
        const extra = `<SmsTyp>Standard</SmsTyp><SendDate>2026-11-22T10:00:00</SendDate>${param}`;
        const res = await http(emu.url, 'POST', SEND, HEADERS['1.1'], sendSms(S11, extra));
        return /XML document \((\d+, \d+)\)/.exec(faultText(res, '1.1').text)?.[1] ?? '';
      };
      const nil = '<JobPriority xsi:nil="true" />';
      const empty = `<JobPriority${' '.repeat(nil.length - '<JobPriority/>'.length)}/>`;
      assert.equal(await at(nil), await at(empty));
    });

    it('a nil value type with text is read as that text (XmlSerializer does not look at xsi:nil there)', async () => {
      const body = sendSms(
        S11,
        '<SmsTyp>Standard</SmsTyp><SendDate>2026-11-22T10:00:00</SendDate><JobPriority xsi:nil="true">0</JobPriority>',
      );
      const res = await http(emu.url, 'POST', SEND, HEADERS['1.1'], body);
      assert.equal(res.status, 200, res.body);
      assert.match(res.body, /<Status>Ok<\/Status>/);
    });

    it('nil on a string still reads as null (reference types may be null)', async () => {
      const body = sendSms(S11, '<SmsTyp>Standard</SmsTyp><SendDate>2026-11-22T10:00:00</SendDate>').replace(
        '<Caption>c</Caption>',
        '<Caption xsi:nil="true" />',
      );
      const res = await http(fake.url, 'POST', SEND, HEADERS['1.1'], body.replace('demo-password', 'secret'));
      assert.equal(res.status, 200, res.body);
      assert.equal(backend.lastCall?.params.Caption, undefined);
    });

    it('RPC/encoded: the encoded reader returns null for nil, so a value type keeps its default and the call goes on', async () => {
      const body =
        `<soap:Envelope xmlns:soap="${S11}" xmlns:xsi="${XSI}" xmlns:tns="${LEGACY}"><soap:Body><tns:SMSCR>` +
        '<serial>demo</serial><password>secret</password><SendDate xsi:nil="true" /><SmsTyp xsi:nil="1" />' +
        '</tns:SMSCR></soap:Body></soap:Envelope>';
      const res = await http(
        fake.url,
        'POST',
        '/soap/send.asmx',
        { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${LEGACY}SMSCR"` },
        body,
      );
      assert.equal(res.status, 200, res.body);
      const params = backend.lastCall?.params ?? {};
      assert.equal(params.SmsTyp, 0);
      assert.equal(params.SendDate, null, 'DateTime.MinValue');
    });
  });

  it('an Int32 overflow names the overflow in the inner message (SOAP 1.1 and 1.2)', async () => {
    for (const version of ['1.1', '1.2'] as const) {
      for (const digits of ['99999999999', '-2147483649', ' +2147483648 ']) {
        const body = sendSms(
          version === '1.1' ? S11 : S12,
          `<SmsTyp>Standard</SmsTyp><SendDate>2026-11-22T10:00:00</SendDate><JobPriority>${digits}</JobPriority>`,
        );
        const f = faultText(await http(emu.url, 'POST', SEND, HEADERS[version], body), version);
        assert.match(
          f.text,
          /^Server was unable to read request\. ---> There is an error in XML document \(1, \d+\)\. ---> Value was either too large or too small for an Int32\.$/,
          `${version} ${digits}`,
        );
      }
    }
    // the largest Int32 is no overflow; text that is no number is still a format error
    const max = sendSms(
      S11,
      '<SmsTyp>Standard</SmsTyp><SendDate>2026-11-22T10:00:00</SendDate><JobPriority>2147483647</JobPriority>',
    );
    assert.equal((await http(emu.url, 'POST', SEND, HEADERS['1.1'], max)).status, 200);
    const word = sendSms(
      S11,
      '<SmsTyp>Standard</SmsTyp><SendDate>2026-11-22T10:00:00</SendDate><JobPriority>1e3</JobPriority>',
    );
    assert.match(
      faultText(await http(emu.url, 'POST', SEND, HEADERS['1.1'], word), '1.1').text,
      /---> Input string was not in a correct format\.$/,
    );
  });

  describe('HTTP GET: Enum.Parse takes any number', () => {
    const get = (smsTyp: string): Promise<HttpAnswer> =>
      http(
        emu.url,
        'GET',
        `${SEND}/SendSMS?User=demo&Password=demo-password&Caption=c&Sender=s&Recipient=%2B4917000001` +
          `&SMSText=hi&SmsTyp=${smsTyp}&SendDate=2026-11-22T10:00:00&JobPriority=0`,
      );

    it('SmsTyp=99 proceeds, and SendSMS answers as for a type it does not know: SMSTypeError, no job', async () => {
      const before = jobCount();
      const res = await get('99');
      assert.equal(res.status, 200, res.body);
      assert.match(res.body, /<StatusCode>Ok<\/StatusCode>/);
      assert.match(res.body, /<Status>SMSTypeError<\/Status>/);
      assert.match(res.body, /<JobId>0<\/JobId>/);
      assert.equal(jobCount(), before);
    });

    it('a member number is that member; a negative number and surrounding spaces are numbers too', async () => {
      const ok = await get('1'); // Standard
      assert.match(ok.body, /<Status>Ok<\/Status>/);
      assert.match((await get('-1')).body, /<Status>SMSTypeError<\/Status>/);
      assert.match((await get('%2099%20')).body, /<Status>SMSTypeError<\/Status>/);
    });

    it('a number beyond Int32 and a word that is no member still fail as Enum.Parse fails', async () => {
      const big = await get('99999999999');
      assert.equal(big.status, 500);
      assert.equal(
        big.body,
        'Cannot convert 99999999999 to SmsType.\r\nParameter name: type ---> Value was either too large or too small for an Int32.\r\n',
      );
      const word = await get('Fast');
      assert.equal(
        word.body,
        // the message is HTML-encoded in this channel (HttpUtility.HtmlEncode writes ' as &#39;)
        'Cannot convert Fast to SmsType.\r\nParameter name: type ---> Requested value &#39;Fast&#39; was not found.\r\n',
      );
    });
  });
});
