import assert from 'node:assert/strict';
import { buildGenericRequest, GenericRequestError, type GenericRequest } from '../../src/generic';
import { parse, path } from '../emulator/wire/helpers/xml';

const NS = 'https://gw.example/';
const DECL = '<?xml version="1.0" encoding="utf-8"?>';
const ENV11 =
  '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">';

const base = (over: Partial<GenericRequest>): GenericRequest => ({
  transport: 'soap11',
  path: '/gateway/Send.asmx',
  namespace: NS,
  operation: 'SendSMS',
  params: {},
  ...over,
});

describe('generic request builder (xmlbuilder2)', () => {
  it('SOAP 1.1 document/literal: wrapper and parameters in the namespace, lists as wrapper + items, Dates, Buffers, null', () => {
    const req = buildGenericRequest(
      base({
        params: {
          User: 'demo',
          Recipient: { string: ['+4917012345678', '+4917012345679'] },
          Count: 3,
          Rate: Infinity,
          Flag: false,
          SendDate: new Date(Date.UTC(2026, 10, 22, 10, 0, 0, 250)),
          Data: Buffer.from([0, 1, 2, 3, 4]),
          Empty: '',
          Gone: undefined,
          Nothing: null,
          Nested: { Street: 'Main <&> "1"', Lines: ['a', 'b'] },
        },
      }),
    );
    assert.equal(req.method, 'POST');
    assert.equal(req.path, '/gateway/Send.asmx');
    assert.deepEqual(req.headers, {
      'content-type': 'text/xml; charset=utf-8',
      soapaction: `"${NS}SendSMS"`,
    });
    assert.equal(
      req.body,
      `${DECL}${ENV11}<soap:Body><SendSMS xmlns="${NS}"><User>demo</User>` +
        '<Recipient><string>+4917012345678</string><string>+4917012345679</string></Recipient>' +
        '<Count>3</Count><Rate>INF</Rate><Flag>false</Flag><SendDate>2026-11-22T10:00:00.25Z</SendDate>' +
        '<Data>AAECAwQ=</Data><Empty/><Nothing xsi:nil="true"/>' +
        '<Nested><Street>Main &lt;&amp;&gt; "1"</Street><Lines>a</Lines><Lines>b</Lines></Nested>' +
        '</SendSMS></soap:Body></soap:Envelope>',
    );
    // Every parameter element is qualified in the operation's namespace (what ASMX needs, §3.1).
    const root = parse(req.body!);
    assert.equal(path(root, 'Body', 'SendSMS', 'Nested', 'Street')?.uri, NS);
  });

  it('SOAP 1.2: the action rides in the content type, no SOAPAction header; soapAction overrides', () => {
    const req = buildGenericRequest(base({ transport: 'soap12', soapAction: 'urn:custom#Send' }));
    assert.deepEqual(req.headers, {
      'content-type': 'application/soap+xml; charset=utf-8; action="urn:custom#Send"',
    });
    assert.match(
      req.body!,
      /^<\?xml[^>]*\?><soap:Envelope xmlns:soap="http:\/\/www\.w3\.org\/2003\/05\/soap-envelope"/,
    );
    const v11 = buildGenericRequest(base({ soapAction: 'urn:custom#Send' }));
    assert.equal(v11.headers.soapaction, '"urn:custom#Send"');
    // ASMX's default for a namespace without a trailing slash.
    assert.equal(buildGenericRequest(base({ namespace: 'urn:x' })).headers.soapaction, '"urn:x/SendSMS"');
  });

  it('SOAP headers: blocks in the operation namespace, or in the one a {uri}Name gives', () => {
    const req = buildGenericRequest(
      base({
        headers: { AuthHeader: { Token: 't-1' }, '{urn:trace}Trace': { Id: '42' } },
        params: { Caption: 'c' },
      }),
    );
    const root = parse(req.body!);
    const header = path(root, 'Header');
    assert.deepEqual(
      header?.children.map((c) => [c.uri, c.local, c.children.map((g) => [g.uri, g.local, g.text])]),
      [
        [NS, 'AuthHeader', [[NS, 'Token', 't-1']]],
        ['urn:trace', 'Trace', [['urn:trace', 'Id', '42']]],
      ],
    );
    assert.equal(root.children[0]?.local, 'Header', 'the Header comes before the Body');
  });

  it('RPC/encoded over SOAP 1.1: prefixed wrapper, unqualified accessors, xsi:type for non-text values, soapenc arrays', () => {
    const req = buildGenericRequest(
      base({
        style: 'rpc',
        path: '/soap/send.asmx',
        params: {
          Recipient: ['+491', '+492'],
          SmsTyp: 1,
          Text: 'x',
          When: new Date(0),
          Bin: Buffer.from('hi'),
        },
      }),
    );
    assert.equal(
      req.body,
      `${DECL}<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:tns="${NS}">` +
        '<soap:Body soap:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><tns:SendSMS>' +
        '<Recipient xsi:type="soapenc:Array" soapenc:arrayType="xsd:string[2]"><Item>+491</Item><Item>+492</Item></Recipient>' +
        '<SmsTyp xsi:type="xsd:int">1</SmsTyp><Text>x</Text><When xsi:type="xsd:dateTime">1970-01-01T00:00:00Z</When>' +
        '<Bin xsi:type="xsd:base64Binary">aGk=</Bin></tns:SendSMS></soap:Body></soap:Envelope>',
    );
    const root = parse(req.body!);
    assert.equal(path(root, 'Body', 'SendSMS')?.uri, NS);
    assert.equal(path(root, 'Body', 'SendSMS', 'Text')?.uri, '', 'RPC accessors are unqualified');
  });

  it('RPC/encoded over SOAP 1.2: arrays with enc:itemType and enc:arraySize, no encodingStyle', () => {
    const req = buildGenericRequest(base({ transport: 'soap12', style: 'rpc', params: { Ids: [1, 2, 3] } }));
    assert.match(
      req.body!,
      /<soap:Body><tns:SendSMS><Ids enc:itemType="xsd:int" enc:arraySize="3"><Item>1<\/Item><Item>2<\/Item><Item>3<\/Item><\/Ids><\/tns:SendSMS>/,
    );
    assert.match(req.body!, /xmlns:enc="http:\/\/www\.w3\.org\/2003\/05\/soap-encoding"/);
  });

  it('a carriage return in text survives as a character reference; characters XML cannot carry are dropped (as on the typed path)', () => {
    const req = buildGenericRequest(base({ params: { SMSText: 'line 1\r\nline 2\u0001' } }));
    assert.match(req.body!, /<SMSText>line 1&#xD;\nline 2<\/SMSText>/);
    assert.equal(path(parse(req.body!), 'Body', 'SendSMS', 'SMSText')?.text, 'line 1\r\nline 2');
  });

  it('HTTP GET and POST: repeated keys for lists, one key per byte of a Buffer, Infinity spelled for Convert.ChangeType', () => {
    const params = {
      User: 'dëmo',
      Recipient: ['+4917012345678', '+4917012345679'],
      Data: Buffer.from([7, 255]),
      Rate: -Infinity,
      Flag: true,
      SendDate: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)),
      Text: 'a b&c',
      Blank: null,
      Gone: undefined,
    };
    const query =
      'User=d%C3%ABmo&Recipient=%2B4917012345678&Recipient=%2B4917012345679&Data=7&Data=255&Rate=-Infinity' +
      '&Flag=true&SendDate=2026-01-02T03%3A04%3A05Z&Text=a%20b%26c&Blank=';
    const get = buildGenericRequest(base({ transport: 'get', params }));
    assert.deepEqual(get, { method: 'GET', path: `/gateway/Send.asmx/SendSMS?${query}`, headers: {} });
    const post = buildGenericRequest(base({ transport: 'post', params }));
    assert.deepEqual(post, {
      method: 'POST',
      path: '/gateway/Send.asmx/SendSMS',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: query,
    });
  });

  it('refuses what cannot be written, before anything is sent', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    let deep: Record<string, unknown> = { leaf: 'x' };
    for (let i = 0; i < 40; i++) deep = { level: deep };
    const cases: [Partial<GenericRequest>, RegExp][] = [
      [{ operation: 'Send SMS' }, /operation name "Send SMS" is not an XML name/],
      [{ params: { 'bad name': 1 } }, /parameter name "bad name" is not an XML name/],
      [{ params: { x: { '1st': 1 } } }, /element name "1st"/],
      [{ params: { f: () => 1 } }, /f: a function cannot be written/],
      [{ params: { m: new Map() } }, /m: a Map cannot be written/],
      [{ params: { l: [[1]] } }, /a list inside a list/],
      [{ params: { d: new Date(NaN) } }, /d: an invalid Date/],
      [{ params: cyclic }, /refer to themselves/],
      [{ params: deep }, /nested deeper than 32 levels/],
      [{ headers: { 'a:b': 1 } }, /header name "a:b"/],
      [{ transport: 'get', params: { x: { y: 1 } } }, /GET and POST carry only values/],
      [{ transport: 'post', headers: { H: 1 } }, /SOAP headers need a SOAP transport/],
    ];
    for (const [over, message] of cases) {
      assert.throws(
        () => buildGenericRequest(base(over)),
        (e: unknown) => {
          assert.ok(e instanceof GenericRequestError, String(e));
          assert.match(e.message, message);
          return true;
        },
      );
    }
  });
});
