import { strict as assert } from 'node:assert';
import { startEmulator, type RunningEmulator } from '../../../src/emulator';
import { FakeBackend } from './helpers/fake-backend';
import { http, type HttpAnswer } from './helpers/http';
import { child, parse, path } from './helpers/xml';

// Every error answer of asmx-wire.md §6, written from the reference texts.

const GW = 'https://gateway.smsgw.example/';
const S11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const S12 = 'http://www.w3.org/2003/05/soap-envelope';
const XML11 = { 'Content-Type': 'text/xml; charset=utf-8' };
const balance11 = `<soap:Envelope xmlns:soap="${S11}"><soap:Body><QueryAccountBalance xmlns="${GW}"><User>demo</User><Password>secret</Password></QueryAccountBalance></soap:Body></soap:Envelope>`;

function fault11(res: HttpAnswer): { code: string; text: string; detail: boolean } {
  assert.equal(res.status, 500, res.body);
  assert.equal(res.headers['content-type'], 'text/xml; charset=utf-8');
  const f = path(parse(res.body), 'Body', 'Fault');
  assert.ok(f, 'has a Fault');
  return {
    code: child(f, 'faultcode')?.text ?? '',
    text: child(f, 'faultstring')?.text ?? '',
    detail: !!child(f, 'detail'),
  };
}

function fault12(res: HttpAnswer): { code: string; text: string; lang: string | undefined; detail: boolean } {
  assert.equal(res.status, 500, res.body);
  assert.equal(res.headers['content-type'], 'application/soap+xml; charset=utf-8');
  const f = path(parse(res.body), 'Body', 'Fault');
  const text = path(f, 'Reason', 'Text');
  return {
    code: path(f, 'Code', 'Value')?.text ?? '',
    text: text?.text ?? '',
    lang: text?.attrs['xml:lang'],
    detail: !!child(f, 'Detail'),
  };
}

describe('emulator wire: error answers', () => {
  let emu: RunningEmulator<FakeBackend>;
  const backend = new FakeBackend();
  before(async () => {
    emu = await startEmulator({ backend, maxBodyBytes: 64 * 1024, maxXmlDepth: 32 });
  });
  after(() => emu.close());
  afterEach(() => {
    backend.failWith = undefined;
  });
  const post = (
    headers: Record<string, string>,
    body: string | Buffer,
    p = '/gateway/Information.asmx',
  ): Promise<HttpAnswer> => http(emu.url, 'POST', p, headers, body);

  describe('SOAP', () => {
    it('unknown SOAPAction: Client fault naming the value', async () => {
      const f = fault11(await post({ ...XML11, SOAPAction: '"urn:nope"' }, balance11));
      assert.deepEqual(f, {
        code: 'soap:Client',
        text: 'Server did not recognize the value of HTTP Header SOAPAction: urn:nope.',
        detail: true,
      });
      assert.match(
        (await post({ ...XML11, SOAPAction: '"urn:nope"' }, balance11)).body,
        /<detail \/><\/soap:Fault>/,
      );
    });

    it('empty SOAPAction "" is looked up as the empty action and fails', async () => {
      const f = fault11(await post({ ...XML11, SOAPAction: '""' }, balance11));
      assert.equal(f.text, 'Server did not recognize the value of HTTP Header SOAPAction: .');
    });

    it('single quotes are not stripped from SOAPAction', async () => {
      const f = fault11(await post({ ...XML11, SOAPAction: `'${GW}QueryAccountBalance'` }, balance11));
      assert.equal(
        f.text,
        `Server did not recognize the value of HTTP Header SOAPAction: '${GW}QueryAccountBalance'.`,
      );
    });

    it('malformed XML: 400 with an empty body', async () => {
      const res = await post(
        { ...XML11, SOAPAction: `"${GW}QueryAccountBalance"` },
        `<soap:Envelope xmlns:soap="${S11}"><oops></soap:Envelope>`,
      );
      assert.equal(res.status, 400);
      assert.equal(res.body, '');
    });

    it('wrong media type: 415 with an empty body (also a 1.1 envelope as application/soap+xml)', async () => {
      const a = await post(
        { 'Content-Type': 'text/plain', SOAPAction: `"${GW}QueryAccountBalance"` },
        balance11,
      );
      assert.deepEqual([a.status, a.body], [415, '']);
      const b = await post({ 'Content-Type': 'application/soap+xml; charset=utf-8' }, balance11);
      assert.deepEqual([b.status, b.body], [415, '']);
    });

    it('unknown envelope namespace: VersionMismatch', async () => {
      const f = fault11(
        await post(
          { ...XML11, SOAPAction: `"${GW}QueryAccountBalance"` },
          '<e:Envelope xmlns:e="urn:soap3"><e:Body /></e:Envelope>',
        ),
      );
      assert.equal(f.code, 'soap:VersionMismatch');
      assert.equal(
        f.text,
        `Possible SOAP version mismatch: Envelope namespace urn:soap3 was unexpected. Expecting ${S11}.`,
      );
    });

    it('missing Envelope and missing Body', async () => {
      const a = fault11(
        await post(
          { ...XML11, SOAPAction: `"${GW}QueryAccountBalance"` },
          `<soap:Body xmlns:soap="${S11}" />`,
        ),
      );
      assert.equal(a.code, 'soap:Client');
      assert.match(a.text, /Missing required soap:Envelope element\.$/);
      const b = fault11(
        await post(
          { ...XML11, SOAPAction: `"${GW}QueryAccountBalance"` },
          `<soap:Envelope xmlns:soap="${S11}" />`,
        ),
      );
      assert.match(b.text, /Missing required soap:Body element\.$/);
    });

    it('unparsable int: Client fault with the line and column after the element', async () => {
      const body = `<soap:Envelope xmlns:soap="${S11}">\n<soap:Body>\n<QueryHLRJobsByJobID xmlns="${GW}">\n  <JobID>abc</JobID>\n</QueryHLRJobsByJobID></soap:Body></soap:Envelope>`;
      const f = fault11(await post({ ...XML11, SOAPAction: `"${GW}QueryHLRJobsByJobID"` }, body));
      assert.deepEqual(f, {
        code: 'soap:Client',
        text: 'Server was unable to read request. ---> There is an error in XML document (4, 21). ---> Input string was not in a correct format.',
        detail: true,
      });
      assert.match(
        (await post({ ...XML11, SOAPAction: `"${GW}QueryHLRJobsByJobID"` }, body)).body,
        /---&gt; There is an error/,
      );
    });

    it('empty int and empty dateTime are unparsable too', async () => {
      const body = `<soap:Envelope xmlns:soap="${S11}"><soap:Body><QueryJobs xmlns="${GW}"><StartDate /></QueryJobs></soap:Body></soap:Envelope>`;
      const f = fault11(await post({ ...XML11, SOAPAction: `"${GW}QueryJobs"` }, body));
      assert.match(
        f.text,
        /^Server was unable to read request\. ---> There is an error in XML document \(1, \d+\)\. ---> The string '' is not a valid AllXsd value\.$/,
      );
    });

    it('bad enum value: Instance validation error', async () => {
      const body = `<soap:Envelope xmlns:soap="${S11}"><soap:Body><SendSMS xmlns="${GW}"><SmsTyp>Fast</SmsTyp></SendSMS></soap:Body></soap:Envelope>`;
      const f = fault11(await post({ ...XML11, SOAPAction: `"${GW}SendSMS"` }, body, '/gateway/Send.asmx'));
      assert.match(f.text, /---> Instance validation error: 'Fast' is not a valid value for SmsType\.$/);
    });

    it('SOAP 1.2 faults: Sender/Receiver, xml:lang="en", Detail, and the action messages', async () => {
      const env = `<soap:Envelope xmlns:soap="${S12}"><soap:Body><Nope xmlns="${GW}" /></soap:Body></soap:Envelope>`;
      const ct = 'application/soap+xml; charset=utf-8';
      const a = fault12(await post({ 'Content-Type': ct }, env));
      assert.deepEqual(a, {
        code: 'soap:Sender',
        text: 'Unable to handle request without a valid action parameter. Please supply a valid soap action.',
        lang: 'en',
        detail: true,
      });
      const b = fault12(await post({ 'Content-Type': `${ct}; action="urn:x"` }, env));
      assert.equal(b.text, "Unable to handle request. The action 'urn:x' was not recognized.");
      backend.failWith = new Error('Quantity must be positive.');
      const c = fault12(await post({ 'Content-Type': `${ct}; action="${GW}QueryAccountBalance"` }, env));
      assert.equal(c.code, 'soap:Receiver');
      assert.equal(c.text, 'Server was unable to process request. ---> Quantity must be positive.');
    });

    it('a backend that throws gives a Server fault', async () => {
      backend.failWith = new Error('database down');
      const f = fault11(await post({ ...XML11, SOAPAction: `"${GW}QueryAccountBalance"` }, balance11));
      assert.deepEqual(f, {
        code: 'soap:Server',
        text: 'Server was unable to process request. ---> database down',
        detail: true,
      });
    });

    it('mustUnderstand header: MustUnderstand fault without detail', async () => {
      const body = `<soap:Envelope xmlns:soap="${S11}"><soap:Header><Auth xmlns="urn:a" soap:mustUnderstand="1" /></soap:Header><soap:Body /></soap:Envelope>`;
      const f = fault11(await post({ ...XML11, SOAPAction: `"${GW}QueryAccountBalance"` }, body));
      assert.deepEqual(f, {
        code: 'soap:MustUnderstand',
        text: 'SOAP header Auth was not understood.',
        detail: false,
      });
    });

    it('body over maxBodyBytes: 413', async () => {
      const big = `<soap:Envelope xmlns:soap="${S11}"><soap:Body>${' '.repeat(70 * 1024)}</soap:Body></soap:Envelope>`;
      const res = await post({ ...XML11, SOAPAction: `"${GW}QueryAccountBalance"` }, big);
      assert.equal(res.status, 413);
    });

    it('DOCTYPE (billion laughs), excessive depth and huge attributes: 400, nothing expanded', async () => {
      const laughs =
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">' +
        '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>' +
        `<soap:Envelope xmlns:soap="${S11}"><soap:Body><QueryAccountBalance xmlns="${GW}"><User>&lol3;</User></QueryAccountBalance></soap:Body></soap:Envelope>`;
      const calls = backend.calls.length;
      const a = await post({ ...XML11, SOAPAction: `"${GW}QueryAccountBalance"` }, laughs);
      assert.deepEqual([a.status, a.body], [400, '']);
      const deep = `<soap:Envelope xmlns:soap="${S11}"><soap:Body>${'<a>'.repeat(40)}${'</a>'.repeat(40)}</soap:Body></soap:Envelope>`;
      assert.equal((await post({ ...XML11, SOAPAction: `"${GW}QueryAccountBalance"` }, deep)).status, 400);
      const wide = `<soap:Envelope xmlns:soap="${S11}" a="${'x'.repeat(20_000)}"><soap:Body /></soap:Envelope>`;
      assert.equal((await post({ ...XML11, SOAPAction: `"${GW}QueryAccountBalance"` }, wide)).status, 400);
      assert.equal(backend.calls.length, calls, 'no operation ran');
    });

    it('unknown path 404, other verbs on the .asmx 405', async () => {
      assert.equal((await http(emu.url, 'GET', '/nothing.asmx')).status, 404);
      assert.equal((await http(emu.url, 'PUT', '/gateway/Send.asmx', XML11, balance11)).status, 405);
    });
  });

  describe('HTTP GET/POST', () => {
    const textError = (res: HttpAnswer): string => {
      assert.equal(res.status, 500);
      assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
      return res.body;
    };

    it('missing parameter', async () => {
      const body = textError(
        await http(emu.url, 'GET', '/gateway/Information.asmx/QueryAccountBalance?User=demo'),
      );
      assert.equal(body, 'Missing parameter: Password.\r\n');
    });

    it('method name with the wrong case', async () => {
      const body = textError(
        await http(emu.url, 'GET', '/gateway/Information.asmx/queryaccountbalance?User=a&Password=b'),
      );
      assert.equal(
        body,
        'Invalid method name &#39;queryaccountbalance&#39;,  method names are case sensitive.   The method name &#39;QueryAccountBalance&#39; with the same name but different casing was found.\r\nParameter name: methodName\r\n',
      );
    });

    it('unknown method', async () => {
      const body = textError(
        await http(
          emu.url,
          'POST',
          '/gateway/Information.asmx/Nope',
          { 'Content-Type': 'application/x-www-form-urlencoded' },
          '',
        ),
      );
      assert.equal(body, 'Nope Web Service method name is not valid.\r\n');
    });

    it('value that cannot be converted', async () => {
      const body = textError(
        await http(
          emu.url,
          'GET',
          '/gateway/Information.asmx/QueryHLRJobsByJobID?User=a&Password=b&JobID=%3Cx%3E',
        ),
      );
      assert.equal(
        body,
        'Cannot convert &lt;x&gt; to System.Int32.\r\nParameter name: type ---> Input string was not in a correct format.\r\n',
      );
    });

    it('POST with a body that is not a form', async () => {
      const body = textError(
        await http(emu.url, 'POST', '/gateway/Information.asmx/QueryAccountBalance', XML11, '<x/>'),
      );
      assert.equal(body, 'Request format is invalid: text/xml; charset=utf-8.\r\n');
    });

    it('a backend that throws: its message', async () => {
      backend.failWith = new Error('boom <1>');
      const body = textError(
        await http(emu.url, 'GET', '/gateway/Information.asmx/QueryAccountBalance?User=a&Password=b'),
      );
      assert.equal(body, 'boom &lt;1&gt;\r\n');
    });
  });

  describe('switches', () => {
    it('GET and POST can be disabled: ASP.NET error page, operation not run', async () => {
      const off = await startEmulator({ backend, enableGet: false, enablePost: false });
      try {
        const calls = backend.calls.length;
        const get = await http(
          off.url,
          'GET',
          '/gateway/Information.asmx/QueryAccountBalance?User=demo&Password=secret',
        );
        assert.equal(get.status, 500);
        assert.match(String(get.headers['content-type']), /^text\/html/);
        assert.match(
          get.body,
          /Request format is unrecognized for URL unexpectedly ending in &#39;\/QueryAccountBalance&#39;\./,
        );
        const post2 = await http(
          off.url,
          'POST',
          '/gateway/Information.asmx/QueryAccountBalance',
          { 'Content-Type': 'application/x-www-form-urlencoded' },
          'User=demo&Password=secret',
        );
        assert.equal(post2.status, 500);
        assert.equal(backend.calls.length, calls);
        const wsdl = await http(off.url, 'GET', '/gateway/Information.asmx?wsdl');
        assert.ok(!wsdl.body.includes('HttpGet'), 'no HTTP GET binding in the WSDL');
      } finally {
        await off.close();
      }
    });

    it('verboseFaults gives the stack-trace form', async () => {
      const v = await startEmulator({ backend, verboseFaults: true });
      try {
        backend.failWith = new Error('database down');
        const f = fault11(
          await http(
            v.url,
            'POST',
            '/gateway/Information.asmx',
            { ...XML11, SOAPAction: `"${GW}QueryAccountBalance"` },
            balance11,
          ),
        );
        assert.match(
          f.text,
          /^System\.Web\.Services\.Protocols\.SoapException: Server was unable to process request\. ---> System\.Exception: database down\n {3}at /,
        );
        const g = await http(v.url, 'GET', '/gateway/Information.asmx/QueryAccountBalance?User=a');
        assert.match(
          g.body,
          /^System\.InvalidOperationException: Missing parameter: Password\.\r\n {3}at System\.Web\.Services/,
        );
      } finally {
        await v.close();
      }
    });
  });
});
