/**
 * Messages built in a real function node. Node-RED runs a function node's code in a vm context:
 * its `{}` and `[]` have that context's prototypes and its `new Uint8Array()` is that context's (Buffer and Date
 * are handed in from the runtime). Every node type of the package gets its msg from one, with parameters,
 * recipients, dates and bytes built there; a Date of yet another realm (vm.runInNewContext) goes in directly,
 * as a node that runs code in its own context without the runtime's Date would give it.
 */
import assert from 'node:assert/strict';
import vm from 'node:vm';
import type { NodeMessage } from 'node-red';
import {
  ALL_NODES,
  DEMO,
  emulatedJob,
  flowWith,
  helper,
  nextMessage,
  send,
  startEnv,
  stopEnv,
  type Env,
  type FlowNode,
} from './helpers';
import { sendSmsNode, sendUdhNode } from './send-sms-node';

// The function node of the Node-RED this package is tested with.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const functionNode = require('@node-red/nodes/core/function/10-function.js') as unknown;

const HOUR = 3_600_000;

interface Job {
  caption: string;
  text: string;
  recipients: string[];
  binData: string;
  favoredAt: string | null;
}

describe('nodes: msgs built in a function node (another JavaScript realm)', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
    env.emu.control.setBalance('demo', 1_000_000);
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  /** A function node `f` running `code` (which returns msg) wired to the node under test, `n1`. */
  async function load(node: Record<string, unknown> & { type: string }, code: string): Promise<void> {
    const fn: FlowNode = { id: 'f', type: 'function', func: code, outputs: 1, wires: [['n1']] };
    const flow = flowWith(env.emu.url, [fn, { id: 'n1', gateway: 'cfg', wires: [['out']], ...node }]);
    await helper.load([functionNode, ...ALL_NODES] as never, flow, { cfg: DEMO });
  }

  /** Sends a trigger to the function node; resolves with the node's output (or rejects with what Catch got). */
  async function run(msg: Record<string, unknown> = { payload: 'go' }): Promise<Record<string, unknown>> {
    const out = nextMessage('out');
    const caught = nextMessage('caught');
    send('f', msg);
    const first = await Promise.race([out, caught.then((m) => ({ caught: m }))]);
    if ('caught' in first) {
      const err = (first.caught as NodeMessage & { error?: { message?: string } }).error;
      assert.fail(`refused: ${err?.message ?? JSON.stringify(first.caught)}`);
    }
    return first as Record<string, unknown>;
  }

  const job = (id: unknown): Job => {
    const j = emulatedJob(env, Number(id)) as unknown as Job | undefined;
    assert.ok(j, `job ${String(id)} at the emulator`);
    return j;
  };

  it('smsgw-send-sms: the text as a Uint8Array, recipients, caption and send date from the function node', async () => {
    await load(
      sendSmsNode(),
      `const at = Date.now() + ${HOUR};
       flow.set('at', at);
       msg.payload = new Uint8Array(Buffer.from('bytes from a function node'));
       msg.recipients = ['+4917012345001', '+4917012345002'];
       msg.caption = 'fn caption';
       msg.sendDate = new Date(at);
       return msg;`,
    );
    const msg = await run();
    const p = msg.payload as { JobId: number; recipients: string[] };
    const sent = job(p.JobId);
    assert.equal(sent.text, 'bytes from a function node');
    assert.deepEqual(sent.recipients, ['+4917012345001', '+4917012345002']);
    assert.match(sent.caption, /^fn caption #/);
    const at = helper.getNode('f').context().flow.get('at') as number;
    assert.equal(sent.favoredAt, new Date(at).toISOString());
  });

  it('smsgw-send-hlr: recipients and a caption as a Uint8Array', async () => {
    await load(
      { type: 'smsgw-send-hlr' },
      `msg.recipients = ['+4917012345003'];
       msg.caption = new Uint8Array(Buffer.from('hlr from fn'));
       return msg;`,
    );
    const msg = await run();
    const p = msg.payload as { caption: string };
    assert.match(p.caption, /^hlr from fn #/);
  });

  it('smsgw-send-udh: the data as a Uint8Array, the send date as a Date', async () => {
    await load(
      sendUdhNode(),
      `msg.payload = new Uint8Array([0x06, 0x05, 0x04, 0x15, 0x81, 0x00, 0x00, 0x41, 0x42]);
       msg.recipient = '+4917012345004';
       msg.sendDate = new Date(Date.now() + ${HOUR});
       return msg;`,
    );
    const msg = await run();
    const p = msg.payload as { caption: string; bytes: number };
    assert.equal(p.bytes, 9);
    const snap = env.emu.control.snapshot() as { accounts: { jobs: Job[] }[] };
    const sent = snap.accounts.flatMap((a) => a.jobs).find((j) => j.caption === p.caption);
    assert.equal(sent?.binData, '060504158100004142');
  });

  it('smsgw-legacy-send-text: msg.params with bytes (SendBinData) and with a recipient list (SendSMS2)', async () => {
    await load(
      { type: 'smsgw-legacy-send-text', operation: 'SendText', params: {} },
      `if (msg.payload === 'bin') {
         msg.operation = 'SendBinData';
         msg.params = { Recipient: '+4917012345005', strMsg: 'bin', MsgType: 1, binTyp: 1,
                        Data: new Uint8Array([1, 2, 3, 250]), sendDate: new Date(Date.now() + ${HOUR}) };
       } else {
         msg.operation = 'SendSMS2';
         msg.params = { Recipient: ['+4917012345006', '+4917012345007'], SmsTyp: 1,
                        SendDate: new Date(Date.now() + ${HOUR}) };
       }
       return msg;`,
    );
    const bin = (await run({ payload: 'bin' })).payload as { JobId: string };
    assert.equal(job(bin.JobId).binData, '010203FA');
    const list = (await run({ payload: 'two' })).payload as { JobId: string };
    const sent = job(list.JobId);
    assert.deepEqual(sent.recipients, ['+4917012345006', '+4917012345007']);
    assert.equal(sent.text, 'two');
  });

  it('smsgw-balance: a threshold from the function node', async () => {
    await load(
      { type: 'smsgw-balance', threshold: 'threshold', thresholdType: 'msg' },
      `msg.threshold = 5; return msg;`,
    );
    const p = (await run()).payload as { balance: number; threshold: number; low: boolean };
    assert.equal(p.threshold, 5);
    assert.equal(p.low, false);
  });

  it('smsgw-query-jobs: msg.params with Dates', async () => {
    await load(
      { type: 'smsgw-query-jobs', operation: 'QueryJobs', params: {} },
      `msg.params = { StartDate: new Date(Date.now() - 86400000), EndDate: new Date(Date.now() + 86400000) };
       return msg;`,
    );
    const p = (await run()).payload;
    assert.ok(Array.isArray(p) && p.length > 0, JSON.stringify(p));
  });

  it('smsgw-customer: msg.params from the function node', async () => {
    await load(
      { type: 'smsgw-customer', operation: 'GetCustomerWithAuthUser', params: {} },
      `msg.params = { SerialOrEmail: 'demo' }; return msg;`,
    );
    const p = (await run()).payload as Record<string, unknown>;
    assert.equal(typeof p, 'object');
  });

  it('smsgw-call: parameters, nested lists, SOAP headers, a Date and bytes built in the function node', async () => {
    // A send (through the send gate): its list as invoke()'s child elements, a Date.
    await load(
      { type: 'smsgw-call', service: 'send', operation: 'SendSMS', auth: 'auto', typed: true },
      `msg.payload = { Caption: 'call fn', Sender: 'Flow', Recipient: { string: ['+4917012345008'] },
                       SMSText: 'any operation from fn', SmsTyp: 'Standard',
                       SendDate: new Date(Date.now() + ${HOUR}) };
       return msg;`,
    );
    const p = (await run()).payload as { Value: { JobId: number } };
    const sent = job(p.Value.JobId);
    assert.equal(sent.text, 'any operation from fn');
    assert.deepEqual(sent.recipients, ['+4917012345008']);

    // A read (invoke() as it is): SOAP header blocks and a Date from the function node.
    await helper.unload();
    await load(
      { type: 'smsgw-call', service: 'information', operation: 'QueryJobs', auth: 'auto', lists: 'Value' },
      `msg.payload = { StartDate: new Date(Date.now() - ${HOUR}), EndDate: new Date(Date.now() + ${HOUR}) };
       msg.soapHeaders = { Trace: { Id: 'fn' } };
       return msg;`,
    );
    const listed = (await run()).payload as { StatusCode: string; Value: { Id: string }[] };
    assert.equal(listed.StatusCode, 'Ok');
    assert.ok(listed.Value.some((j) => Number(j.Id) === p.Value.JobId));

    await helper.unload();
    await load(
      { type: 'smsgw-call', service: 'legacy', operation: 'SendBinData', auth: 'auto' },
      `msg.payload = { Recipient: '+4917012345009', strMsg: 'b', MsgType: 1, binTyp: 1,
                       Data: new Uint8Array([9, 8, 7]), sendDate: new Date(Date.now() + ${HOUR}) };
       return msg;`,
    );
    const answer = (await run()).payload as { raw: string; id: string };
    assert.match(answer.raw, /^OK \d+$/);
    assert.equal(job(answer.id).binData, '090807', answer.raw);
  });

  for (const type of ['smsgw-inbound', 'smsgw-dlr', 'smsgw-hlr-results']) {
    it(`${type}: a trigger msg from the function node polls`, async () => {
      if (type === 'smsgw-inbound')
        env.emu.control.injectInbound({ from: '+4917012300009', text: 'fn poll' });
      await load(
        { type, interval: 60, inputs: 1 },
        `msg.payload = { when: new Date(), list: [1, 2] }; return msg;`,
      );
      const statuses = (helper.getNode('n1') as unknown as { status: { args: unknown[][] } }).status;
      const before = statuses.args.length;
      send('f', { payload: 'go' });
      const deadline = Date.now() + 5000;
      for (;;) {
        const after = statuses.args.slice(before).map((a) => a[0] as { fill?: string });
        if (after.some((s) => s.fill === 'green' || s.fill === 'grey')) break;
        assert.ok(!after.some((s) => s.fill === 'red'), JSON.stringify(after));
        assert.ok(Date.now() < deadline, `no poll: ${JSON.stringify(after)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    });
  }

  describe('a Date of another realm (vm.runInNewContext) goes in as the time it holds', () => {
    const foreignDate = (ms: number): Date => vm.runInNewContext(`new Date(${ms})`) as Date;

    it('smsgw-send-sms msg.sendDate, to the millisecond', async () => {
      const at = Math.floor(Date.now() / 1000) * 1000 + HOUR + 123;
      const flow = flowWith(env.emu.url, [sendSmsNode()]);
      await helper.load(ALL_NODES as never, flow, { cfg: DEMO });
      const out = nextMessage('out');
      send('n1', { payload: 'dated', recipient: '+4917012345010', sendDate: foreignDate(at) });
      const p = (await out).payload as { JobId: number };
      assert.equal(job(p.JobId).favoredAt, new Date(at).toISOString());
    });

    it('smsgw-call and smsgw-legacy-send-text parameters', async () => {
      const at = Math.floor(Date.now() / 1000) * 1000 + HOUR + 456;
      const flow = flowWith(env.emu.url, [
        {
          id: 'n1',
          type: 'smsgw-legacy-send-text',
          gateway: 'cfg',
          operation: 'SendSMS2',
          params: {},
          wires: [['out']],
        },
      ]);
      await helper.load(ALL_NODES as never, flow, { cfg: DEMO });
      const out = nextMessage('out');
      send('n1', {
        payload: 'legacy dated',
        params: vm.runInNewContext(`({ Recipient: ['+4917012345011'], SmsTyp: 1 })`) as unknown,
      });
      const sent = (await out).payload as { JobId: string };
      assert.equal(job(sent.JobId).text, 'legacy dated');
      const flow2 = flowWith(env.emu.url, [
        {
          id: 'n1',
          type: 'smsgw-call',
          gateway: 'cfg',
          service: 'send',
          operation: 'SendSMS',
          auth: 'auto',
          typed: true,
          wires: [['out']],
        },
      ]);
      await helper.unload();
      await helper.load(ALL_NODES as never, flow2, { cfg: DEMO });
      const out2 = nextMessage('out');
      const payload = vm.runInNewContext(
        `({ Caption: 'c', Sender: 'F', Recipient: { string: ['+4917012345012'] }, SMSText: 'call dated',
            SmsTyp: 'Standard', SendDate: new Date(${at}) })`,
      ) as unknown;
      send('n1', { payload });
      const called = (await out2).payload as { Value: { JobId: number } };
      assert.equal(job(called.Value.JobId).favoredAt, new Date(at).toISOString());
    });
  });
});
