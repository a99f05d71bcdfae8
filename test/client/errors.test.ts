import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { GatewayClient } from '../../src/client';
import { GatewayError } from '../../src/errors';
import { Stub, fault11, fault12, reply, soapResult } from './stub';

const PASSWORD = 'Pw&<sec> r+t/"ä"';
const BALANCE_OK = soapResult('QueryAccountBalance', '<StatusCode>Ok</StatusCode><Value>12.5</Value>');

async function rejection(p: Promise<unknown>): Promise<GatewayError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof GatewayError, `expected a GatewayError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected a rejection');
}

const sendParams = {
  Caption: 'c',
  Sender: 'me',
  Recipient: ['+491701234567'],
  SMSText: 'hello',
  SmsTyp: 'Standard' as const,
  SendDate: null,
};

describe('GatewayClient error mapping (stub server)', () => {
  let stub: Stub;
  let client: GatewayClient;
  const make = (extra: Partial<ConstructorParameters<typeof GatewayClient>[0]> = {}): GatewayClient =>
    new GatewayClient({
      baseUrl: stub.url,
      user: 'demo',
      password: PASSWORD,
      gatewayNamespace: 'urn:test',
      legacyNamespace: 'urn:legacy',
      retryDelayMs: 1,
      ...extra,
    });

  beforeEach(async () => {
    stub = await new Stub().start();
    // The mapping of one attempt: without a reference an ambiguous send is final (no lookup, no retry);
    // safe retries with the reference (the default) are tested in test/reliability.
    client = make({ reference: false });
  });
  afterEach(async () => {
    await client.close();
    await stub.stop();
  });

  it('decodes a 200 answer', async () => {
    stub.handler = (_r, res) => reply(res, 200, 'text/xml; charset=utf-8', BALANCE_OK);
    assert.equal(await client.information.queryAccountBalance(), 12.5);
    assert.deepEqual(await client.call('information', 'QueryAccountBalance'), {
      StatusCode: 'Ok',
      Value: 12.5,
    });
  });

  it('reports a 503 HTML page as HTTP, not ambiguous', async () => {
    stub.handler = (_r, res) =>
      reply(res, 503, 'text/html', '<html><body><h1>Service Unavailable</h1></body></html>');
    const err = await rejection(client.send.sendSms(sendParams));
    assert.equal(err.code, 'HTTP');
    assert.equal(err.httpStatus, 503);
    assert.equal(err.ambiguous, false);
    assert.match(err.body ?? '', /Service Unavailable/);
    assert.equal(err.operation, 'SendSMS');
    assert.equal(err.service, 'send');
  });

  it('never reports an HTML page with status 200 as success', async () => {
    stub.handler = (_r, res) =>
      reply(res, 200, 'text/html; charset=utf-8', '<html><body>Login</body></html>');
    const err = await rejection(client.call('information', 'QueryAccountBalance'));
    assert.equal(err.code, 'HTTP');
    assert.equal(err.httpStatus, 200);
  });

  for (const status of [400, 415]) {
    it(`reports an empty ${status} as HTTP`, async () => {
      stub.handler = (_r, res) => reply(res, status, undefined, '');
      const err = await rejection(client.call('information', 'QueryAccountBalance'));
      assert.equal(err.code, 'HTTP');
      assert.equal(err.httpStatus, status);
      assert.match(err.message, /empty body/);
    });
  }

  it('reports a SOAP 1.1 fault as FAULT with its text', async () => {
    stub.handler = (_r, res) =>
      reply(
        res,
        500,
        'text/xml; charset=utf-8',
        fault11('soap:Client', 'Server was unable to read request. ---&gt; boom'),
      );
    const err = await rejection(client.call('information', 'QueryAccountBalance'));
    assert.equal(err.code, 'FAULT');
    assert.equal(err.httpStatus, 500);
    assert.match(err.message, /unable to read request\. ---> boom/);
    assert.equal(err.ambiguous, false);
  });

  it('reports a SOAP 1.2 fault as FAULT', async () => {
    await client.close();
    client = make({ transport: 'soap12' });
    stub.handler = (_r, res) =>
      reply(
        res,
        500,
        'application/soap+xml; charset=utf-8',
        fault12('soap:Receiver', 'Server was unable to process request.'),
      );
    const err = await rejection(client.call('information', 'QueryAccountBalance'));
    assert.equal(err.code, 'FAULT');
    assert.match(err.message, /unable to process request/);
  });

  it('reports a GET text/plain error as FAULT with the (HTML-decoded) text', async () => {
    await client.close();
    client = make({ transport: 'get' });
    stub.handler = (_r, res) =>
      reply(
        res,
        500,
        'text/plain; charset=utf-8',
        'System.InvalidOperationException: Missing parameter: &lt;User&gt;.\r\n   at System.Web.Services.Protocols.X()\r\n',
      );
    const err = await rejection(client.call('information', 'QueryAccountBalance'));
    assert.equal(err.code, 'FAULT');
    assert.equal(err.status, 'System.InvalidOperationException');
    assert.match(err.message, /Missing parameter: <User>\./);
    assert.equal(stub.requests()[0]!.method, 'GET');
  });

  it('reports a truncated document as PARSE and ambiguous', async () => {
    stub.handler = (_r, res) =>
      reply(res, 200, 'text/xml; charset=utf-8', BALANCE_OK.slice(0, BALANCE_OK.length - 40));
    const err = await rejection(client.call('information', 'QueryAccountBalance'));
    assert.equal(err.code, 'PARSE');
    assert.equal(err.ambiguous, true);
  });

  it('reports a body cut short by the connection as NETWORK and ambiguous', async () => {
    stub.handler = (_r, res) => {
      res.writeHead(200, {
        'content-type': 'text/xml; charset=utf-8',
        'content-length': String(BALANCE_OK.length),
      });
      res.write(BALANCE_OK.slice(0, 100));
      setTimeout(() => res.socket?.destroy(), 20);
    };
    const err = await rejection(client.send.sendSms(sendParams));
    assert.equal(err.code, 'NETWORK');
    assert.equal(err.ambiguous, true);
    assert.equal(stub.requests().length, 1, 'a send is never repeated');
  });

  it('reports a reset after the request as ambiguous and never retries a send', async () => {
    stub.handler = (_r, res) => res.socket?.destroy();
    const err = await rejection(client.send.sendSms(sendParams));
    assert.equal(err.code, 'NETWORK');
    assert.equal(err.ambiguous, true);
    assert.equal(stub.requests().length, 1);
  });

  it('never retries CreateCustomer (it creates a record)', async () => {
    stub.handler = (_r, res) => res.socket?.destroy();
    const err = await rejection(client.customer.createCustomer({ CompanyName: 'x' }));
    assert.equal(err.code, 'NETWORK');
    assert.equal(stub.requests().length, 1);
  });

  it('retries read-only calls after a reset (2 retries by default)', async () => {
    stub.handler = (_r, res) => res.socket?.destroy();
    const err = await rejection(client.information.queryAccountBalance());
    assert.equal(err.code, 'NETWORK');
    assert.equal(stub.requests().length, 3);
    let n = 0;
    stub.handler = (_r, res) =>
      n++ === 0 ? res.socket?.destroy() : reply(res, 200, 'text/xml; charset=utf-8', BALANCE_OK);
    assert.equal(await client.information.queryAccountBalance(), 12.5);
  });

  for (const [name, call] of [
    ['QueryReceivedNewSMS', (c: GatewayClient) => c.information.queryReceivedNewSms()],
    ['QueryNewHLRJobs', (c: GatewayClient) => c.information.queryNewHlrJobs({ Limit: 0 })],
    ['GetNewRecivedSMS2', (c: GatewayClient) => c.legacy.getNewRecivedSms2()],
  ] as const) {
    it(`never repeats a read that collects (${name}) after a reset: the lost answer is reported ambiguous`, async () => {
      // A repeat would answer "nothing new": what the first attempt collected would be lost without a word.
      stub.handler = (_r, res) => res.socket?.destroy();
      const err = await rejection(call(client));
      assert.equal(err.code, 'NETWORK');
      assert.equal(err.ambiguous, true);
      assert.equal(stub.requests().length, 1);
    });
  }

  it('a read that collects whose connection was refused is not ambiguous (nothing was collected)', async () => {
    const url = stub.url;
    await stub.stop();
    const c = make({ baseUrl: url });
    try {
      const err = await rejection(c.information.queryReceivedNewSms());
      assert.equal(err.code, 'NETWORK');
      assert.equal(err.ambiguous, false, 'connection refused');
    } finally {
      await c.close();
    }
  });

  it('reports a refused connection as NETWORK, not ambiguous', async () => {
    const url = stub.url;
    await stub.stop();
    const c = new GatewayClient({
      baseUrl: url,
      user: 'u',
      password: PASSWORD,
      gatewayNamespace: 'urn:test',
      retries: 0,
    });
    try {
      const err = await rejection(c.send.sendSms(sendParams));
      assert.equal(err.code, 'NETWORK');
      assert.equal(err.ambiguous, false);
      assert.match(err.message, /ECONNREFUSED/);
    } finally {
      await c.close();
    }
  });

  it('a refused connection before the namespace is known reads as any other (the WSDL read is not named)', async () => {
    const url = stub.url;
    await stub.stop();
    const c = new GatewayClient({ baseUrl: url, user: 'u', password: PASSWORD, retries: 0 });
    try {
      const err = await rejection(c.send.sendSms(sendParams));
      assert.equal(err.code, 'NETWORK');
      assert.equal(err.operation, 'SendSMS');
      assert.match(err.message, /^SendSMS: could not send the request: connect ECONNREFUSED /);
      assert.doesNotMatch(err.message, /WSDL|asmx/i);
    } finally {
      await c.close();
    }
  });

  it('times out as TIMEOUT (ambiguous once the request was out)', async () => {
    stub.handler = () => {}; // never answers
    const err = await rejection(client.send.sendSms(sendParams, { timeoutMs: 150 }));
    assert.equal(err.code, 'TIMEOUT');
    assert.equal(err.ambiguous, true);
    assert.match(err.message, /in time/);
  });

  it('stops at the caller signal', async () => {
    stub.handler = () => {};
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const err = await rejection(client.information.queryAccountBalance({}, { signal: ac.signal }));
    assert.equal(err.code, 'TIMEOUT');
    assert.match(err.message, /aborted by the caller/);
    const early = await rejection(
      client.information.queryAccountBalance({}, { signal: AbortSignal.abort() }),
    );
    assert.equal(early.ambiguous, false);
  });

  describe('password redaction', () => {
    const forms = [
      PASSWORD,
      encodeURIComponent(PASSWORD),
      new URLSearchParams({ p: PASSWORD }).toString().slice(2),
      'Pw&amp;&lt;sec&gt; r+t/',
    ];
    const assertClean = (err: GatewayError): void => {
      const texts = [
        err.message,
        err.body ?? '',
        err.status ?? '',
        JSON.stringify(err),
        inspect(err, { depth: 5 }),
        String(err.stack),
      ];
      for (const t of texts)
        for (const f of forms) assert.ok(!t.includes(f), `secret form ${f} leaked in: ${t}`);
      assert.ok(texts.join('').includes('********'), 'the secret was masked, not dropped silently');
    };

    it('removes the password echoed in a GET text/plain error (URL-encoded in the URL)', async () => {
      await client.close();
      client = make({ transport: 'get' });
      stub.handler = (r, res) =>
        reply(res, 500, 'text/plain', `System.ArgumentException: Cannot convert ${r.url}\r\n`);
      const err = await rejection(client.call('information', 'QueryAccountBalance'));
      assert.ok(stub.requests()[0]!.url.includes(encodeURIComponent(PASSWORD).slice(0, 6)));
      assertClean(err);
    });

    it('removes the password echoed in a SOAP fault (XML-escaped) and in a POST form echo', async () => {
      stub.handler = (r, res) => {
        const pw = /<Password>([^<]*)<\/Password>/.exec(r.body)?.[1] ?? '';
        reply(res, 500, 'text/xml; charset=utf-8', fault11('soap:Server', `bad password ${pw}`));
      };
      assertClean(await rejection(client.call('information', 'QueryAccountBalance')));
      await client.close();
      client = make({ transport: 'post' });
      stub.handler = (r, res) => reply(res, 503, 'text/plain', `rejected form ${r.body}`);
      assertClean(await rejection(client.call('information', 'QueryAccountBalance')));
    });

    it('also masks a password passed as a parameter of the call', async () => {
      const other = 'Other&Secret 99';
      stub.handler = (r, res) =>
        reply(res, 500, 'text/xml', fault11('soap:Server', `echo ${r.body.replace(/</g, '&lt;')}`));
      const err = await rejection(client.customer.getCustomerList({ Password: other }));
      assert.ok(stub.requests()[0]!.body.includes('Other&amp;Secret 99'));
      for (const t of [err.message, JSON.stringify(err), inspect(err)]) {
        assert.ok(!t.includes('Other&amp;Secret') && !t.includes(other), t);
      }
    });

    it('masks a password the fault writes with character references or percent-encoding (any case, any bytes)', async () => {
      await client.close();
      client = make({ password: 'Grüße' });
      const spellings = [
        'Gr&amp;#xFC;&amp;#xDF;e', // the faultstring holds "Gr&#xFC;&#xDF;e"
        'Gr&#xFC;&#xDF;e', // references the XML decoder reads: "Grüße"
        'Gr&amp;#252;&amp;#223;e',
        'Gr%C3%BC%C3%9Fe',
        'Gr%c3%bc%c3%9fe',
        '%47r%C3%BC%C3%9F%65', // plain letters escaped too
        'Gr%FC%DFe', // Latin-1
        'Gr&amp;#x00fc;%C3%9Fe', // mixed
      ];
      stub.handler = (_r, res) =>
        reply(res, 500, 'text/xml', fault11('soap:Server', `bad password ${spellings.join(' / ')}`));
      const err = await rejection(client.call('information', 'QueryAccountBalance'));
      for (const t of [err.message, JSON.stringify(err), inspect(err, { depth: 5 })]) {
        assert.ok(!/Gr(?:ü|&|%)|%47r/i.test(t), `a spelling of the password leaked in: ${t}`);
      }
      assert.equal(err.message.split('********').length - 1, spellings.length, err.message);
    });

    it('masks a one-character password as a whole value only, never inside words', async () => {
      await client.close();
      client = make({ password: 'p', transport: 'get' });
      stub.handler = (r, res) =>
        reply(res, 500, 'text/plain', `response to soapaction ${r.url}: password p is wrong (Password=%70)`);
      const err = await rejection(client.call('information', 'QueryAccountBalance'));
      assert.match(err.message, /response to soapaction /);
      assert.doesNotMatch(err.message, /res\*|soa\*/);
      assert.match(err.message, /\?User=demo&Password=\*{8}: /);
      assert.match(err.message, /password \*{8} is wrong \(Password=\*{8}\)/);
    });

    it('removes the password from a parse error excerpt', async () => {
      stub.handler = (r, res) => reply(res, 200, 'text/xml', `<notxml ${r.body}`);
      assertClean(await rejection(client.call('information', 'QueryAccountBalance')));
    });
  });
});
