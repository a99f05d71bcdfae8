import assert from 'node:assert/strict';
import { DEFAULT_NAMESPACES, findOperation, t } from '../../src/catalogue';
import type { OperationDef } from '../../src/catalogue/types';
import { GatewayError } from '../../src/errors';
import { buildRequest, type Transport } from '../../src/soap/request';
import { thrown } from './helpers';

const NS = DEFAULT_NAMESPACES.gateway;
const sendSms = findOperation('send', 'SendSMS')!;
const base = {
  User: 'u',
  Password: 'secret-pw',
  Caption: 'c',
  Sender: 's',
  Recipient: ['+491'],
  SMSText: 'hi',
  SmsTyp: 'Standard',
  SendDate: new Date(Date.UTC(2026, 10, 22, 10, 0, 0)),
};
const build = (
  op: OperationDef,
  params: Record<string, unknown>,
  transport: Transport = 'soap11',
  namespace: string = NS,
) => buildRequest(op, params, { transport, namespace, path: '/gateway/Send.asmx' });

function validation(fn: () => unknown): GatewayError {
  const e = thrown(fn);
  assert.ok(e instanceof GatewayError, String(e));
  assert.equal(e.code, 'VALIDATION');
  return e;
}

/** A synthetic operation exercising the types no catalogue parameter has (double, boolean). */
const probe: OperationDef = {
  service: 'information',
  name: 'Probe',
  style: 'document',
  params: [
    { name: 'Rate', type: t.double },
    { name: 'Flag', type: t.boolean },
    { name: 'Opt', type: t.double, optional: true },
    { name: 'OptFlag', type: t.boolean, optional: true },
  ],
  result: { type: t.string, bare: 'string' },
  doc: 'test only',
};

describe('soap/request', () => {
  describe('headers and paths', () => {
    it('SOAP 1.1: text/xml utf-8 and the quoted SOAPAction; POST to the bare service path', () => {
      const r = build(sendSms, base);
      assert.equal(r.method, 'POST');
      assert.equal(r.path, '/gateway/Send.asmx');
      assert.deepEqual(r.headers, {
        'content-type': 'text/xml; charset=utf-8',
        soapaction: `"${NS}SendSMS"`,
      });
    });
    it('SOAP 1.2: application/soap+xml with the action parameter, no SOAPAction', () => {
      const r = build(sendSms, base, 'soap12');
      assert.deepEqual(r.headers, {
        'content-type': `application/soap+xml; charset=utf-8; action="${NS}SendSMS"`,
      });
      assert.match(
        r.body!,
        /^<\?xml version="1.0" encoding="utf-8"\?><soap:Envelope xmlns:soap="http:\/\/www.w3.org\/2003\/05\/soap-envelope"/,
      );
    });
    it('a namespace without trailing slash gets one before the operation name', () => {
      const r = build(sendSms, base, 'soap11', 'urn:gw');
      assert.equal(r.headers.soapaction, '"urn:gw/SendSMS"');
    });
    it('GET appends /<Op>?query and sends no body; POST sends a form', () => {
      const g = build(sendSms, base, 'get');
      assert.equal(g.method, 'GET');
      assert.ok(g.path.startsWith('/gateway/Send.asmx/SendSMS?User=u&Password=secret-pw&'));
      assert.equal(g.body, undefined);
      const p = build(sendSms, base, 'post');
      assert.equal(p.path, '/gateway/Send.asmx/SendSMS');
      assert.equal(p.headers['content-type'], 'application/x-www-form-urlencoded');
      assert.ok(p.body!.includes('&Recipient=%2B491&'));
    });
  });

  describe('lenient inputs', () => {
    it('a single string for a list, numeric strings for ints, ISO strings for dates (sent as written)', () => {
      const r = build(findOperation('legacy', 'SendSMS2')!, {
        ...base,
        Recipient: '+4917',
        SmsTyp: ' 7 ',
        SendDate: '2026-11-22T10:00:00+02:00',
      });
      assert.ok(r.body!.includes('<Recipient><string>+4917</string></Recipient>'));
      assert.ok(r.body!.includes('<SmsTyp>7</SmsTyp>'));
      assert.ok(r.body!.includes('<SendDate>2026-11-22T10:00:00+02:00</SendDate>'));
    });
    it('null for a dateTime is .NET MinValue ("no date")', () => {
      const r = build(sendSms, { ...base, SendDate: null });
      assert.ok(r.body!.includes('<SendDate>0001-01-01T00:00:00</SendDate>'));
    });
    it('base64Binary from a base64 string or bytes; GET/POST send one decimal byte per key', () => {
      const op = findOperation('legacy', 'SendBinData')!;
      const p = {
        User: 'u',
        Password: 'p',
        Recipient: 'r',
        strMsg: 'm',
        MsgType: 1,
        binTyp: 2,
        sendDate: null,
      };
      const a = build(op, { ...p, Data: 'AAH/' });
      const b = build(op, { ...p, Data: new Uint8Array([0, 1, 255]) });
      assert.equal(a.body, b.body);
      assert.ok(a.body!.includes('<Data>AAH/</Data>'));
      assert.ok(build(op, { ...p, Data: [0, 1, 255] }, 'post').body!.includes('&Data=0&Data=1&Data=255&'));
    });
    it('doubles: INF/NaN in SOAP, Infinity/NaN in GET/POST; booleans true/false', () => {
      const soap = build(probe, { Rate: Infinity, Flag: 'TRUE' }).body!;
      assert.ok(soap.includes('<Rate>INF</Rate><Flag>true</Flag>'));
      assert.ok(!soap.includes('<Opt>'), 'absent optional params are omitted in SOAP');
      const get = build(probe, { Rate: -Infinity, Flag: false }, 'get').path;
      assert.ok(get.endsWith('?Rate=-Infinity&Flag=false&Opt=0&OptFlag=false'), get);
      assert.ok(build(probe, { Rate: 'NaN', Flag: 0 }, 'post').body!.startsWith('Rate=NaN&Flag=false'));
      assert.ok(
        build(probe, { Rate: '1e21', Flag: 1 }).body!.includes('<Rate>1E+21</Rate><Flag>true</Flag>'),
      );
    });
    it('optional params absent in GET/POST are still sent with their wire defaults', () => {
      const op = findOperation('send', 'SendMobileOrFixlineSMS')!;
      const q = build(
        op,
        { User: 'u', Password: 'p', Caption: 'c', Sender: 's', Recipient: 'r', SMSText: 't', SendDate: '' },
        'get',
      ).path;
      assert.ok(q.endsWith('&SendDate=&MobileSMSType=HighQuality'), q);
      const info = findOperation('information', 'QueryJobInfoByJobCaption')!;
      assert.ok(
        build(info, { User: 'u', Password: 'p', Caption: 'x' }, 'post').body!.endsWith(
          '&StartDate=0001-01-01T00%3A00%3A00',
        ),
      );
    });
    it('included optional params are sent', () => {
      const r = build(sendSms, { ...base, JobPriority: 3 });
      assert.ok(r.body!.endsWith('<JobPriority>3</JobPriority></SendSMS></soap:Body></soap:Envelope>'));
    });
    it('escapes text, strips characters XML cannot carry, keeps CR as a reference', () => {
      const r = build(sendSms, { ...base, SMSText: 'a<b>&c]]>\r\n\u0001😀' });
      assert.ok(r.body!.includes('<SMSText>a&lt;b&gt;&amp;c]]&gt;&#xD;\n😀</SMSText>'));
    });
  });

  describe('validation (before anything is sent)', () => {
    it('rejects a wrong type with the parameter name and operation, never echoing the value', () => {
      const e = validation(() => build(sendSms, { ...base, Password: { secret: 'secret-pw' } }));
      assert.equal(e.operation, 'SendSMS');
      assert.match(e.message, /Password/);
      assert.ok(!e.message.includes('secret-pw'));
      assert.ok(!JSON.stringify(e).includes('secret-pw'));
    });
    it('rejects a non-integer or out-of-range int, an invalid date, an unknown enum member', () => {
      validation(() => build(sendSms, { ...base, JobPriority: 1.5 }));
      validation(() => build(sendSms, { ...base, JobPriority: 2 ** 31 }));
      validation(() => build(sendSms, { ...base, JobPriority: '12abc' }));
      validation(() => build(sendSms, { ...base, SendDate: 'tomorrow' }));
      validation(() => build(sendSms, { ...base, SendDate: new Date(NaN) }));
      validation(() => build(sendSms, { ...base, SmsTyp: 'Fast' }));
    });
    it('checks enum parameters against their allowed members', () => {
      const op = findOperation('send', 'SendMobileOrFixlineSMS')!;
      const p = {
        User: 'u',
        Password: 'p',
        Caption: 'c',
        Sender: 's',
        Recipient: 'r',
        SMSText: 't',
        SendDate: '',
      };
      assert.ok(build(op, { ...p, MobileSMSType: 'HighQualityLong' }).body!.includes('HighQualityLong'));
      validation(() => build(op, { ...p, MobileSMSType: 'Flash' }));
    });
    it('rejects a missing required parameter and an unknown parameter name', () => {
      const { SMSText: _omit, ...missing } = base;
      assert.match(validation(() => build(sendSms, missing)).message, /SMSText/);
      assert.match(validation(() => build(sendSms, { ...base, Recipients: ['x'] })).message, /Recipients/);
    });
    it('rejects bad base64 text and a list item that is not text', () => {
      const op = findOperation('legacy', 'SMSCR')!;
      validation(() =>
        build(op, {
          serial: 's',
          password: 'p',
          caption: 'c',
          Msg: 'm',
          Sender: 's',
          bRecipient: '%%%',
          SendDate: null,
          SmsTyp: 1,
        }),
      );
      validation(() => build(sendSms, { ...base, Recipient: ['+49', { n: 1 }] }));
    });
  });
});
