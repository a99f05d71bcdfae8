/**
 * The hard cap on a message's text and data in the nodes and the editor's routes (issue 19 §6): a 10 MB text
 * reaches the Catch node as VALIDATION at once, with the segment checks on or off and with the outbox on, and
 * the send blocks the event loop less than 20 ms (the refusal is O(1); the bound leaves room for a loaded
 * machine, see test/helpers/loop-block.ts). Through Node-RED a 4 MB text blocked the runtime 1.2 s at a send
 * node and 1.4 s at the editor's /smsgw/analyze route before.
 */
import assert from 'node:assert/strict';
import type { NodeMessage } from 'node-red';
import { analyzeForEditor, recipientsForEditor } from '../../src/nodes/admin/admin';
import { bigText, longestBlockMs } from '../helpers/loop-block';
import {
  collect,
  flowWith,
  helper,
  loadFlow,
  send,
  startEnv,
  stopEnv,
  waitFor,
  type Env,
  type FlowNode,
} from './helpers';
import { sendSmsNode, sendUdhNode } from './send-sms-node';

const TEN_MB = 10 * 1024 * 1024;
const BLOCK_BOUND_MS = 20;

describe('nodes: the hard cap on text and data (64 KiB)', function () {
  this.timeout(60_000);
  let env: Env;
  const text = bigText(TEN_MB);
  before(async () => {
    env = await startEnv();
    env.emu.control.setBalance('demo', 1_000_000);
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  const jobs = (): number =>
    (env.emu.control.snapshot() as { accounts: { jobs: unknown[] }[] }).accounts.reduce(
      (n, a) => n + a.jobs.length,
      0,
    );

  /** Sends `msg` to n1 (measuring the loop) and expects VALIDATION matching `why` at the Catch node. */
  async function refused(msg: Record<string, unknown>, why: RegExp): Promise<void> {
    const before = jobs();
    const errors: { code?: string; message?: string }[] = [];
    const blocked = await longestBlockMs(async () => {
      const caught = collect('caught');
      const out = collect('out');
      send('n1', msg);
      await waitFor(() => caught.messages.length + out.messages.length > 0, 10_000);
      caught.stop();
      out.stop();
      assert.equal(out.messages.length, 0, 'nothing output');
      errors.push((caught.messages[0] as NodeMessage & { error: { code?: string; message?: string } }).error);
    });
    for (const error of errors) {
      assert.equal(error.code, 'VALIDATION', error.message);
      assert.match(error.message ?? '', why);
      assert.match(error.message ?? '', /at most 65,536/);
    }
    assert.equal(jobs(), before, 'nothing reached the gateway');
    assert.ok(blocked < BLOCK_BOUND_MS, `the event loop was blocked ${blocked.toFixed(1)} ms`);
  }

  const configs: Array<[string, Record<string, unknown>]> = [
    ['segment checks on', {}],
    ['segment checks off', { segmentsSingle: 0, segmentsLong: 0 }],
    ['outbox on', { outbox: true }],
  ];
  for (const [label, config] of configs) {
    it(`smsgw-send-sms (${label}): a 10 MB text is refused with VALIDATION at once`, async () => {
      await loadFlow(flowWith(env.emu.url, [sendSmsNode()], config));
      await refused({ payload: text, topic: 'big' }, /message text: 10,485,760 characters/);
    });
  }

  it('smsgw-send-sms: a 10 MB Buffer as the text too', async () => {
    await loadFlow(flowWith(env.emu.url, [sendSmsNode()]));
    await refused({ payload: Buffer.alloc(TEN_MB, 0x61) }, /10,485,760 bytes/);
  });

  it('smsgw-legacy-send-text: SendText and SMSCR (outbox on)', async () => {
    const legacy = (operation: string): FlowNode => ({
      id: 'n1',
      type: 'smsgw-legacy-send-text',
      gateway: 'cfg',
      operation,
      params: { Recipient: { value: '+4917055555555', type: 'str' }, SmsTyp: { value: '1', type: 'str' } },
      wires: [['out']],
    });
    await loadFlow(flowWith(env.emu.url, [legacy('SendText')], { outbox: true }));
    await refused({ payload: text }, /SMSText: 10,485,760 characters/);
    await helper.unload();
    await loadFlow(flowWith(env.emu.url, [legacy('SMSCR')]));
    await refused({ payload: text, params: { bRecipient: '+4917055555555' } }, /Msg: 10,485,760/);
  });

  it('smsgw-send-udh: 10 MB of hex text, and 5 MB of bytes (10 MB of hex)', async () => {
    await loadFlow(flowWith(env.emu.url, [sendUdhNode()]));
    await refused({ payload: bigText(TEN_MB, '0') }, /data: 10,485,760 characters/);
    await refused({ payload: Buffer.alloc(TEN_MB / 2, 1) }, /data as hex: 10,485,760 characters/);
  });

  it('smsgw-call: a 10 MB SMSText parameter', async () => {
    const call: FlowNode = {
      id: 'n1',
      type: 'smsgw-call',
      gateway: 'cfg',
      service: 'send',
      operation: 'SendSMS',
      auth: 'auto',
      wires: [['out']],
    };
    await loadFlow(flowWith(env.emu.url, [call], { segmentsSingle: 0, segmentsLong: 0 }));
    await refused(
      { payload: { Recipient: { string: ['+4917012345678'] }, SMSText: text, SmsTyp: 'Standard' } },
      /SMSText: 10,485,760 characters/,
    );
  });

  describe('editor routes', () => {
    const FOUR_MB = 4 * 1024 * 1024;

    it('POST smsgw/analyze answers "too large" for a 4 MB text without reading it', async () => {
      await loadFlow(flowWith(env.emu.url, []));
      const res = await helper
        .request()
        .post('/smsgw/analyze')
        .send({ text: bigText(FOUR_MB), operation: 'send/SendSMS', smsType: 'Standard' })
        .expect(200);
      assert.deepEqual(res.body, { tooLarge: { characters: FOUR_MB, max: 65_536 } });
      // The handler alone (the route's body parsing is Node-RED's): O(1) whatever the length.
      const big = bigText(TEN_MB);
      const blocked = await longestBlockMs(async () => {
        analyzeForEditor({ text: big, operation: 'send/SendSMS', smsType: 'Standard', segmentsSingle: 0 });
      });
      assert.ok(blocked < BLOCK_BOUND_MS, `the event loop was blocked ${blocked.toFixed(1)} ms`);
    });

    it('POST smsgw/recipients answers "too large" for a 4 MB recipient text without splitting it', async () => {
      await loadFlow(flowWith(env.emu.url, []));
      const res = await helper
        .request()
        .post('/smsgw/recipients')
        .send({ recipients: bigText(FOUR_MB, '1') })
        .expect(200);
      assert.deepEqual(res.body, { tooLarge: { characters: FOUR_MB, max: 65_536 }, entries: [] });
      const big = bigText(TEN_MB, '1');
      const blocked = await longestBlockMs(async () => {
        recipientsForEditor({ recipients: big, defaultCountry: 'DE' });
      });
      assert.ok(blocked < BLOCK_BOUND_MS, `the event loop was blocked ${blocked.toFixed(1)} ms`);
    });

    it('a text at the cap is still analysed', async () => {
      const a = analyzeForEditor({ text: 'a'.repeat(65_536) }) as { segments: number };
      assert.equal(a.segments, 429);
    });
  });
});
