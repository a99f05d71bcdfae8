import { strict as assert } from 'node:assert';
import { startEmulator, type RunningEmulator } from '../../../src/emulator';
import { FakeBackend } from './helpers/fake-backend';
import { http } from './helpers/http';

// /_emulator/status: the next call(s) that can carry a LoginStatus / CreateStatus / ParseStatus answer with it,
// written as every other answer is, without reaching the backend.

const json = { 'Content-Type': 'application/json' };
const SEND = '/gateway/Send.asmx';
const QUERY = 'User=demo&Password=secret&Caption=c&Sender=s&Recipient=%2B4917012345678&SendDate=';

describe('emulator wire: forced service statuses', () => {
  let emu: RunningEmulator<FakeBackend>;
  const backend = new FakeBackend();
  before(async () => {
    emu = await startEmulator({ backend });
  });
  after(() => emu.close());
  afterEach(() => emu.statuses.clear());

  const control = async (method: string, body?: unknown): Promise<{ status: number; json: unknown }> => {
    const res = await http(
      emu.url,
      method,
      '/_emulator/status',
      json,
      body === undefined ? undefined : JSON.stringify(body),
    );
    return { status: res.status, json: JSON.parse(res.body) };
  };
  const get = async (path: string): Promise<string> => (await http(emu.url, 'GET', path)).body;

  it('POST queues, GET lists, DELETE clears', async () => {
    const added = await control('POST', [
      { enum: 'LoginStatus', value: 'DatabaseError', count: 2 },
      { enum: 'ParseStatus', value: 'MMSXMLParseError', operation: 'SendUDH' },
    ]);
    assert.equal(added.status, 200);
    const expected = [
      { enum: 'LoginStatus', value: 'DatabaseError', remaining: 2 },
      { enum: 'ParseStatus', value: 'MMSXMLParseError', remaining: 1, operation: 'SendUDH' },
    ];
    assert.deepEqual((added.json as { statuses: unknown }).statuses, expected);
    assert.deepEqual(((await control('GET')).json as { statuses: unknown }).statuses, expected);
    assert.deepEqual((await control('DELETE')).json, { statuses: [] });
    assert.deepEqual(emu.statuses.list(), []);
  });

  it('refuses what is not a member of the enumeration (and Ok) with 400', async () => {
    for (const body of [
      { enum: 'JobStatus', value: 'Fehler' },
      { enum: 'LoginStatus', value: 'Ok' },
      { enum: 'CreateStatus', value: 'MMSXMLParseError' },
      { enum: 'ParseStatus', value: 'mmsxmlparseerror' },
      { enum: 'CreateStatus', value: 'LoginError', count: 0 },
      { enum: 'CreateStatus', value: 'LoginError', operation: 7 },
    ]) {
      const r = await control('POST', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match((r.json as { error: string }).error, /must be/);
    }
    assert.deepEqual(emu.statuses.list(), []);
  });

  it('a CreateStatus answers the next send with Value.Status and JobId 0; the backend is not called', async () => {
    await control('POST', { enum: 'CreateStatus', value: 'NoUrlFound' });
    const calls = backend.calls.length;
    const body = await get(`${SEND}/SendSimpleSMS?${QUERY}&SMSText=hi&SmsTyp=Standard`);
    assert.match(
      body,
      /<StatusCode>Ok<\/StatusCode>\s*<Value>\s*<Status>NoUrlFound<\/Status>\s*<JobId>0<\/JobId>/,
    );
    assert.equal(backend.calls.length, calls, 'the operation was not performed');
    assert.deepEqual(emu.statuses.list(), []);
  });

  it('only calls whose answer can carry the status use it up; operation narrows it further', async () => {
    await control('POST', [
      { enum: 'ParseStatus', value: 'MMSPictureNOTReadable' },
      { enum: 'CreateStatus', value: 'UnknowError', operation: 'SendHLR', count: 2 },
    ]);
    // The balance carries neither; SendSMS carries a CreateStatus but is not SendHLR; legacy carries none.
    assert.match(
      await get('/gateway/Information.asmx/QueryAccountBalance?User=demo&Password=secret'),
      /<StatusCode>Ok<\/StatusCode>\s*<Value>42.5<\/Value>/,
    );
    assert.match(
      await get(`${SEND}/SendSimpleSMS?${QUERY}&SMSText=hi&SmsTyp=Standard`),
      /<Status>Ok<\/Status>/,
    );
    assert.match(await get('/soap/send.asmx/QueryBalance2?User=demo&Password=secret'), /42\.5/);
    assert.equal(emu.statuses.list().length, 2);
    const soap = await http(
      emu.url,
      'POST',
      SEND,
      { 'Content-Type': 'application/soap+xml; charset=utf-8' },
      '<soap12:Envelope xmlns:soap12="http://www.w3.org/2003/05/soap-envelope"><soap12:Body>' +
        '<SendHLR xmlns="https://gateway.smsgw.example/"><User>demo</User><Password>secret</Password>' +
        '<Caption>c</Caption><Recipient>+4917012345678</Recipient></SendHLR></soap12:Body></soap12:Envelope>',
    );
    assert.equal(soap.status, 200);
    assert.match(
      soap.body,
      /<SendHLRResult><StatusCode>Ok<\/StatusCode><Value><Status>UnknowError<\/Status>/,
    );
    assert.match(await get(`${SEND}/SendUDH?${QUERY}&Data=0605`), /<ParseStatus>MMSPictureNOTReadable</);
    assert.deepEqual(
      emu.statuses.list().map((s) => [s.value, s.remaining]),
      [['UnknowError', 1]],
    );
  });

  it('a LoginStatus answers any typed call with StatusCode and no Value; a list answer with one envelope', async () => {
    emu.statuses.add({ enum: 'LoginStatus', value: 'None', count: 2 });
    assert.match(
      await get('/gateway/Information.asmx/QueryAccountBalance?User=demo&Password=secret'),
      /<StatusCode>None<\/StatusCode>\s*<Value>0<\/Value>/,
    );
    const list = await get(`${SEND}/SendMobileOrFixlineSMS?${QUERY}&SMSText=hi&MobileSMSType=HighQuality`);
    assert.match(
      list,
      /<ArrayOfSOAPResponseOfCreateJobInfo[^>]*>\s*<SOAPResponseOfCreateJobInfo>\s*<StatusCode>None<\/StatusCode>\s*<\/SOAPResponseOfCreateJobInfo>\s*<\/ArrayOf/,
    );
    assert.deepEqual(emu.statuses.list(), []);
  });

  it('a wire fault acts first and leaves the status for the next call', async () => {
    emu.faults.add({ kind: 'http503' });
    emu.statuses.add({ enum: 'LoginStatus', value: 'DatabaseError' });
    const path = '/gateway/Information.asmx/QueryAccountBalance?User=demo&Password=secret';
    assert.equal((await http(emu.url, 'GET', path)).status, 503);
    assert.match(await get(path), /<StatusCode>DatabaseError<\/StatusCode>/);
  });
});
