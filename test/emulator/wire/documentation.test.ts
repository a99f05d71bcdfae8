import { strict as assert } from 'node:assert';
import { startEmulator, type RunningEmulator } from '../../../src/emulator';
import { AspNetQuery } from '../../../src/emulator/wire/discovery';
import { FakeBackend } from './helpers/fake-backend';
import { http, type HttpAnswer } from './helpers/http';
import { parse } from './helpers/xml';

// The bare service path outside SOAP, as ASMX's protocol factories split it (asmx-wire §9.1): Soap, HttpPost,
// HttpPostLocalhost, HttpGet, Discovery, Documentation, asked in turn; the last answer stands.

const GW = 'https://gateway.smsgw.example/';
const SEND = '/gateway/Send.asmx';
const TEXT_XML = 'text/xml; charset=utf-8';
const HTML = 'text/html; charset=utf-8';

function isWsdl(res: HttpAnswer): void {
  assert.equal(res.status, 200, res.body);
  assert.equal(res.headers['content-type'], TEXT_XML);
  assert.match(res.body, /^<\?xml version="1.0" encoding="utf-8"\?>\n<wsdl:definitions /);
}

describe('emulator wire: Discovery and Documentation protocols', () => {
  let emu: RunningEmulator<FakeBackend>;
  let host: string;
  before(async () => {
    emu = await startEmulator({ backend: new FakeBackend() });
    host = new URL(emu.url).host;
  });
  after(() => emu.close());
  const get = (p: string): Promise<HttpAnswer> => http(emu.url, 'GET', p);

  it('?disco: the discovery document (text/xml), pointing at the WSDL and both SOAP bindings', async () => {
    for (const q of ['disco', 'DISCO', 'disco&x=1']) {
      const res = await get(`${SEND}?${q}`);
      assert.equal(res.status, 200, q);
      assert.equal(res.headers['content-type'], TEXT_XML);
      const loc = `http://${host}${SEND}`;
      assert.equal(
        res.body,
        [
          '<?xml version="1.0" encoding="utf-8"?>',
          '<discovery xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="http://schemas.xmlsoap.org/disco/">',
          `  <contractRef ref="${loc}?wsdl" docRef="${loc}" xmlns="http://schemas.xmlsoap.org/disco/scl/" />`,
          `  <soap address="${loc}" xmlns:q1="${GW}" binding="q1:SendSoap" xmlns="http://schemas.xmlsoap.org/disco/soap/" />`,
          `  <soap address="${loc}" xmlns:q2="${GW}" binding="q2:SendSoap12" xmlns="http://schemas.xmlsoap.org/disco/soap/" />`,
          '</discovery>',
        ].join('\r\n'),
      );
      parse(res.body); // well-formed
    }
    // the binding names are the WSDL's
    const wsdl = await get(`${SEND}?wsdl`);
    assert.match(wsdl.body, /<wsdl:binding name="SendSoap" /);
    assert.match(wsdl.body, /<wsdl:binding name="SendSoap12" /);
  });

  it('?wsdl with other parameters beside it is still the WSDL (QueryString[null] is "wsdl")', async () => {
    isWsdl(await get(`${SEND}?wsdl&x=1`));
    isWsdl(await get(`${SEND}?x=1&WSDL`));
    isWsdl(await get(`${SEND}?Wsdl`));
  });

  it('two bare words are one joined value: neither WSDL nor disco, the help page', async () => {
    for (const q of ['wsdl&disco', 'wsdl&', 'x']) {
      const res = await get(`${SEND}?${q}`);
      assert.equal(res.status, 200, q);
      assert.equal(res.headers['content-type'], HTML, q);
    }
  });

  it('?wsdl=<id>: 500 "XML Web service description was not found." (text/plain, the short and verbose forms)', async () => {
    for (const q of ['wsdl=wsdl0', 'WSDL=wsdl1', 'wsdl=']) {
      const res = await get(`${SEND}?${q}`);
      assert.equal(res.status, 500, q);
      assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(res.body, 'XML Web service description was not found.\r\n');
    }
    const verbose = await startEmulator({ backend: new FakeBackend(), verboseFaults: true });
    try {
      const res = await http(verbose.url, 'GET', `${SEND}?wsdl=wsdl0`);
      assert.match(
        res.body,
        /^System\.InvalidOperationException: XML Web service description was not found\.\r\n {3}at System\.Web\.Services\.Protocols\.DiscoveryServerProtocol\.WriteReturns\(/,
      );
    } finally {
      await verbose.close();
    }
  });

  it('HEAD on ?WSDL: 405 (the Discovery and Documentation protocols take GET only)', async () => {
    for (const p of [`${SEND}?WSDL`, `${SEND}?disco`, SEND]) {
      const res = await http(emu.url, 'HEAD', p);
      assert.equal(res.status, 405, p);
      assert.equal(res.headers['content-type'], HTML);
      assert.equal(res.body, '', 'no body for HEAD');
    }
  });

  it(
    'HEAD on an operation URL: 500 "Request format is unrecognized for URL unexpectedly ending in …", GET on' +
      ' or off',
    async () => {
      const res = await http(emu.url, 'HEAD', `${SEND}/SendSMS?User=demo`);
      assert.equal(res.status, 500);
      assert.equal(res.headers['content-type'], HTML);
      const put = await http(emu.url, 'PUT', `${SEND}/SendSMS`, { 'Content-Type': 'text/plain' }, 'x');
      assert.equal(put.status, 500);
      assert.match(
        put.body,
        /<title>Request format is unrecognized for URL unexpectedly ending in &#39;\/SendSMS&#39;\.<\/title>/,
      );
      assert.match(put.body, /System\.InvalidOperationException: Request format is unrecognized for URL/);
      assert.equal(emu.state.calls.length, 0, 'nothing ran');
    },
  );

  it('a path info of "/" alone is no operation URL either', async () => {
    const res = await get(`${SEND}/`);
    assert.equal(res.status, 500);
    assert.match(res.body, /unexpectedly ending in &#39;\/&#39;\./);
  });

  it("PUT (and DELETE) on the service: 405 with ASP.NET's HTML error page", async () => {
    for (const method of ['PUT', 'DELETE']) {
      const res =
        method === 'PUT'
          ? await http(emu.url, method, SEND, { 'Content-Type': TEXT_XML }, '<x/>')
          : await http(emu.url, method, SEND);
      assert.equal(res.status, 405, method);
      assert.equal(res.headers['content-type'], HTML);
      assert.match(res.body, /^<!DOCTYPE html>\r\n<html>/);
      assert.match(res.body, /<title>Request format is unrecognized\.<\/title>/);
      assert.match(res.body, /Server Error in '\/' Application\./);
      assert.match(res.body, /System\.Web\.HttpException: Request format is unrecognized\./);
    }
  });

  it('?op= still opens the operation page of the Documentation protocol', async () => {
    const res = await get(`${SEND}?op=SendSMS`);
    assert.equal(res.status, 200);
    assert.match(res.body, /SendSMS/);
  });

  describe('AspNetQuery reads a query as HttpValueCollection does', () => {
    it('bare parts are values of the null key, joined with ","; names ignore case; + and %xx decode', () => {
      const q = new AspNetQuery('wsdl&Op=Send%53MS&x=a+b&x=c&&');
      assert.equal(q.get(null), 'wsdl,,');
      assert.equal(q.get('op'), 'SendSMS');
      assert.equal(q.get('X'), 'a b,c');
      assert.equal(q.get('nope'), undefined);
      assert.equal(new AspNetQuery('').get(null), undefined);
      assert.equal(new AspNetQuery('bad%zz').get(null), 'bad%zz');
    });
  });

  describe('WSDL schemas as .NET writes them', () => {
    const schemaOpen = (wsdl: string, ns: string): string => {
      const m = new RegExp(`<s:schema [^>]*targetNamespace="${ns.replace(/[.]/g, '\\.')}">`).exec(wsdl);
      assert.ok(m, `schema ${ns}`);
      return m[0];
    };
    const schemaBody = (wsdl: string, ns: string): string => {
      const start = wsdl.indexOf(schemaOpen(wsdl, ns));
      return wsdl.slice(start, wsdl.indexOf('</s:schema>', start));
    };

    it('the AbstractTypes schema imports only the soapenc namespace (Send.asmx and soap/send.asmx)', async () => {
      for (const [p, ns] of [
        [SEND, `${GW}AbstractTypes`],
        ['/soap/send.asmx', `${GW}soap/AbstractTypes`],
      ] as const) {
        const wsdl = (await get(`${p}?WSDL`)).body;
        const abstract = schemaBody(wsdl, ns);
        const imports = [...abstract.matchAll(/<s:import namespace="([^"]+)" \/>/g)].map((m) => m[1]);
        assert.deepEqual(imports, ['http://schemas.xmlsoap.org/soap/encoding/'], p);
        assert.doesNotMatch(abstract, /wsdl:/, 'nothing of the WSDL namespace is used there');
      }
    });

    it('the encodedTypes schema of soap/send.asmx carries elementFormDefault="qualified"', async () => {
      const wsdl = (await get('/soap/send.asmx?WSDL')).body;
      assert.equal(
        schemaOpen(wsdl, `${GW}soap/encodedTypes`),
        `<s:schema elementFormDefault="qualified" targetNamespace="${GW}soap/encodedTypes">`,
      );
      // it still imports both namespaces: its arrays use wsdl:arrayType
      const encoded = schemaBody(wsdl, `${GW}soap/encodedTypes`);
      assert.match(encoded, /<s:import namespace="http:\/\/schemas.xmlsoap.org\/wsdl\/" \/>/);
    });
  });
});
