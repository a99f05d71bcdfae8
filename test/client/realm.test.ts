/**
 * Values from another JavaScript realm. A Node-RED function node runs in a vm context: its `{}`,
 * arrays, Dates and Uint8Arrays are built from that context's intrinsics, so `instanceof` and prototype checks
 * in this realm say no. Here they are built with vm.runInNewContext (a realm without the host's Date or Buffer)
 * and handed to the client, the generic builder, the outbox store and the shape checks; test/nodes/realm.test.ts
 * does the same through a real function node.
 */
import assert from 'node:assert/strict';
import vm from 'node:vm';
import { findOperation } from '../../src/catalogue';
import { GatewayClient } from '../../src/client';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { buildGenericRequest } from '../../src/generic';
import { storedParams } from '../../src/reliability/outbox-store';
import { isBytes, isDate, isPlainObject } from '../../src/shape';

/** Evaluates `code` in a fresh realm: every object it returns is that realm's. */
const foreign = <T>(code: string): T => vm.runInNewContext(`(${code})`) as T;

const USER = 'demo';
const PASSWORD = 'demo-password';

interface Job {
  id: number;
  caption: string;
  text: string;
  recipients: string[];
  binData: string;
  favoredAt: string | null;
}

describe('values from another realm (a function node) are judged by shape', () => {
  describe('the shape checks', () => {
    it('take objects, Dates and Uint8Arrays of another realm for what they are', () => {
      const v = foreign<Record<string, unknown>>(
        `{ o: {}, n: Object.create(null), d: new Date(0), u: new Uint8Array(2), a: [1] }`,
      );
      assert.equal(v.o instanceof Object, false, 'the premise: another realm');
      assert.equal(v.d instanceof Date, false, 'the premise: another realm');
      assert.equal(v.u instanceof Uint8Array, false, 'the premise: another realm');
      assert.equal(isPlainObject(v), true);
      assert.equal(isPlainObject(v.o), true);
      assert.equal(isPlainObject(v.n), true);
      assert.equal(isDate(v.d), true);
      assert.equal(isBytes(v.u), true);
      assert.equal(isBytes(Buffer.from('x')), true);
      for (const k of ['d', 'u', 'a']) assert.equal(isPlainObject(v[k]), false, k);
    });

    it('refuse look-alikes: a class instance, a fake Date or byte array, other typed arrays', () => {
      class Params {
        a = 1;
      }
      assert.equal(isPlainObject(new Params()), false);
      assert.equal(isPlainObject(new Map()), false);
      const fakeDate = { [Symbol.toStringTag]: 'Date', getTime: () => 0 };
      assert.equal(Object.prototype.toString.call(fakeDate), '[object Date]', 'the premise');
      assert.equal(isDate(fakeDate), false);
      assert.equal(isBytes({ [Symbol.toStringTag]: 'Uint8Array', length: 0 }), false);
      assert.equal(isBytes(new Uint16Array(2)), false);
      assert.equal(isBytes(foreign('new Int8Array(2)')), false);
      assert.equal(isDate('2026-01-01'), false);
      assert.equal(isDate(null), false);
    });
  });

  describe('against the emulator', () => {
    let emu: RunningEmulator;
    let client: GatewayClient;
    const job = (id: unknown): Job | undefined =>
      (emu.control.snapshot() as { accounts: { jobs: Job[] }[] }).accounts
        .flatMap((a) => a.jobs)
        .find((j) => j.id === Number(id));

    before(async () => {
      emu = await startEmulator({ port: 0 });
      emu.control.setBalance(USER, 1_000_000);
      client = new GatewayClient({ baseUrl: emu.url, user: USER, password: PASSWORD, reference: false });
    });
    after(async () => {
      await client.close();
      await emu.close();
    });

    it('a typed send takes an object, a recipient list and a SendDate of another realm', async () => {
      const at = Date.now() + 3_600_000;
      const params = foreign<Record<string, unknown>>(
        `{ Caption: 'realm', Sender: 'Flow', Recipient: ['+4917012345678'], SMSText: 'from a vm',
           SmsTyp: 'Standard', SendDate: new Date(${at}) }`,
      );
      const r = await client.send.sendSms(params as never);
      const sent = job(r.JobId);
      assert.equal(sent?.text, 'from a vm');
      assert.deepEqual(sent?.recipients, ['+4917012345678']);
      assert.equal(sent?.favoredAt, new Date(at).toISOString(), 'the SendDate as given');
    });

    it('a typed query takes Dates of another realm', async () => {
      const params = foreign<Record<string, unknown>>(
        `{ StartDate: new Date(Date.now() - 86400000), EndDate: new Date(Date.now() + 86400000) }`,
      );
      const jobs = await client.information.queryJobs(params as never);
      assert.ok(Array.isArray(jobs));
    });

    it('an older-service send takes bytes of another realm (SendBinData Data, SMSCR bRecipient)', async () => {
      const data = foreign<Uint8Array>('new Uint8Array([0x06, 0x05, 0x04, 0x15, 0x81, 0x00, 0x00, 0x41])');
      const bin = await client.legacy.sendBinData({
        Recipient: '+4917012345678',
        strMsg: 'bin',
        MsgType: 1,
        binTyp: 1,
        Data: data,
        sendDate: null,
      } as never);
      assert.ok(bin, 'sent');
      const recipients = foreign<Uint8Array>(`new Uint8Array([${[...Buffer.from('abc')].join(',')}])`);
      await assert.rejects(
        client.legacy.smscr({
          caption: 'c',
          Msg: 'm',
          Sender: 's',
          bRecipient: recipients,
          SendDate: null,
          SmsTyp: 1,
        } as never),
        (e: unknown) => (e as { code?: string }).code === 'VALIDATION' && /abc/.test(String(e)),
        'the recipients inside the bytes are checked',
      );
    });

    it('invoke() takes parameters, nested objects, Dates and bytes of another realm', async () => {
      const at = Date.now() + 7_200_000;
      const params = foreign<Record<string, unknown>>(
        `{ Caption: 'invoke realm', Sender: 'Flow', Recipient: { string: ['+4917012345679'] },
           SMSText: 'invoked from a vm', SmsTyp: 'Standard', SendDate: new Date(${at}) }`,
      );
      const r = (await client.invoke('send', 'SendSMS', params, {
        typed: true,
        headers: foreign('{ Trace: { Id: "1" } }'),
      })) as { Value: { JobId: number } };
      const sent = job(r.Value.JobId);
      assert.equal(sent?.text, 'invoked from a vm');
      assert.deepEqual(sent?.recipients, ['+4917012345679']);
      assert.equal(sent?.favoredAt, new Date(at).toISOString());
    });
  });

  it('the generic builder writes Dates and bytes of another realm as xs:dateTime and base64', () => {
    const params = foreign<Record<string, unknown>>(
      `{ When: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)), Data: new Uint8Array([1, 2, 3]), Inner: { A: 'x' } }`,
    );
    for (const style of ['document', 'rpc'] as const) {
      const req = buildGenericRequest({
        transport: 'soap11',
        path: '/x.asmx',
        namespace: 'urn:x',
        operation: 'Op',
        params,
        style,
      });
      const body = String(req.body);
      assert.match(body, /<(tns:)?When[^>]*>2026-01-02T03:04:05Z</, style);
      assert.match(body, /<(tns:)?Data[^>]*>AQID</, style);
      assert.match(body, /<(tns:)?A[^>]*>x</, style);
    }
    const form = buildGenericRequest({
      transport: 'post',
      path: '/x.asmx',
      namespace: 'urn:x',
      operation: 'Op',
      params: foreign('{ When: new Date(0), Data: new Uint8Array([7, 8]) }'),
    });
    assert.equal(form.body, 'When=1970-01-01T00%3A00%3A00Z&Data=7&Data=8');
  });

  it('the outbox stores Dates and bytes of another realm as ISO text and base64', () => {
    const op = findOperation('legacy', 'SendBinData')!;
    const stored = storedParams(
      op,
      foreign(`{ Recipient: '1', Data: new Uint8Array([1, 2, 3]), sendDate: new Date(0), Password: 'x' }`),
    );
    assert.deepEqual(stored, { Recipient: '1', Data: 'AQID', sendDate: '1970-01-01T00:00:00.000Z' });
  });
});
