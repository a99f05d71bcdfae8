import assert from 'node:assert/strict';
import { startEmulator } from '../../src/emulator';
import {
  emulatedJob,
  flowWith,
  helper,
  loadFlow,
  nextMessage,
  send,
  sleep,
  startEnv,
  stopEnv,
  type Env,
  type FlowNode,
} from './helpers';
import { sendSmsNode } from './send-sms-node';

/** The Output property of the action nodes (src/nodes/common/output.ts). */
describe('nodes: the Output property of the action nodes', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
    env.emu.control.setBalance('demo', 1_000_000);
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  const jobCount = (): number =>
    (env.emu.control.snapshot() as { accounts: { jobs: unknown[] }[] }).accounts.flatMap((a) => a.jobs)
      .length;

  /** One node of each action type, wired to "out", with what a msg needs to make it answer. */
  const ACTIONS: { type: string; node: Record<string, unknown>; msg: Record<string, unknown> }[] = [
    { type: 'smsgw-send-sms', node: {}, msg: { payload: 'freezer warm', topic: 'out-sms' } },
    {
      type: 'smsgw-send-hlr',
      node: { recipient: '+4917000000002', recipientType: 'str', caption: 'topic', captionType: 'msg' },
      msg: { payload: 'keep me', topic: 'out-hlr' },
    },
    {
      type: 'smsgw-send-udh',
      node: {
        recipient: '+4917000000003',
        recipientType: 'str',
        data: 'payload',
        dataType: 'msg',
        dataFormat: 'auto',
        caption: 'topic',
        captionType: 'msg',
      },
      msg: { payload: '0605040B8423F0DEADBEEF', topic: 'out-udh' },
    },
    {
      type: 'smsgw-legacy-send-text',
      node: {
        operation: 'SendText',
        params: { Recipient: { value: '+4917000000004', type: 'str' }, SmsTyp: { value: '1', type: 'str' } },
      },
      msg: { payload: 'legacy text', topic: 'out-legacy' },
    },
    {
      type: 'smsgw-balance',
      node: { operation: 'auto', threshold: '', thresholdType: 'num' },
      msg: { payload: 'tick' },
    },
    { type: 'smsgw-query-jobs', node: { operation: 'QueryJobs', params: {} }, msg: { payload: 'tick' } },
    { type: 'smsgw-customer', node: { operation: 'GetCustomerList', params: {} }, msg: { payload: 'tick' } },
    {
      type: 'smsgw-call',
      node: { service: 'customer', operation: 'GetCustomerList', lists: 'Value' },
      msg: { payload: {} },
    },
  ];

  const actionNode = (a: (typeof ACTIONS)[number], extra: Record<string, unknown> = {}): FlowNode =>
    a.type === 'smsgw-send-sms'
      ? sendSmsNode(extra)
      : { id: 'n1', type: a.type, gateway: 'cfg', wires: [['out']], ...a.node, ...extra };

  for (const a of ACTIONS) {
    it(`${a.type}: Output msg.result.sms gets the result, msg.payload and msg.result's other keys stay`, async () => {
      await loadFlow(flowWith(env.emu.url, [actionNode(a, { output: 'result.sms' })]));
      const out = nextMessage('out');
      send('n1', { ...a.msg, result: { orderId: 'A-17' } });
      const msg = await out;
      assert.deepEqual(msg.payload, a.msg.payload, 'msg.payload is left as it came in');
      const result = msg.result as Record<string, unknown>;
      assert.equal(result.orderId, 'A-17');
      assert.ok(result.sms !== undefined && result.sms !== null, 'msg.result.sms holds the result');
      if (a.type === 'smsgw-balance')
        assert.equal(typeof (result.sms as { balance: number }).balance, 'number');
      else if (a.type === 'smsgw-query-jobs' || a.type === 'smsgw-customer')
        assert.ok(Array.isArray(result.sms));
      else if (a.type === 'smsgw-call') assert.ok(Array.isArray((result.sms as { Value: unknown }).Value));
      else if (a.type === 'smsgw-send-udh')
        assert.equal((result.sms as { ParseStatus: string }).ParseStatus, 'Ok');
      else assert.ok(Number((result.sms as { JobId: unknown }).JobId) > 0, JSON.stringify(result.sms));
    });
  }

  it('a node saved without the property (flows from before it existed) writes msg.payload', async () => {
    const flow = flowWith(env.emu.url, [sendSmsNode()]);
    assert.equal('output' in flow.find((n) => n.id === 'n1')!, false);
    await loadFlow(flow);
    const out = nextMessage('out');
    send('n1', { payload: 'as before', topic: 'no-output-prop' });
    const msg = await out;
    const p = msg.payload as { JobId: number };
    assert.equal(emulatedJob(env, p.JobId)?.text, 'as before');
    assert.equal(msg.result, undefined);
  });

  it('"msg.result" as typed with its prefix and blank mean result and payload', async () => {
    await loadFlow(
      flowWith(env.emu.url, [
        sendSmsNode({ output: 'msg.result' }),
        sendSmsNode({ id: 'n2', output: '  ', wires: [['out2']] }),
      ]),
    );
    const out = nextMessage('out');
    const out2 = nextMessage('out2');
    send('n1', { payload: 'prefixed', topic: 'prefixed' });
    send('n2', { payload: 'blank', topic: 'blank' });
    const [m1, m2] = [await out, await out2];
    assert.equal(m1.payload, 'prefixed');
    assert.ok((m1.result as { JobId: number }).JobId > 0);
    assert.ok((m2.payload as { JobId: number }).JobId > 0);
  });

  it('a property below a text is refused as VALIDATION before anything is sent', async () => {
    await loadFlow(flowWith(env.emu.url, [sendSmsNode({ output: 'result.sms' })]));
    const before = jobCount();
    const caught = nextMessage('caught');
    send('n1', { payload: 'must not go out', topic: 'refused', result: 'a text' });
    const msg = await caught;
    const error = msg.error as { code: string; message: string };
    assert.equal(error.code, 'VALIDATION');
    assert.match(error.message, /msg\.result is string/);
    assert.equal(msg.result, 'a text');
    await sleep(100);
    assert.equal(jobCount(), before, 'no SMS was sent');
  });

  it('an Output that is no msg property is refused as CONFIG for every msg, before anything is sent', async () => {
    await loadFlow(flowWith(env.emu.url, [sendSmsNode({ output: 'result..sms' })]));
    const before = jobCount();
    const caught = nextMessage('caught');
    send('n1', { payload: 'must not go out', topic: 'bad-output' });
    assert.equal(((await caught).error as { code: string }).code, 'CONFIG');
    await sleep(100);
    assert.equal(jobCount(), before, 'no SMS was sent');
  });

  it('balance: the low-balance output gets the same msg with the result at Output', async () => {
    env.emu.control.finishJobs();
    env.emu.control.setBalance('demo', 3);
    try {
      await loadFlow(
        flowWith(env.emu.url, [
          {
            id: 'n1',
            type: 'smsgw-balance',
            gateway: 'cfg',
            operation: 'auto',
            threshold: '5',
            thresholdType: 'num',
            output: 'account',
            wires: [['out'], ['out2']],
          },
        ]),
      );
      const low = nextMessage('out2');
      send('n1', { payload: 'tick' });
      const msg = await low;
      assert.equal(msg.payload, 'tick');
      assert.deepEqual(msg.account, {
        balance: 3,
        operation: 'QueryAccountBalance',
        low: true,
        threshold: 5,
      });
    } finally {
      env.emu.control.setBalance('demo', 1_000_000);
    }
  });

  it('send HLR: a wait that times out hands Catch the JobId at Output, payload untouched', async () => {
    const slow = await startEmulator({ port: 0, timing: { processingMs: 600_000 } });
    try {
      await loadFlow(
        flowWith(slow.url, [
          {
            id: 'n1',
            type: 'smsgw-send-hlr',
            gateway: 'cfg',
            recipient: '+4917033333334',
            recipientType: 'str',
            wait: true,
            waitTimeout: 0.3,
            output: 'hlr.check',
            wires: [['out']],
          },
        ]),
      );
      const caught = nextMessage('caught');
      send('n1', { payload: 'keep me' });
      const msg = await caught;
      assert.equal((msg.error as { code: string }).code, 'TIMEOUT');
      assert.equal(msg.payload, 'keep me');
      assert.ok(((msg.hlr as { check: { JobId: number } }).check.JobId ?? 0) > 0);
    } finally {
      await helper.unload();
      await slow.close();
    }
  });

  it('send SMS with tracking: the delivery outcome is written to Output on a copy of the sent msg', async () => {
    helper.settings({ userDir: env.userDir, smsgwDeliveryPollInterval: 150 } as Record<string, unknown>);
    try {
      await loadFlow([
        ...flowWith(env.emu.url, [
          sendSmsNode({
            output: 'result.sms',
            recipient: '+4917012399021',
            track: true,
            trackTimeout: 5,
            wires: [['out'], ['out2'], ['out3']],
          }),
        ]),
        { id: 'out3', type: 'helper', z: 'tab' },
      ]);
      const sent = nextMessage('out');
      const delivered = nextMessage('out2', 10000);
      send('n1', { payload: 'tracked text', topic: 'tracked-output', orderId: 'B-2' });
      const jobId = ((await sent).result as { sms: { JobId: number } }).sms.JobId;
      env.emu.control.finishJobs();
      const msg = await delivered;
      assert.equal(msg.payload, 'tracked text', 'the payload of the sent msg is kept');
      assert.equal(msg.orderId, 'B-2');
      const outcome = (msg.result as { sms: { JobId: number; outcome: string } }).sms;
      assert.equal(outcome.JobId, jobId);
      assert.equal(outcome.outcome, 'final');
    } finally {
      helper.settings({ userDir: env.userDir, smsgwSendHlrPollInterval: 100 } as Record<string, unknown>);
    }
  });
});
