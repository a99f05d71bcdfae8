import { strict as assert } from 'node:assert';
import { startEmulator, type RunningEmulator } from '../../../src/emulator';
import { maskSecrets } from '../../../src/emulator/wire/request-log';
import { FakeBackend } from './helpers/fake-backend';
import { http } from './helpers/http';

// /_emulator/...: JSON in and out, each endpoint reaching the EmulatorControl method behind it.

const json = { 'Content-Type': 'application/json' };

describe('emulator wire: control API', () => {
  let emu: RunningEmulator<FakeBackend>;
  const backend = new FakeBackend();
  before(async () => {
    emu = await startEmulator({ backend });
  });
  after(() => emu.close());

  const call = async (
    method: string,
    p: string,
    body?: unknown,
  ): Promise<{ status: number; json: unknown }> => {
    const res = await http(emu.url, method, p, json, body === undefined ? undefined : JSON.stringify(body));
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    return { status: res.status, json: JSON.parse(res.body) };
  };

  it('health and state', async () => {
    const h = await call('GET', '/_emulator/health');
    assert.equal(h.status, 200);
    assert.equal((h.json as { ok: boolean }).ok, true);
    const s = await call('GET', '/_emulator/state');
    assert.deepEqual((s.json as { accounts: unknown }).accounts, [
      { user: 'demo', balance: backend.balance },
    ]);
  });

  it('each POST endpoint calls its control method', async () => {
    backend.controlCalls.length = 0;
    assert.deepEqual(
      (
        await call('POST', '/_emulator/inbound', {
          from: '+491701',
          text: 'hi',
          jobId: 3,
          date: '2026-11-22T10:00:00Z',
        })
      ).json,
      { id: 7 },
    );
    await call('POST', '/_emulator/inbound', { from: '+491702', text: 'status', report: true });
    await call('POST', '/_emulator/advance', { ms: 5000 });
    assert.deepEqual((await call('POST', '/_emulator/finish')).json, { finished: 3 });
    await call('POST', '/_emulator/balance', { user: 'demo', balance: 12.5 });
    await call('POST', '/_emulator/lock', { user: 'demo', locked: true });
    await call('POST', '/_emulator/iplock', { user: 'demo', addresses: ['10.0.0.1'] });
    await call('POST', '/_emulator/iplock', { user: 'demo', addresses: null });
    await call('POST', '/_emulator/subscriber', { number: '+491701', state: 'unreachable' });
    assert.deepEqual((await call('GET', '/_emulator/caption-match')).json, { mode: 'exact' });
    assert.deepEqual((await call('POST', '/_emulator/caption-match', { mode: 'prefix' })).json, {
      mode: 'prefix',
    });
    assert.deepEqual((await call('GET', '/_emulator/caption-match')).json, { mode: 'prefix' });
    assert.deepEqual(backend.controlCalls, [
      ['injectInbound', { from: '+491701', text: 'hi', jobId: 3, date: new Date('2026-11-22T10:00:00Z') }],
      ['injectInbound', { from: '+491702', text: 'status', report: true }],
      ['advance', 5000],
      ['finishJobs'],
      ['setBalance', 'demo', 12.5],
      ['lockAccount', 'demo', true],
      ['setIpAllowList', 'demo', ['10.0.0.1']],
      ['setIpAllowList', 'demo', null],
      ['setSubscriberState', '+491701', 'unreachable'],
      ['setCaptionMatch', 'prefix'],
    ]);
  });

  it('rejects bad input with 400 and a message, unknown endpoints with 404', async () => {
    for (const [p, body] of [
      ['/_emulator/advance', { ms: 'soon' }],
      ['/_emulator/balance', { user: 'demo' }],
      ['/_emulator/lock', { user: 'demo', locked: 'yes' }],
      ['/_emulator/subscriber', { number: '1', state: 'gone' }],
      ['/_emulator/inbound', { text: 'no sender' }],
      ['/_emulator/inbound', { from: '+491701', text: 'x', report: 1 }],
      ['/_emulator/caption-match', { mode: 'substring' }],
    ] as const) {
      const r = await call('POST', p, body);
      assert.equal(r.status, 400, p);
      assert.equal(typeof (r.json as { error: string }).error, 'string');
    }
    const bad = await http(emu.url, 'POST', '/_emulator/advance', json, '{not json');
    assert.equal(bad.status, 400);
    assert.equal((await call('GET', '/_emulator/nothing')).status, 404);
  });

  it('hands requests to the sandbox console first: page at /, control API guarded by Host', async () => {
    const page = await http(emu.url, 'GET', '/');
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    const foreign = await http(emu.url, 'GET', '/_emulator/health', { Host: 'evil.example' });
    assert.equal(foreign.status, 403);
    const off = await startEmulator({ backend, console: false });
    try {
      assert.equal((await http(off.url, 'GET', '/')).status, 404);
      assert.equal(off.sandboxConsole, undefined);
    } finally {
      await off.close();
    }
  });

  it('request log: operation, transport, status, duration, and the password masked everywhere', async () => {
    await call('DELETE', '/_emulator/requests');
    const env = `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><QueryAccountBalance xmlns="https://gateway.smsgw.example/"><User>demo</User><Password>secret</Password></QueryAccountBalance></soap:Body></soap:Envelope>`;
    await http(
      emu.url,
      'POST',
      '/gateway/Information.asmx',
      {
        'Content-Type': 'text/xml; charset=utf-8',
        SOAPAction: '"https://gateway.smsgw.example/QueryAccountBalance"',
      },
      env,
    );
    await http(emu.url, 'GET', '/gateway/Information.asmx/QueryAccountBalance?User=demo&Password=secret');
    await http(
      emu.url,
      'POST',
      '/soap/send.asmx/QueryBalance2',
      { 'Content-Type': 'application/x-www-form-urlencoded' },
      'User=demo&password=secret',
    );
    const log = (await call('GET', '/_emulator/requests')).json as {
      requests: Array<Record<string, unknown>>;
    };
    assert.deepEqual(
      log.requests.map((e) => [e.operation, e.service, e.transport, e.status]),
      [
        ['QueryAccountBalance', 'information', 'soap11', 200],
        ['QueryAccountBalance', 'information', 'get', 200],
        ['QueryBalance2', 'legacy', 'post', 200],
      ],
    );
    for (const e of log.requests) {
      assert.equal(typeof e.durationMs, 'number');
      assert.ok(!JSON.stringify(e).includes('secret'), 'password masked');
      assert.match(String(e.request), /\*\*\*/);
    }
    assert.match(String(log.requests[0]?.response), /<Value>/);
  });

  it('the request log of a SOAP request whose Password holds a comment shows no part of the password', async () => {
    await call('DELETE', '/_emulator/requests');
    const env = `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><QueryAccountBalance xmlns="https://gateway.smsgw.example/"><User>demo</User><Password>demo-<!-- why not -->password</Password></QueryAccountBalance></soap:Body></soap:Envelope>`;
    await http(
      emu.url,
      'POST',
      '/gateway/Information.asmx',
      {
        'Content-Type': 'text/xml; charset=utf-8',
        SOAPAction: '"https://gateway.smsgw.example/QueryAccountBalance"',
      },
      env,
    );
    const log = (await call('GET', '/_emulator/requests')).json as {
      requests: Array<Record<string, unknown>>;
    };
    assert.equal(log.requests.length, 1);
    const request = String(log.requests[0]?.request);
    assert.ok(!/demo-|password<\//.test(request), request);
    assert.match(request, /<Password>\*\*\*<\/Password>/);
  });
});

describe('emulator wire: request log masking', () => {
  it('masks passwords in elements, CDATA, attributes-bearing elements and encoded form keys', () => {
    const masked = maskSecrets(
      '<a:Password>p1</a:Password><password xsi:type="xsd:string">p2</password><Password><![CDATA[p3<]]></Password>' +
        '<SMSCPassword>p4</SMSCPassword>\nGET /x.asmx/Op?User=u&Pass%77ord=p5&smscpassword=p6&password=p7',
    );
    for (const secret of ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7'])
      assert.ok(!masked.includes(secret), `${secret}: ${masked}`);
    assert.match(masked, /User=u/);
  });

  it('masks the whole content of a password element split by comments, PIs or child elements, or cut off', () => {
    const cases = [
      '<Password>QZ<!-- a comment -->W9KP</Password>',
      '<Password><!-- </Password> -->QZW9KP</Password>',
      '<p:Password>QZW<?pi x?>9KP</p:Password>',
      '<Password>QZ<x>W9</x>KP</Password>',
      '<Password>QZ<![CDATA[W</Password>]]>9KP</Password>',
      '<SMSCPassword>\n QZW9KP \n</SMSCPassword>',
      '<Password>QZW9KP', // a request cut short
    ];
    for (const c of cases) {
      const masked = maskSecrets(`<User>u</User>${c}<Text>hi</Text>`);
      for (const part of ['QZ', 'W9', 'KP']) assert.ok(!masked.includes(part), `${part} of ${c}: ${masked}`);
      assert.match(masked, /<User>u<\/User>/);
      if (!c.endsWith('KP')) assert.match(masked, /<Text>hi<\/Text>$/, masked);
    }
    assert.equal(maskSecrets('<Password/><User>x</User>'), '<Password/><User>x</User>');
  });
});
