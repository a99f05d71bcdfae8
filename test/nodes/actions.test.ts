import assert from 'node:assert/strict';
import {
  emulatedJob,
  flowWith,
  helper,
  loadFlow,
  nextMessage,
  send,
  startEnv,
  statuses,
  stopEnv,
  waitFor,
  type Env,
} from './helpers';
import { startEmulator } from '../../src/emulator';
import { sendUdhNode } from './send-sms-node';

describe('nodes: action nodes other than send-sms', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  describe('smsgw-send-hlr', () => {
    const hlr = (extra: Record<string, unknown> = {}) => ({
      id: 'n1',
      type: 'smsgw-send-hlr',
      gateway: 'cfg',
      recipient: '',
      recipientType: 'str',
      caption: 'topic',
      captionType: 'msg',
      wires: [['out']],
      ...extra,
    });

    it('starts a lookup and outputs the JobId', async () => {
      await loadFlow(flowWith(env.emu.url, [hlr()]));
      const out = nextMessage('out');
      send('n1', { recipient: '+4917011111111', topic: 'check' });
      const p = (await out).payload as { JobId: number; CreateStatus: string };
      assert.equal(p.CreateStatus, 'Ok');
      assert.equal(emulatedJob(env, p.JobId)?.typ, 'HLR');
    });

    it('with "wait" emits the HLR result once the gateway has it', async () => {
      await loadFlow(flowWith(env.emu.url, [hlr({ wait: true, waitTimeout: 10 })]));
      const out = nextMessage('out');
      send('n1', { recipient: '+4917022222222' });
      // The job must exist before it is finished: a fixed 150 ms missed a SendHLR slowed by a loaded machine.
      await waitFor(() => env.emu.state.jobs().some((j) => j.recipients.includes('+4917022222222')));
      env.emu.control.finishJobs();
      const p = (await out).payload as { hlr: { Number: string; NecValue: string }[] };
      assert.equal(p.hlr.length, 1);
      assert.equal(p.hlr[0]!.NecValue, 'OK');
      assert.equal(statuses('n1').at(-1)!.fill, 'green');
    });

    it('with "wait" and no result in time: TIMEOUT to Catch, with the JobId on the msg', async () => {
      const slow = await startEmulator({ port: 0, timing: { processingMs: 600_000 } });
      try {
        await loadFlow(flowWith(slow.url, [hlr({ wait: true, waitTimeout: 0.3 })]));
        const caught = nextMessage('caught');
        send('n1', { recipient: '+4917033333333' });
        const msg = await caught;
        assert.equal((msg.error as { code: string }).code, 'TIMEOUT');
        // The text a user reads (the package's message catalogue), not its key.
        assert.equal(
          (msg.error as { message: string }).message,
          'QueryHLRJobsByJobID: timeout: no HLR result within 0.3 s',
        );
        assert.ok((msg.payload as { JobId: number }).JobId > 0);
      } finally {
        await helper.unload();
        await slow.close();
      }
    });

    it('no recipient is a VALIDATION error', async () => {
      await loadFlow(flowWith(env.emu.url, [hlr()]));
      const caught = nextMessage('caught');
      send('n1', {});
      assert.equal(((await caught).error as { code: string }).code, 'VALIDATION');
    });
  });

  describe('smsgw-send-udh', () => {
    const udh = sendUdhNode;

    for (const [label, payload] of [
      ['a Buffer', Buffer.from('0605040B8423F0DEADBEEF', 'hex')],
      ['hex text', '0605040b8423f0deadbeef'],
      ['base64 text', Buffer.from('0605040B8423F0DEADBEEF', 'hex').toString('base64')],
    ] as const) {
      it(`sends data from ${label} as the same bytes`, async () => {
        await loadFlow(flowWith(env.emu.url, [udh()]));
        const out = nextMessage('out');
        const caption = `udh-${label}`;
        send('n1', { payload, topic: caption });
        const p = (await out).payload as { ParseStatus: string; bytes: number; caption: string };
        assert.equal(p.ParseStatus, 'Ok');
        assert.equal(p.bytes, 11);
        assert.ok(p.caption.startsWith(`${caption} #`), 'the caption as sent carries the reference');
        const snap = env.emu.control.snapshot() as {
          accounts: { jobs: { caption: string; binData: string }[] }[];
        };
        const job = snap.accounts.flatMap((a) => a.jobs).find((j) => j.caption === p.caption);
        assert.equal(job?.binData, '0605040B8423F0DEADBEEF');
      });
    }

    it('text that is neither hex nor base64 is a VALIDATION error', async () => {
      await loadFlow(flowWith(env.emu.url, [udh()]));
      const caught = nextMessage('caught');
      send('n1', { payload: 'not binary!' });
      assert.equal(((await caught).error as { code: string }).code, 'VALIDATION');
    });
  });

  describe('smsgw-legacy-send-text', () => {
    const legacy = (operation: string, params: Record<string, unknown> = {}) => ({
      id: 'n1',
      type: 'smsgw-legacy-send-text',
      gateway: 'cfg',
      operation,
      params,
      wires: [['out']],
    });

    it('SendText: text from msg.payload, caption from msg.topic, recipient from a row', async () => {
      await loadFlow(
        flowWith(env.emu.url, [
          legacy('SendText', {
            Recipient: { value: '+4917055555555', type: 'str' },
            SmsTyp: { value: '1', type: 'str' },
          }),
        ]),
      );
      const out = nextMessage('out');
      send('n1', { payload: 'legacy hello', topic: 'legacy-caption' });
      const p = (await out).payload as { operation: string; JobId: string; raw: string; caption: string };
      assert.equal(p.operation, 'SendText');
      assert.match(p.raw, /^OK/);
      const job = emulatedJob(env, Number(p.JobId));
      assert.equal(job?.text, 'legacy hello');
      assert.match(p.caption, /^legacy-caption #[a-z2-9]{10}$/);
      assert.equal(job?.caption, p.caption);
    });

    for (const operation of ['SendText', 'SendSMS']) {
      it(`SmsTyp chosen from the dialog's list (typedInput type enum) goes out as its code (${operation})`, async () => {
        await loadFlow(
          flowWith(env.emu.url, [
            legacy(operation, {
              Recipient: { value: '+4917055555555', type: 'str' },
              Sender: { value: 'Plant', type: 'str' },
              SmsTyp: { value: '18', type: 'enum' },
            }),
          ]),
        );
        const out = nextMessage('out');
        send('n1', { payload: `list ${operation}`, topic: 'list' });
        const p = (await out).payload as { JobId: string };
        const job = emulatedJob(env, Number(p.JobId));
        // 18 is one of the two codes the spec names as using the Sender
        assert.deepEqual([job?.typ, job?.sender, job?.text], ['HighQuality', 'Plant', `list ${operation}`]);
      });
    }

    it('msg.params and msg.operation override (SendSMS2 with a recipient list)', async () => {
      await loadFlow(flowWith(env.emu.url, [legacy('SendText')]));
      const out = nextMessage('out');
      send('n1', {
        payload: 'to two',
        operation: 'SendSMS2',
        params: { Recipient: ['+4917066666661', '+4917066666662'], SmsTyp: 1 },
      });
      const p = (await out).payload as { operation: string; JobId: string };
      assert.equal(p.operation, 'SendSMS2');
      assert.equal(emulatedJob(env, Number(p.JobId))?.recipients.length, 2);
    });

    it('SMSCR takes the recipients as text and logs in with serial/password from the config', async () => {
      await loadFlow(
        flowWith(env.emu.url, [
          legacy('SMSCR', {
            bRecipient: { value: '+4917077777777', type: 'str' },
            SmsTyp: { value: '1', type: 'num' },
          }),
        ]),
      );
      const out = nextMessage('out');
      send('n1', { payload: 'via SMSCR', topic: 'smscr' });
      const p = (await out).payload as { JobId: string };
      assert.deepEqual(emulatedJob(env, Number(p.JobId))?.recipients, ['+4917077777777']);
    });

    it('"Replace with GSM-7 look-alikes": the gateway, the spending guard and the result see the replaced text; the status says how many', async () => {
      // 161 characters: 3 UCS-2 segments as typed, 2 GSM-7 segments once replaced (SmsTyp 17 takes up to 10).
      const typed = 'Pump 3’s “level” – low… ';
      const sentText = `Pump 3's "level" - low... `;
      const pad = 'x'.repeat(161 - sentText.length);
      await loadFlow(
        flowWith(
          env.emu.url,
          [
            {
              ...legacy('SendText', {
                Recipient: { value: '+4917055555555', type: 'str' },
                SmsTyp: { value: '17', type: 'str' },
              }),
              replaceLookalikes: true,
            },
          ],
          { budgetDay: 1000 },
        ),
      );
      const counted = async (): Promise<number> => {
        const res = await helper.request().get('/smsgw-config/cfg/budget').expect(200);
        return (res.body as { windows: { count: number }[] }).windows[0]!.count;
      };
      const before = await counted();
      const out = nextMessage('out');
      send('n1', { payload: typed + pad, topic: 'lookalikes' });
      const p = (await out).payload as { JobId: string; replaced?: number };
      assert.equal(p.replaced, 5);
      assert.equal(emulatedJob(env, Number(p.JobId))?.text, sentText + pad);
      // The guard counted 2 segments x 1 recipient (3 as typed).
      assert.equal((await counted()) - before, 2);
      assert.match(String(statuses('n1').at(-1)!.text), /status\.replaced|5 replaced/);
    });

    it("the replacement never adds a segment (SMSCR's Msg): ellipses that would are kept, letters left alone", async () => {
      // 70 characters of UCS-2 (Ł stays): one segment; 68 ellipses as dots would make four.
      const typed = `Ł’${'…'.repeat(68)}`;
      await loadFlow(
        flowWith(env.emu.url, [
          {
            ...legacy('SMSCR', {
              bRecipient: { value: '+4917077777777', type: 'str' },
              SmsTyp: { value: '1', type: 'num' },
            }),
            replaceLookalikes: true,
          },
        ]),
      );
      const out = nextMessage('out');
      send('n1', { payload: typed, topic: 'kept' });
      const p = (await out).payload as { JobId: string; replaced?: number };
      assert.equal(p.replaced, 1);
      assert.equal(emulatedJob(env, Number(p.JobId))?.text, `Ł'${'…'.repeat(68)}`);
    });

    it('without the setting the text goes as typed and the result has no `replaced`', async () => {
      await loadFlow(
        flowWith(env.emu.url, [
          legacy('SendText', {
            Recipient: { value: '+4917055555555', type: 'str' },
            SmsTyp: { value: '1', type: 'str' },
          }),
        ]),
      );
      const out = nextMessage('out');
      send('n1', { payload: 'It’s ok', topic: 'as-typed' });
      const p = (await out).payload as Record<string, unknown>;
      assert.equal('replaced' in p, false);
      assert.equal(emulatedJob(env, Number(p.JobId))?.text, 'It’s ok');
    });

    it('an "Error ..." answer reaches Catch as REJECTED with the text as status', async () => {
      await loadFlow(
        flowWith(env.emu.url, [
          legacy('SendText', {
            Recipient: { value: '+4917055555555', type: 'str' },
            SmsTyp: { value: '1', type: 'str' },
          }),
        ]),
      );
      const caught = nextMessage('caught');
      send('n1', { payload: '   ' });
      const error = (await caught).error as { code: string; cause: { status: string } };
      assert.equal(error.code, 'REJECTED');
      assert.ok(error.cause.status);
    });
  });

  describe('smsgw-balance', () => {
    const balance = (extra: Record<string, unknown> = {}) => ({
      id: 'n1',
      type: 'smsgw-balance',
      gateway: 'cfg',
      operation: 'auto',
      threshold: '',
      thresholdType: 'num',
      wires: [['out'], ['out2']],
      ...extra,
    });

    it('outputs the balance and shows it in the status', async () => {
      env.emu.control.finishJobs(); // jobs of earlier tests are charged when sent
      env.emu.control.setBalance('demo', 123.5);
      await loadFlow(flowWith(env.emu.url, [balance()]));
      const out = nextMessage('out');
      send('n1', { payload: 'tick' });
      const p = (await out).payload as { balance: number; operation: string; low: boolean };
      assert.deepEqual(p, { balance: 123.5, operation: 'QueryAccountBalance', low: false });
      assert.equal(statuses('n1').at(-1)!.fill, 'green');
    });

    it('QueryBalance2 when the config uses the older service', async () => {
      env.emu.control.finishJobs();
      env.emu.control.setBalance('demo', 77);
      await loadFlow(flowWith(env.emu.url, [balance()], { service: 'legacy' }));
      const out = nextMessage('out');
      send('n1', {});
      const p = (await out).payload as { balance: number; operation: string };
      assert.equal(p.operation, 'QueryBalance2');
      assert.equal(p.balance, 77);
    });

    it('below the threshold the msg also leaves output 2 (msg.threshold overrides)', async () => {
      env.emu.control.setBalance('demo', 10);
      await loadFlow(flowWith(env.emu.url, [balance({ threshold: '5' })]));
      const first = nextMessage('out');
      send('n1', {});
      assert.equal(((await first).payload as { low: boolean }).low, false);

      const low = nextMessage('out2');
      send('n1', { threshold: 50 });
      const p = (await low).payload as { low: boolean; threshold: number };
      assert.equal(p.low, true);
      assert.equal(p.threshold, 50);
      assert.equal(statuses('n1').at(-1)!.fill, 'yellow');
      env.emu.control.setBalance('demo', 1000);
    });

    it('a locked account reaches Catch as AUTH with status AccountLocked', async () => {
      env.emu.control.lockAccount('demo', true);
      try {
        await loadFlow(flowWith(env.emu.url, [balance()]));
        const caught = nextMessage('caught');
        send('n1', {});
        const error = (await caught).error as { code: string; cause: { status: string } };
        assert.equal(error.code, 'AUTH');
        assert.equal(error.cause.status, 'AccountLocked');
      } finally {
        env.emu.control.lockAccount('demo', false);
      }
    });
  });

  describe('smsgw-query-jobs and smsgw-customer', () => {
    const query = (type: string, operation: string, params: Record<string, unknown> = {}) => ({
      id: 'n1',
      type,
      gateway: 'cfg',
      operation,
      params,
      wires: [['out']],
    });

    it('QueryJobInfoByJobCaption with the caption (as sent) from a msg row', async () => {
      const seed = await loadAndSend(env, 'jobinfo-caption');
      // The caption as sent carries the reference (msg.payload.caption of the send): that is what finds the job.
      const asSent = env.emu.state.jobs().find((j) => j.id === seed)!.caption;
      assert.match(asSent, /^jobinfo-caption #/);
      await helper.unload();
      await loadFlow(
        flowWith(env.emu.url, [
          query('smsgw-query-jobs', 'QueryJobInfoByJobCaption', { Caption: { value: 'topic', type: 'msg' } }),
        ]),
      );
      const out = nextMessage('out');
      send('n1', { topic: asSent });
      const p = (await out).payload as { Status: string; Job: { Id: number } };
      assert.equal(p.Status, 'Ok');
      assert.equal(p.Job.Id, seed);
    });

    it('QueryJobs with blank dates lists every job; msg.params narrows the period', async () => {
      await loadFlow(flowWith(env.emu.url, [query('smsgw-query-jobs', 'QueryJobs')]));
      const out = nextMessage('out');
      send('n1', {});
      const all = (await out).payload as unknown[];
      assert.ok(Array.isArray(all) && all.length > 0);
      const none = nextMessage('out');
      send('n1', { params: { StartDate: '2000-01-01T00:00:00Z', EndDate: '2000-01-02T00:00:00Z' } });
      assert.deepEqual((await none).payload, []);
    });

    it('the older GetJobs1 yields records', async () => {
      await loadFlow(
        flowWith(env.emu.url, [
          query('smsgw-query-jobs', 'GetJobs1', {
            StartDate: { value: '2000-01-01', type: 'str' },
            EndDate: { value: '2100-01-01', type: 'str' },
          }),
        ]),
      );
      const out = nextMessage('out');
      send('n1', {});
      const p = (await out).payload as Record<string, unknown>[];
      assert.ok(Array.isArray(p) && p.length > 0, JSON.stringify(p));
    });

    it('QueryJobInfoByJobCaption for an unknown caption reaches Catch as REJECTED JobNotFound', async () => {
      await loadFlow(
        flowWith(env.emu.url, [
          query('smsgw-query-jobs', 'QueryJobInfoByJobCaption', {
            Caption: { value: 'no-such-caption', type: 'str' },
          }),
        ]),
      );
      const caught = nextMessage('caught');
      send('n1', {});
      const error = (await caught).error as { code: string; cause: { status: string } };
      assert.equal(error.code, 'REJECTED');
      assert.equal(error.cause.status, 'JobNotFound');
    });

    it('customer: CreateCustomer then GetCustomer by msg.params', async () => {
      await loadFlow(
        flowWith(env.emu.url, [
          query('smsgw-customer', 'CreateCustomer', {
            CompanyName: { value: 'ACME', type: 'str' },
            SMSCSerial: { value: 'acme-serial-1', type: 'str' },
            SMSCPassword: { value: 'acme-password-1', type: 'str' },
          }),
        ]),
      );
      const out = nextMessage('out');
      send('n1', {});
      const created = (await out).payload as { Status: string; ModifiedCustomer: { Id: number } };
      assert.equal(created.Status, 'Ok');
      const got = nextMessage('out');
      send('n1', { operation: 'GetCustomer', params: { CustomerId: created.ModifiedCustomer.Id } });
      assert.equal(((await got).payload as { CompanyName: string }).CompanyName, 'ACME');
    });

    it('customer: a duplicate serial reaches Catch as REJECTED SMSCSerialAlreadyExists', async () => {
      await loadFlow(
        flowWith(env.emu.url, [
          query('smsgw-customer', 'CreateCustomer', {
            CompanyName: { value: 'ACME 2', type: 'str' },
            SMSCSerial: { value: 'acme-serial-1', type: 'str' },
            SMSCPassword: { value: 'acme-password-1', type: 'str' },
          }),
        ]),
      );
      const caught = nextMessage('caught');
      send('n1', {});
      const error = (await caught).error as { code: string; cause: { status: string } };
      assert.equal(error.code, 'REJECTED');
      assert.equal(error.cause.status, 'SMSCSerialAlreadyExists');
    });
  });
});

/** Sends one SMS with this caption through a send node and returns its JobId. */
async function loadAndSend(env: Env, caption: string): Promise<number> {
  await loadFlow(
    flowWith(env.emu.url, [
      {
        id: 's1',
        type: 'smsgw-send-sms',
        gateway: 'cfg',
        operation: 'SendSMS',
        recipient: '+4917088888888',
        recipientType: 'str',
        text: 'payload',
        textType: 'msg',
        caption,
        captionType: 'str',
        wires: [['out']],
      },
    ]),
  );
  const out = nextMessage('out');
  send('s1', { payload: 'seed' });
  return ((await out).payload as { JobId: number }).JobId;
}
