import { strict as assert } from 'node:assert';
import { startEmulator, type RunningEmulator } from '../../../src/emulator';
import { FakeBackend } from './helpers/fake-backend';
import { http } from './helpers/http';

// Wire-level faults for the next N requests, set through the control API.

const GW = 'https://gateway.smsgw.example/';
const sendSimple = `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><SendSimpleSMS xmlns="${GW}"><User>demo</User><Password>secret</Password><Recipient>1</Recipient></SendSimpleSMS></soap:Body></soap:Envelope>`;
const headers = { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${GW}SendSimpleSMS"` };
const json = { 'Content-Type': 'application/json' };

describe('emulator wire: fault injection', () => {
  let emu: RunningEmulator<FakeBackend>;
  let backend: FakeBackend;
  beforeEach(async () => {
    backend = new FakeBackend();
    emu = await startEmulator({ backend });
  });
  afterEach(() => emu.close());

  const send = () => http(emu.url, 'POST', '/gateway/Send.asmx', headers, sendSimple);
  const addFault = async (spec: unknown): Promise<void> => {
    const res = await http(emu.url, 'POST', '/_emulator/faults', json, JSON.stringify(spec));
    assert.equal(res.status, 200, res.body);
  };

  it('reset: the connection is destroyed and the operation is not performed', async () => {
    await addFault({ kind: 'reset', count: 1 });
    const res = await send();
    assert.equal(res.status, 0);
    assert.ok(res.error, 'socket error');
    assert.equal(backend.calls.length, 0);
    assert.equal((await send()).status, 200, 'only the next request');
    assert.equal(backend.calls.length, 1);
  });

  it('http503: HTML page, operation not performed, for count requests', async () => {
    await addFault({ kind: 'http503', count: 2 });
    for (let i = 0; i < 2; i++) {
      const res = await send();
      assert.equal(res.status, 503);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.match(res.body, /Service Unavailable/);
    }
    assert.equal(backend.calls.length, 0);
    assert.equal((await send()).status, 200);
  });

  it('truncate: the operation runs, half the body arrives, then the connection ends', async () => {
    await addFault({ kind: 'truncate' });
    const res = await send();
    assert.equal(backend.calls.length, 1, 'performed');
    assert.ok(res.error || res.body.length < Number(res.headers['content-length']), 'incomplete answer');
    assert.ok(res.body.startsWith('<?xml'), 'the first half did arrive');
  });

  it('commitThenDrop: the operation runs, no answer at all', async () => {
    await addFault({ kind: 'commitThenDrop' });
    const res = await send();
    assert.equal(res.status, 0);
    assert.ok(res.error);
    assert.equal(backend.calls.length, 1, 'performed');
  });

  it('delay: the answer comes after the delay', async () => {
    await addFault({ kind: 'delay', ms: 150 });
    const started = Date.now();
    const res = await send();
    assert.equal(res.status, 200);
    assert.ok(Date.now() - started >= 140, 'not before the delay');
  });

  it('operation filter: other operations pass untouched; GET/POST count too', async () => {
    await addFault({ kind: 'http503', operation: 'QueryAccountBalance' });
    assert.equal((await send()).status, 200);
    const listed = JSON.parse((await http(emu.url, 'GET', '/_emulator/faults')).body) as {
      faults: unknown[];
    };
    assert.equal(listed.faults.length, 1);
    const get = await http(
      emu.url,
      'GET',
      '/gateway/Information.asmx/QueryAccountBalance?User=demo&Password=secret',
    );
    assert.equal(get.status, 503);
    assert.equal(
      (await http(emu.url, 'GET', '/gateway/Information.asmx/QueryAccountBalance?User=demo&Password=secret'))
        .status,
      200,
    );
  });

  it('WSDL and control requests are not affected; DELETE clears', async () => {
    await addFault({ kind: 'reset', count: 5 });
    assert.equal((await http(emu.url, 'GET', '/gateway/Send.asmx?WSDL')).status, 200);
    assert.equal((await http(emu.url, 'DELETE', '/_emulator/faults')).status, 200);
    assert.equal((await send()).status, 200);
  });

  it('rejects invalid specs with 400', async () => {
    for (const spec of [{ kind: 'explode' }, { kind: 'delay', ms: -1 }, { kind: 'reset', count: 0 }, 'x']) {
      const res = await http(emu.url, 'POST', '/_emulator/faults', json, JSON.stringify(spec));
      assert.equal(res.status, 400, JSON.stringify(spec));
    }
    assert.equal(emu.faults.list().length, 0);
  });

  it('the server keeps serving after every kind', async () => {
    for (const kind of ['reset', 'http503', 'truncate', 'commitThenDrop', 'delay']) {
      await addFault({ kind, ms: 1 });
      await send();
    }
    assert.equal((await send()).status, 200);
  });
});
