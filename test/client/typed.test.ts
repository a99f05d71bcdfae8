import assert from 'node:assert/strict';
import { OPERATIONS } from '../../src/catalogue';
import { GatewayClient, methodName } from '../../src/client';
import { GatewayError } from '../../src/errors';
import { Stub, reply, soapResult, wsdl } from './stub';

async function rejection(p: Promise<unknown>): Promise<GatewayError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof GatewayError, `expected a GatewayError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected a rejection');
}

const send = {
  Caption: 'c',
  Sender: 'me',
  Recipient: ['+491701234567'],
  SMSText: 'hello',
  SmsTyp: 'Standard' as const,
  SendDate: new Date('2026-11-22T10:00:00Z'),
};
const created = (status: string, id = 17): string =>
  soapResult(
    'SendSMS',
    `<StatusCode>Ok</StatusCode><Value><Status>${status}</Status><JobId>${id}</JobId></Value>`,
  );
const legacy = (op: string, text: string): string => soapResult(op, text, 'urn:legacy');

describe('GatewayClient typed methods (stub server)', () => {
  let stub: Stub;
  let client: GatewayClient;

  beforeEach(async () => {
    stub = await new Stub().start();
    client = new GatewayClient({
      baseUrl: stub.url,
      user: 'demo',
      password: 'pw',
      gatewayNamespace: 'urn:test',
      legacyNamespace: 'urn:legacy',
    });
  });
  afterEach(async () => {
    await client.close();
    await stub.stop();
  });

  const answer = (body: string): void => {
    stub.handler = (_r, res) => reply(res, 200, 'text/xml; charset=utf-8', body);
  };

  it('resolves a send with the Value and queued: false', async () => {
    answer(created('Ok', 42));
    assert.deepEqual(await client.send.sendSms(send), { Status: 'Ok', JobId: 42, queued: false });
    const seen = stub.requests()[0]!;
    assert.equal(seen.headers.soapaction, '"urn:test/SendSMS"');
    assert.match(seen.body, /<User>demo<\/User><Password>pw<\/Password>/);
    assert.match(seen.body, /<Recipient><string>\+491701234567<\/string><\/Recipient>/);
  });

  it('resolves JobIsQueuedInsufficientCredits with the JobId and queued: true', async () => {
    answer(created('JobIsQueuedInsufficientCredits', 43));
    assert.deepEqual(await client.send.sendSms(send), {
      Status: 'JobIsQueuedInsufficientCredits',
      JobId: 43,
      queued: true,
    });
  });

  it('turns a failing CreateStatus into REJECTED with the status, but call() returns it as is', async () => {
    answer(created('NoRecipientFound', 0));
    const err = await rejection(client.send.sendSms(send));
    assert.equal(err.code, 'REJECTED');
    assert.equal(err.status, 'NoRecipientFound');
    assert.equal(err.ambiguous, false);
    const raw = await client.call('send', 'SendSMS', send);
    assert.deepEqual(raw, { StatusCode: 'Ok', Value: { Status: 'NoRecipientFound', JobId: 0 } });
  });

  it('turns a LoginStatus other than Ok into AUTH', async () => {
    answer(soapResult('SendSMS', '<StatusCode>InvalidUser</StatusCode>'));
    const err = await rejection(client.send.sendSms(send));
    assert.equal(err.code, 'AUTH');
    assert.equal(err.status, 'InvalidUser');
  });

  it('turns JobNotFound into REJECTED', async () => {
    answer(
      soapResult(
        'QueryJobInfoByJobCaption',
        '<StatusCode>Ok</StatusCode><Value><Report /><Log /><Received /><Status>JobNotFound</Status></Value>',
      ),
    );
    const err = await rejection(client.information.queryJobInfoByJobCaption({ Caption: 'x' }));
    assert.equal(err.code, 'REJECTED');
    assert.equal(err.status, 'JobNotFound');
  });

  it('turns ParseStatus and CustomerStatus failures into REJECTED', async () => {
    answer(
      soapResult(
        'SendUDH',
        '<StatusCode>Ok</StatusCode><Value><ParseStatus>MMSInvalidData</ParseStatus></Value>',
      ),
    );
    const udh = { Caption: 'c', Recipient: '+49170', Sender: 's', Data: 'AA', SendDate: '' };
    assert.equal((await rejection(client.send.sendUdh(udh))).status, 'MMSInvalidData');
    answer(
      soapResult(
        'CreateCustomer',
        '<StatusCode>Ok</StatusCode><Value><Status>PasswordToShort</Status></Value>',
      ),
    );
    assert.equal(
      (await rejection(client.customer.createCustomer({ CompanyName: 'x' }))).status,
      'PasswordToShort',
    );
  });

  it('resolves an absent list Value as an empty list', async () => {
    answer(soapResult('QueryReceivedNewSMS', '<StatusCode>Ok</StatusCode>'));
    assert.deepEqual(await client.information.queryReceivedNewSms(), []);
  });

  it('turns a legacy "Error ..." string into REJECTED and parses OK results', async () => {
    answer(legacy('SendText', 'Error invalid recipient'));
    const p = { Caption: 'c', Sender: 's', Recipient: '+49170', SMSText: 't', SmsTyp: '1', SendDate: '' };
    const err = await rejection(client.legacy.sendText(p));
    assert.equal(err.code, 'REJECTED');
    assert.match(err.status ?? '', /^Error invalid recipient/);
    answer(legacy('SendText', 'OK 123'));
    const ok = await client.legacy.sendText(p);
    assert.equal(ok.ok, true);
    assert.equal(ok.queued, false);
    assert.equal(ok.raw, 'OK 123');
  });

  it('discovers the namespace once for many concurrent first calls', async () => {
    const c = new GatewayClient({ baseUrl: stub.url, user: 'demo', password: 'pw' });
    try {
      stub.handler = (r, res) => {
        if (r.url.endsWith('?WSDL'))
          setTimeout(() => reply(res, 200, 'text/xml; charset=utf-8', wsdl('urn:found/')), 30);
        else
          reply(
            res,
            200,
            'text/xml',
            soapResult('QueryAccountBalance', '<StatusCode>Ok</StatusCode><Value>1</Value>', 'urn:found/'),
          );
      };
      const all = await Promise.all(Array.from({ length: 10 }, () => c.information.queryAccountBalance()));
      assert.deepEqual(all, Array(10).fill(1));
      const wsdlFetches = stub.seen.filter((r) => r.url.endsWith('?WSDL'));
      assert.deepEqual(
        wsdlFetches.map((r) => r.url),
        ['/gateway/Information.asmx?WSDL'],
      );
      assert.ok(stub.requests().every((r) => r.headers.soapaction === '"urn:found/QueryAccountBalance"'));
    } finally {
      await c.close();
    }
  });

  it('close() ends a namespace discovery that hangs, and the waiting call rejects', async () => {
    const c = new GatewayClient({ baseUrl: stub.url, user: 'demo', password: 'pw', timeoutMs: 60_000 });
    stub.handler = () => undefined; // the WSDL never comes
    const pending = rejection(c.information.queryAccountBalance());
    while (!stub.seen.some((r) => r.url.endsWith('?WSDL'))) await new Promise((r) => setTimeout(r, 5));
    const closed = c.close().then(() => 'closed');
    const first = await Promise.race([
      closed,
      new Promise((r) => setTimeout(() => r('still waiting'), 5_000)),
    ]);
    assert.equal(first, 'closed');
    const err = await pending;
    assert.equal(err.operation, 'QueryAccountBalance');
    assert.ok(!err.message.includes('pw'));
  });

  it('forgets a failed discovery and tries again', async () => {
    const c = new GatewayClient({ baseUrl: stub.url, user: 'demo', password: 'pw' });
    try {
      stub.handler = (_r, res) => reply(res, 404, 'text/plain', 'nope');
      const err = await rejection(c.information.queryAccountBalance());
      assert.equal(err.code, 'HTTP');
      assert.equal(err.operation, 'QueryAccountBalance');
      assert.match(err.message, /WSDL \/gateway\/Information\.asmx: HTTP 404/);
      stub.handler = (r, res) =>
        r.url.endsWith('?WSDL')
          ? reply(res, 200, 'text/xml', wsdl('urn:x'))
          : reply(
              res,
              200,
              'text/xml',
              soapResult('QueryAccountBalance', '<StatusCode>Ok</StatusCode><Value>2</Value>', 'urn:x'),
            );
      assert.equal(await c.information.queryAccountBalance(), 2);
    } finally {
      await c.close();
    }
  });
});

describe('GatewayClient validation and configuration', () => {
  let stub: Stub;
  let client: GatewayClient;
  beforeEach(async () => {
    stub = await new Stub().start();
    client = new GatewayClient({
      baseUrl: stub.url,
      user: 'u',
      password: 'secret-pw',
      gatewayNamespace: 'urn:t',
      maxRecipients: 3,
    });
  });
  afterEach(async () => {
    await client.close();
    await stub.stop();
  });

  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['missing recipient', { ...send, Recipient: [] }, /missing recipient/],
    ['blank recipient', { ...send, Recipient: [' '] }, /missing recipient/],
    ['empty text', { ...send, SMSText: '' }, /empty text/],
    ['bad type', { ...send, Caption: { x: 1 } }, /Caption/],
    ['list too long', { ...send, Recipient: ['1', '2', '3', '4'] }, /too many recipients: 4 \(at most 3\)/],
    ['invalid date', { ...send, SendDate: new Date('nope') }, /SendDate/],
    ['invalid date text', { ...send, SendDate: '2026-13-45Tx' }, /SendDate/],
    ['enum not allowed', { ...send, SmsTyp: 'Fast' }, /SmsTyp/],
    [
      'unknown parameter',
      { ...send, recipient: ['1'] },
      /unknown parameter recipient \(did you mean Recipient\?\)/,
    ],
  ];
  for (const [name, params, re] of cases) {
    it(`refuses ${name} before sending`, async () => {
      const err = await rejection(client.call('send', 'SendSMS', params as never));
      assert.equal(err.code, 'VALIDATION');
      assert.equal(err.ambiguous, false);
      assert.match(err.message, re);
      assert.equal(stub.seen.length, 0, 'nothing was sent');
    });
  }

  it('refuses a MobileSMSType outside HighQuality/HighQualityLong and a Limit above 5000', async () => {
    const m = {
      Caption: 'c',
      Sender: 's',
      Recipient: '1',
      SMSText: 't',
      SendDate: '',
      MobileSMSType: 'Flash',
    };
    assert.equal(
      (await rejection(client.call('send', 'SendMobileOrFixlineSMS', m as never))).code,
      'VALIDATION',
    );
    const l = { StartDate: new Date(), Limit: 5001 };
    assert.match((await rejection(client.information.queryReceivedDlr(l))).message, /at most 5000/);
    assert.equal(stub.seen.length, 0);
  });

  it('refuses GET/POST over plain http to a remote host, but not to loopback', () => {
    for (const transport of ['get', 'post'] as const) {
      assert.throws(
        () =>
          new GatewayClient({ baseUrl: 'http://gateway.example.com', user: 'u', password: 'p', transport }),
        (e: unknown) =>
          e instanceof GatewayError && e.code === 'CONFIG' && /allowInsecureCredentials/.test(e.message),
      );
      const ok = [
        { baseUrl: 'http://gateway.example.com', allowInsecureCredentials: true },
        { baseUrl: 'https://gateway.example.com' },
        { baseUrl: 'http://127.0.0.1:1' },
        { baseUrl: 'http://localhost:1' },
        { baseUrl: 'http://[::1]:1' },
      ];
      for (const o of ok) void new GatewayClient({ user: 'u', password: 'p', transport, ...o }).close();
    }
    assert.throws(() => new GatewayClient({ baseUrl: 'ftp://x', user: 'u', password: 'p' }), /http/);
    assert.throws(() => new GatewayClient({ baseUrl: 'nope', user: 'u', password: 'p' }), /valid URL/);
    assert.throws(
      () =>
        new GatewayClient({ baseUrl: 'http://127.0.0.1', user: 'u', password: 'p', transport: 'x' as never }),
    );
  });

  it('rejects calls after close with CONFIG', async () => {
    await client.close();
    assert.equal((await rejection(client.information.queryAccountBalance())).code, 'CONFIG');
  });

  it('offers one typed method per catalogue operation', async () => {
    for (const op of OPERATIONS) {
      const group = client[op.service] as unknown as Record<string, unknown>;
      assert.equal(typeof group[methodName(op)], 'function', `${op.service}.${methodName(op)}`);
    }
    for (const service of ['information', 'send', 'customer', 'legacy'] as const) {
      const names = OPERATIONS.filter((o) => o.service === service).map(methodName);
      assert.equal(new Set(names).size, names.length, `method names clash in ${service}`);
      assert.equal(Object.keys(client[service]).length, names.length);
    }
    assert.equal(methodName('SendSMS'), 'sendSms');
    assert.equal(methodName('QueryHLRJobsByJobID'), 'queryHlrJobsByJobId');
    assert.equal(methodName('SMSCR'), 'smscr');
  });
});
