import { strict as assert } from 'node:assert';
import { startEmulator, type RunningEmulator } from '../../../src/emulator';
import { FakeBackend } from './helpers/fake-backend';
import { http } from './helpers/http';
import { child, parse } from './helpers/xml';

// How requests are read: RPC/encoded forms, XmlSerializer leniency, routing variants, response details.

const GW = 'https://gateway.smsgw.example/';
const LEG = 'https://gateway.smsgw.example/soap/';
const XML11 = { 'Content-Type': 'text/xml; charset=utf-8' };

describe('emulator wire: reading requests and writing values', () => {
  let emu: RunningEmulator<FakeBackend>;
  const backend = new FakeBackend();
  before(async () => {
    emu = await startEmulator({ backend });
  });
  after(() => emu.close());
  afterEach(() => {
    backend.resultOverride = undefined;
  });

  const legacySendSms = (recipient: string, trailer = ''): string =>
    `<?xml version="1.0" encoding="utf-8"?>
<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/"
    xmlns:ns1="${LEG}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <SOAP-ENV:Body SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/">
    <ns1:SendSMS>
      <User xsi:type="xs:string">demo</User>
      <Password xsi:type="xs:string">secret</Password>
      ${recipient}
      <SmsTyp xsi:type="xs:int">1</SmsTyp>
      <SendDate xsi:type="xs:dateTime">2026-11-22T12:00:00+02:00</SendDate>
    </ns1:SendSMS>
    ${trailer}
  </SOAP-ENV:Body>
</SOAP-ENV:Envelope>`;

  it('RPC 1.1: follows href/id multi-ref arrays placed after the wrapper', async () => {
    const res = await http(
      emu.url,
      'POST',
      '/soap/send.asmx',
      { ...XML11, SOAPAction: `"${LEG}SendSMS"` },
      legacySendSms(
        '<Recipient href="#id1" />',
        '<SOAP-ENC:Array id="id1" SOAP-ENC:arrayType="xs:string[2]"><Item>+491701</Item><Item href="#id2" /></SOAP-ENC:Array><xs:string xmlns:xs="http://www.w3.org/2001/XMLSchema" id="id2">+491702</xs:string>',
      ),
    );
    assert.equal(res.status, 200, res.body);
    assert.deepEqual(backend.lastCall?.params.Recipient, ['+491701', '+491702']);
    assert.equal(backend.lastCall?.params.SmsTyp, 1);
    assert.equal((backend.lastCall?.params.SendDate as Date).toISOString(), '2026-11-22T10:00:00.000Z');
  });

  it('RPC 1.1: an array without arrayType is not seen as an array (parameter stays null)', async () => {
    const res = await http(
      emu.url,
      'POST',
      '/soap/send.asmx',
      { ...XML11, SOAPAction: `${LEG}SendSMS` },
      legacySendSms('<Recipient><Item>+491701</Item></Recipient>'),
    );
    assert.equal(res.status, 200, res.body);
    assert.equal(backend.lastCall?.params.Recipient, undefined);
  });

  it('RPC 1.2: itemType/arraySize arrays and enc:ref references', async () => {
    const body = `<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope" xmlns:enc="http://www.w3.org/2003/05/soap-encoding" xmlns:xsd="http://www.w3.org/2001/XMLSchema">
  <env:Body>
    <m:SendSMS xmlns:m="${LEG}">
      <User>demo</User><Password>secret</Password>
      <Caption enc:id="c1">shared</Caption>
      <Sender enc:ref="c1" />
      <Recipient enc:itemType="xsd:string" enc:arraySize="3"><Item>1</Item><Item>2</Item><Item>3</Item></Recipient>
    </m:SendSMS>
  </env:Body>
</env:Envelope>`;
    const res = await http(
      emu.url,
      'POST',
      '/soap/send.asmx',
      { 'Content-Type': 'application/soap+xml; charset=utf-8' },
      body,
    );
    assert.equal(res.status, 200, res.body);
    const p = backend.lastCall?.params ?? {};
    assert.deepEqual(p.Recipient, ['1', '2', '3']);
    assert.equal(p.Sender, 'shared');
    assert.equal(p.SmsTyp, 0, 'missing int defaults to 0');
    assert.equal(p.SendDate, null, 'missing dateTime is DateTime.MinValue (null)');
    const wrapper = child(parse(res.body), 'Body')?.children[0];
    assert.equal(wrapper?.children[0]?.name, 'rpc:result');
  });

  it('document/literal: any prefix, any order, unknown elements ignored, missing ones defaulted', async () => {
    const body = `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Header><x:Trace xmlns:x="urn:x">1</x:Trace></s:Header><s:Body>
      <g:SendSMS xmlns:g="${GW}"><g:SMSText>hi</g:SMSText><g:Unknown>?</g:Unknown><g:Password>secret</g:Password>
      <User xmlns="urn:other">wrong-namespace</User><g:User>demo</g:User><g:Recipient><g:string>1</g:string><g:string xsi:nil="true" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" /><g:string /></g:Recipient></g:SendSMS></s:Body></s:Envelope>`;
    const res = await http(
      emu.url,
      'POST',
      '/gateway/Send.asmx',
      { ...XML11, SOAPAction: `"${GW}SendSMS"` },
      body,
    );
    assert.equal(res.status, 200, res.body);
    const p = backend.lastCall?.params ?? {};
    assert.equal(p.User, 'demo');
    assert.equal(p.SMSText, 'hi');
    assert.deepEqual(p.Recipient, ['1', undefined, '']);
    assert.equal(p.Caption, undefined);
    assert.equal(p.SmsTyp, 'Flash', 'missing enum is its first member');
    assert.equal(p.JobPriority, 0);
    assert.equal(p.SendDate, null);
  });

  it('document/literal: a wrapper in the wrong namespace leaves every parameter at its default', async () => {
    const body = `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><QueryAccountBalance xmlns="urn:wrong"><User>demo</User><Password>secret</Password></QueryAccountBalance></soap:Body></soap:Envelope>`;
    const res = await http(
      emu.url,
      'POST',
      '/gateway/Information.asmx',
      { ...XML11, SOAPAction: `"${GW}QueryAccountBalance"` },
      body,
    );
    assert.equal(res.status, 200, res.body);
    assert.equal(backend.lastCall?.params.User, undefined);
    assert.match(res.body, /<StatusCode>InvalidUser<\/StatusCode>/);
  });

  it('routes SOAP 1.1 without a SOAPAction header by the body element, and SOAP 1.2 without action likewise', async () => {
    const body = (env: string): string =>
      `<e:Envelope xmlns:e="${env}"><e:Body><QueryAccountBalance xmlns="${GW}"><User>demo</User><Password>secret</Password></QueryAccountBalance></e:Body></e:Envelope>`;
    const r11 = await http(
      emu.url,
      'POST',
      '/gateway/Information.asmx',
      XML11,
      body('http://schemas.xmlsoap.org/soap/envelope/'),
    );
    assert.equal(r11.status, 200, r11.body);
    assert.equal(r11.headers['content-type'], 'text/xml; charset=utf-8');
    assert.equal(backend.lastCall?.ctx.transport, 'soap11');
    const r12 = await http(
      emu.url,
      'POST',
      '/gateway/Information.asmx',
      XML11,
      body('http://www.w3.org/2003/05/soap-envelope'),
    );
    assert.equal(r12.status, 200, 'a 1.2 envelope sent as text/xml is accepted');
    assert.equal(r12.headers['content-type'], 'application/soap+xml; charset=utf-8');
    assert.match(r12.body, /<StatusCode>Ok<\/StatusCode><Value>42.5<\/Value>/);
  });

  it('URL-decodes an unquoted SOAPAction', async () => {
    const body = `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><QueryAccountBalance xmlns="${GW}" /></soap:Body></soap:Envelope>`;
    const res = await http(
      emu.url,
      'POST',
      '/gateway/Information.asmx',
      { ...XML11, SOAPAction: 'https%3A%2F%2Fgateway.smsgw.example%2FQueryAccountBalance' },
      body,
    );
    assert.equal(res.status, 200, res.body);
  });

  it('reads text/xml without charset as ASCII (non-ASCII bytes become ?), with charset as UTF-8', async () => {
    const body = `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><SendSimpleSMS xmlns="${GW}"><SMSText>Grüße</SMSText></SendSimpleSMS></soap:Body></soap:Envelope>`;
    await http(
      emu.url,
      'POST',
      '/gateway/Send.asmx',
      { 'Content-Type': 'text/xml', SOAPAction: `"${GW}SendSimpleSMS"` },
      Buffer.from(body),
    );
    assert.equal(backend.lastCall?.params.SMSText, 'Gr????e');
    await http(
      emu.url,
      'POST',
      '/gateway/Send.asmx',
      { ...XML11, SOAPAction: `"${GW}SendSimpleSMS"` },
      Buffer.from(body),
    );
    assert.equal(backend.lastCall?.params.SMSText, 'Grüße');
  });

  it('writes null results as an empty wrapper, empty strings as <x />, dates with +00:00 and MinValue', async () => {
    const call = (op: string, path: string): Promise<string> =>
      http(
        emu.url,
        'POST',
        path,
        { ...XML11, SOAPAction: `"${path.startsWith('/soap') ? LEG : GW}${op}"` },
        `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body /></soap:Envelope>`,
      ).then((r) => r.body);
    backend.resultOverride = () => undefined;
    assert.match(
      await call('QueryJobs', '/gateway/Information.asmx'),
      /<soap:Body><QueryJobsResponse xmlns="https:\/\/gateway.smsgw.example\/" \/><\/soap:Body>/,
    );
    backend.resultOverride = () => '';
    assert.match(await call('SendText2', '/soap/send.asmx'), /<SendText2Result \/>/);
    assert.match(await call('SendText', '/soap/send.asmx'), /<SendTextResult xsi:type="xsd:string" \/>/);
    backend.resultOverride = () => null;
    assert.match(await call('SendText', '/soap/send.asmx'), /<SendTextResult xsi:nil="true" \/>/);
    backend.resultOverride = () => ({
      StatusCode: 'Ok',
      Value: [
        {
          Id: 1,
          FavoredDate: null,
          SendDate: new Date(Date.UTC(2026, 10, 22, 9, 30, 0, 120)),
          Amount: Infinity,
          Sender: '',
        },
      ],
    });
    const jobs = await call('QueryJobs', '/gateway/Information.asmx');
    // Value-type fields nobody set are written with their defaults (XmlSerializer cannot omit them); the
    // strings Caption, Text, Recipient and BinData are null, so omitted.
    assert.match(
      jobs,
      /<Value><dbSMSJob><Id>1<\/Id><CustId>0<\/CustId><Typ>AbsenderUeberAusland<\/Typ><Sender \/><Status>None<\/Status><SMSTotal>0<\/SMSTotal><SMSTransferd>0<\/SMSTransferd><FavoredDate>0001-01-01T00:00:00<\/FavoredDate><SendDate>2026-11-22T09:30:00.12\+00:00<\/SendDate><CreateDate>0001-01-01T00:00:00<\/CreateDate><Amount>INF<\/Amount><BinDataTyp>None<\/BinDataTyp><Priority>0<\/Priority><ChangedDate>0001-01-01T00:00:00<\/ChangedDate><ChangedId>0<\/ChangedId><TotalSequences>0<\/TotalSequences><\/dbSMSJob><\/Value>/,
    );
    backend.resultOverride = () => ({ StatusCode: 'Ok', Value: [] });
    assert.match(
      await call('QueryJobs', '/gateway/Information.asmx'),
      /<StatusCode>Ok<\/StatusCode><Value \/>/,
    );
  });

  it('GET: null result is a nil root, lists of envelopes use the catalogue root name', async () => {
    backend.resultOverride = () => undefined;
    const nil = await http(
      emu.url,
      'GET',
      '/gateway/Information.asmx/QueryAccountBalance?User=demo&Password=secret',
    );
    assert.match(
      nil.body,
      /<SOAPResponseOfDouble xmlns:xsi="http:\/\/www.w3.org\/2001\/XMLSchema-instance" xsi:nil="true" xmlns="https:\/\/gateway.smsgw.example\/" \/>/,
    );
    backend.resultOverride = () => [{ StatusCode: 'Ok', Value: { Status: 'Ok', JobId: 5 } }];
    const list = await http(
      emu.url,
      'GET',
      '/gateway/Send.asmx/SendMobileOrFixlineSMS?user=demo&PASSWORD=secret&Caption=&Sender=&Recipient=1&SMSText=x&SendDate=&MobileSMSType=HighQuality',
    );
    assert.equal(list.status, 200, list.body);
    assert.equal(
      list.body,
      '<?xml version="1.0" encoding="utf-8"?>\r\n' +
        '<ArrayOfSOAPResponseOfCreateJobInfo xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns="https://gateway.smsgw.example/">\r\n' +
        '  <SOAPResponseOfCreateJobInfo>\r\n    <StatusCode>Ok</StatusCode>\r\n    <Value>\r\n      <Status>Ok</Status>\r\n      <JobId>5</JobId>\r\n    </Value>\r\n' +
        '  </SOAPResponseOfCreateJobInfo>\r\n</ArrayOfSOAPResponseOfCreateJobInfo>',
    );
    assert.equal(backend.lastCall?.params.User, 'demo', 'parameter names are case-insensitive');
  });

  it('GET/POST: converts like Convert.ChangeType (numeric enum, US dates, + signs, repeated scalar joined)', async () => {
    await http(
      emu.url,
      'GET',
      '/gateway/Send.asmx/SendSMS?User=demo&Password=secret&Caption=a&Caption=b&Sender=s&Recipient=1&SMSText=t&SmsTyp=1&SendDate=11/22/2026+10:00&JobPriority=%2B7',
    );
    const p = backend.lastCall?.params ?? {};
    assert.equal(p.Caption, 'a,b');
    assert.equal(p.SmsTyp, 'Standard');
    assert.equal(p.JobPriority, 7);
    assert.equal((p.SendDate as Date).toISOString(), '2026-11-22T10:00:00.000Z');
  });
});
