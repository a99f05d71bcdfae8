/**
 * client.invoke() against a fake gateway (127.0.0.1, port 0): an operation the catalogue does not know, SOAP
 * headers, a fault with detail, credentials, limits, timeouts and password masking.
 */
import assert from 'node:assert/strict';
import { GatewayClient, type Transport } from '../../src/client';
import { GatewayError } from '../../src/errors';
import { parse, path } from '../emulator/wire/helpers/xml';
import { fault11, reply, soapResult, Stub, wsdl } from './stub';

const NS = 'urn:other';
const PASSWORD = 'p&ss<wörd>';
const S11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const S12 = 'http://www.w3.org/2003/05/soap-envelope';

const rejection = (p: Promise<unknown>): Promise<GatewayError> =>
  p.then(
    (v) => assert.fail(`resolved with ${JSON.stringify(v)}`),
    (e: unknown) => {
      assert.ok(e instanceof GatewayError, String(e));
      return e;
    },
  );

describe('client.invoke() against a fake gateway', () => {
  let stub: Stub;
  let client: GatewayClient;
  const make = (transport: Transport = 'soap11', extra: Record<string, unknown> = {}): GatewayClient =>
    new GatewayClient({
      baseUrl: stub.url,
      user: 'acct',
      password: PASSWORD,
      transport,
      retries: 0,
      ...extra,
    });

  beforeEach(async () => {
    stub = await new Stub().start();
    client = make();
  });
  afterEach(async () => {
    await client.close();
    await stub.stop();
  });

  it('an operation the catalogue does not know: namespace from <path>?WSDL, no credentials unless named, typed answer', async () => {
    stub.handler = (req, res) => {
      if (req.url.endsWith('?WSDL')) return reply(res, 200, 'text/xml; charset=utf-8', wsdl(NS));
      reply(
        res,
        200,
        'text/xml; charset=utf-8',
        soapResult(
          'GetTariff',
          '<Zone>EU</Zone><Price>0.079</Price><Active>true</Active><Codes><int>49</int><int>43</int></Codes>',
          NS,
        ),
      );
    };
    const answer = await client.invoke(
      '/gateway/Tariff.asmx',
      'GetTariff',
      { Country: 'DE', When: new Date(0) },
      { typed: true },
    );
    assert.deepEqual(answer, { Zone: 'EU', Price: 0.079, Active: true, Codes: { int: [49, 43] } });
    const [wsdlReq, req] = stub.seen;
    assert.equal(wsdlReq?.url, '/gateway/Tariff.asmx?WSDL');
    assert.equal(req?.url, '/gateway/Tariff.asmx');
    assert.equal(req?.headers.soapaction, '"urn:other/GetTariff"');
    assert.equal(
      req?.body,
      '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">' +
        '<soap:Body><GetTariff xmlns="urn:other"><Country>DE</Country><When>1970-01-01T00:00:00Z</When></GetTariff></soap:Body></soap:Envelope>',
      'no credential parameters for an operation the catalogue does not know',
    );
    // Named: filled in from the client (the namespace is cached now: no second WSDL request).
    await client.invoke(
      '/gateway/Tariff.asmx',
      'GetTariff',
      {},
      { credentials: { user: 'Login', password: 'Secret' } },
    );
    assert.equal(stub.seen.length, 3);
    const body = parse(stub.seen[2]!.body);
    assert.equal(path(body, 'Body', 'GetTariff', 'Login')?.text, 'acct');
    assert.equal(path(body, 'Body', 'GetTariff', 'Secret')?.text, PASSWORD);
  });

  it('a known operation by service name or by its path: the catalogue credentials unless given, one namespace discovery', async () => {
    stub.handler = (req, res) => {
      if (req.url.endsWith('?WSDL')) return reply(res, 200, 'text/xml', wsdl('urn:gw/'));
      reply(
        res,
        200,
        'text/xml',
        soapResult('QueryAccountBalance', '<StatusCode>Ok</StatusCode><Value>12.5</Value>', 'urn:gw/'),
      );
    };
    assert.deepEqual(await client.invoke('information', 'QueryAccountBalance'), {
      StatusCode: 'Ok',
      Value: '12.5',
    });
    assert.deepEqual(
      await client.invoke('/gateway/Information.asmx', 'QueryAccountBalance', { User: 'other' }),
      {
        StatusCode: 'Ok',
        Value: '12.5',
      },
    );
    const bodies = stub.requests().map((r) => parse(r.body));
    assert.deepEqual(
      bodies.map((b) => [
        path(b, 'Body', 'QueryAccountBalance', 'User')?.text,
        path(b, 'Body', 'QueryAccountBalance', 'Password')?.text,
      ]),
      [
        ['acct', PASSWORD],
        ['other', PASSWORD],
      ],
    );
    assert.equal(
      stub.seen.filter((r) => r.url.endsWith('?WSDL')).length,
      1,
      'one discovery for both targets',
    );
    // credentials: false sends none.
    await client.invoke('information', 'QueryAccountBalance', {}, { credentials: false });
    assert.equal(
      path(parse(stub.requests().at(-1)!.body), 'Body', 'QueryAccountBalance')?.children.length,
      0,
    );
  });

  it('SOAP headers arrive as header blocks over SOAP 1.1 and 1.2; namespace and SOAPAction options are used as given', async () => {
    stub.handler = (_req, res) => reply(res, 200, 'text/xml', soapResult('Ping', 'pong', NS));
    await client.invoke(
      '/x/Svc.asmx',
      'Ping',
      { N: 1 },
      {
        namespace: NS,
        soapAction: 'urn:other#Ping',
        headers: { AuthHeader: { Token: 'tok-1' }, '{urn:trace}Trace': 'abc' },
      },
    );
    const v11 = stub.seen[0]!;
    assert.equal(v11.headers.soapaction, '"urn:other#Ping"');
    const header11 = path(parse(v11.body), 'Header');
    assert.equal(parse(v11.body).uri, S11);
    assert.deepEqual(
      header11?.children.map((c) => [
        c.uri,
        c.local,
        c.children.map((g) => [g.uri, g.local, g.text]),
        c.text,
      ]),
      [
        [NS, 'AuthHeader', [[NS, 'Token', 'tok-1']], ''],
        ['urn:trace', 'Trace', [], 'abc'],
      ],
    );
    const v12 = make('soap12');
    try {
      stub.handler = (_req, res) =>
        reply(res, 200, 'application/soap+xml', soapResult('Ping', 'pong', NS).replace(S11, S12));
      assert.equal(
        await v12.invoke(
          '/x/Svc.asmx',
          'Ping',
          {},
          { namespace: NS, headers: { AuthHeader: { Token: 't2' } } },
        ),
        'pong',
      );
      const req = stub.seen[1]!;
      assert.equal(
        req.headers['content-type'],
        'application/soap+xml; charset=utf-8; action="urn:other/Ping"',
      );
      assert.equal(req.headers.soapaction, undefined);
      assert.equal(path(parse(req.body), 'Header', 'AuthHeader', 'Token')?.text, 't2');
    } finally {
      await v12.close();
    }
    assert.equal(
      stub.seen.filter((r) => r.url.includes('?WSDL')).length,
      0,
      'options.namespace: no discovery',
    );
  });

  it('a fault: the same FAULT as on the typed path, with its detail; the password masked in message, detail and body', async () => {
    const detail = `<detail><Error xmlns="${NS}"><Code>E17</Code><Echo>${'p&amp;ss&lt;wörd&gt;'}</Echo></Error></detail>`;
    stub.handler = (_req, res) =>
      reply(
        res,
        500,
        'text/xml; charset=utf-8',
        fault11('soap:Client', 'bad login p&amp;ss&lt;wörd&gt;').replace('<detail />', detail),
      );
    const err = await rejection(client.invoke('/x/Svc.asmx', 'Login', {}, { namespace: NS }));
    assert.equal(err.code, 'FAULT');
    assert.equal(err.status, 'Client');
    assert.equal(err.httpStatus, 500);
    assert.equal(err.operation, 'Login');
    assert.equal(err.service, undefined);
    assert.equal(err.message, 'Login: bad login ********');
    assert.deepEqual(err.detail, { Error: { Code: 'E17', Echo: '********' } });
    assert.ok(!JSON.stringify(err).includes('wörd'), JSON.stringify(err));
    assert.deepEqual((err.toJSON() as { detail: unknown }).detail, err.detail);
    // The typed path maps the same answer to the same error (without detail).
    stub.handler = (req, res) =>
      req.url.includes('?WSDL')
        ? reply(res, 200, 'text/xml', wsdl(NS))
        : reply(res, 500, 'text/xml; charset=utf-8', fault11('soap:Client', 'bad login'));
    const typed = await rejection(client.information.queryAccountBalance());
    const generic = await rejection(client.invoke('information', 'QueryAccountBalance'));
    for (const k of [
      'code',
      'status',
      'httpStatus',
      'message',
      'service',
      'operation',
      'ambiguous',
    ] as const) {
      assert.equal(generic[k], typed[k], k);
    }
  });

  it('GET/POST errors, HTML pages and empty 400s map as on the typed path', async () => {
    const post = make('post', { gatewayNamespace: NS });
    try {
      const cases: [number, string | undefined, string, Partial<GatewayError>][] = [
        [
          500,
          'text/plain; charset=utf-8',
          'System.InvalidOperationException: Missing parameter: X.\r\n   at ...',
          {
            code: 'FAULT',
            status: 'System.InvalidOperationException',
            message: 'QueryAccountBalance: Missing parameter: X.',
          },
        ],
        [503, 'text/html', '<html>down</html>', { code: 'HTTP', httpStatus: 503 }],
        [400, undefined, '', { code: 'HTTP', httpStatus: 400 }],
        [
          200,
          'text/xml',
          '<?xml version="1.0"?><SOAPResponseOfDouble><Value>1</Value>',
          { code: 'PARSE', ambiguous: true },
        ],
      ];
      for (const [status, type, body, expected] of cases) {
        stub.handler = (_req, res) => reply(res, status, type, body);
        const typed = await rejection(post.information.queryAccountBalance());
        const generic = await rejection(post.invoke('information', 'QueryAccountBalance'));
        for (const [k, v] of Object.entries(expected))
          assert.equal(generic[k as keyof GatewayError], v, `${status} ${k}`);
        assert.equal(generic.code, typed.code);
        assert.equal(generic.httpStatus, typed.httpStatus);
        assert.equal(generic.ambiguous, typed.ambiguous);
      }
    } finally {
      await post.close();
    }
  });

  it('bad input is refused with VALIDATION before anything is sent', async () => {
    const get = make('get', { gatewayNamespace: NS });
    try {
      const cases: [Promise<unknown>, RegExp][] = [
        [client.invoke('nowhere' as never, 'Op'), /target must be/],
        [client.invoke('/a/../b.asmx', 'Op'), /target must be/],
        [client.invoke('/a?x=1' as never, 'Op'), /target must be/],
        [client.invoke('send', 'Send SMS'), /operation must be/],
        [client.invoke('send', 'SendSMS', 'text' as never), /params must be a plain object/],
        [client.invoke('send', 'SendSMS', { 'a b': 1 }, { namespace: NS }), /parameter name "a b"/],
        [client.invoke('send', 'SendSMS', {}, { style: 'x' as never }), /style must be/],
        [client.invoke('send', 'SendSMS', {}, { soapAction: 'a"b' }), /soapAction/],
        [client.invoke('send', 'SendSMS', {}, { credentials: { user: 'a b' } }), /credentials/],
        [get.invoke('send', 'SendSMS', {}, { headers: { H: 1 } }), /SOAP headers need a SOAP transport/],
        [get.invoke('send', 'SendSMS', { Nested: { a: 1 } }), /GET and POST carry only values/],
      ];
      for (const [p, message] of cases) {
        const err = await rejection(p);
        assert.equal(err.code, 'VALIDATION', err.message);
        assert.match(err.message, message);
        assert.equal(err.ambiguous, false);
      }
      assert.equal(stub.requests().length, 0, 'nothing was sent');
    } finally {
      await get.close();
    }
  });

  it('hostile answers over every transport: a DTD (billion laughs), an external entity, deep nesting refused with PARSE, nothing expanded', async () => {
    const laughs =
      '<!DOCTYPE lolz [<!ENTITY lol "lol">' +
      Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`).join(
        '',
      ) +
      ']>';
    const xxe = '<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>';
    // [what, prolog, result content, expected message]
    const answers: [string, string, string, RegExp][] = [
      ['billion laughs', laughs, '&lol9;', /DTD is prohibited/],
      ['external entity', xxe, '&xxe;', /DTD is prohibited/],
      [
        'deep nesting',
        '',
        `${'<a>'.repeat(5000)}x${'</a>'.repeat(5000)}`,
        /deeper than 64 levels \(maxDepth\)/,
      ],
    ];
    const document = (transport: Transport, prolog: string, inner: string): string => {
      const root =
        transport === 'get' || transport === 'post'
          ? `<double xmlns="${NS}">${inner}</double>`
          : `<soap:Envelope xmlns:soap="${transport === 'soap12' ? S12 : S11}"><soap:Body>` +
            `<QueryAccountBalanceResponse xmlns="${NS}"><QueryAccountBalanceResult>${inner}` +
            '</QueryAccountBalanceResult></QueryAccountBalanceResponse></soap:Body></soap:Envelope>';
      return `<?xml version="1.0" encoding="utf-8"?>${prolog}${root}`;
    };
    for (const transport of ['soap11', 'soap12', 'get', 'post'] as const) {
      const c = make(transport, { gatewayNamespace: NS });
      try {
        for (const [what, prolog, inner, message] of answers) {
          const type = transport === 'soap12' ? 'application/soap+xml' : 'text/xml';
          stub.handler = (_req, res) =>
            reply(res, 200, `${type}; charset=utf-8`, document(transport, prolog, inner));
          const err = await rejection(c.invoke('information', 'QueryAccountBalance'));
          assert.equal(err.code, 'PARSE', `${transport}, ${what}: ${err.message}`);
          assert.match(err.message, message, `${transport}, ${what}`);
          assert.equal(err.operation, 'QueryAccountBalance');
          assert.ok(!/lollol|root:/.test(err.message), err.message);
        }
      } finally {
        await c.close();
      }
    }
  });

  it('timeouts, the caller signal and a closed client as on the typed path', async () => {
    stub.handler = () => undefined; // never answers
    const slow = make('soap11', { gatewayNamespace: NS, timeoutMs: 150 });
    try {
      const t = await rejection(slow.invoke('information', 'QueryAccountBalance'));
      assert.equal(t.code, 'TIMEOUT');
      const ac = new AbortController();
      const p = slow.invoke('/x/Svc.asmx', 'Send', {}, { signal: ac.signal, timeoutMs: 0, namespace: NS });
      setTimeout(() => ac.abort(), 20);
      const a = await rejection(p);
      assert.equal(a.code, 'TIMEOUT');
      assert.match(a.message, /aborted by the caller/);
      assert.equal(a.ambiguous, true, 'an operation the catalogue does not know may have sent something');
    } finally {
      await slow.close();
    }
    const closed = await rejection(slow.invoke('information', 'QueryAccountBalance'));
    assert.equal(closed.code, 'CONFIG');
  });
});

describe('client.invoke(): loading', () => {
  it('the typed client does not load xmlbuilder2 and fast-xml-parser; the first invoke() does', async () => {
    const { execFileSync } = await import('node:child_process');
    const script = `
      const { GatewayClient } = require('./src/client');
      const loaded = () => Object.keys(require.cache).filter((k) => /node_modules\\/(xmlbuilder2|fast-xml-parser)\\//.test(k)).length > 0;
      const before = loaded();
      const c = new GatewayClient({ baseUrl: 'http://127.0.0.1:9', user: 'u', password: 'p', gatewayNamespace: 'urn:x', retries: 0 });
      c.invoke('information', 'QueryAccountBalance').catch(() => {
        console.log(JSON.stringify({ before, after: loaded() }));
        return c.close();
      });`;
    const out = execFileSync(process.execPath, ['-r', 'tsx/cjs', '-e', script], { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(out.trim()), { before: false, after: true });
  });
});
