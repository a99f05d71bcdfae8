import assert from 'node:assert/strict';
import type { StatusEnum } from '../../src/emulator';
import {
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
  type FlowNode,
} from './helpers';
import { sendSmsNode, sendUdhNode } from './send-sms-node';

// The statuses the emulator's own rules never give, forced through its control API: what reaches a Catch
// node (msg.error), what the node's status shows, and that no job was created.

interface Caught {
  code: string;
  message: string;
  cause: { status: string; operation: string; service: string; ambiguous: boolean };
}

const hlrNode = (): FlowNode => ({
  id: 'n1',
  type: 'smsgw-send-hlr',
  gateway: 'cfg',
  recipient: '+4917022222222',
  recipientType: 'str',
  caption: 'topic',
  captionType: 'msg',
  wires: [['out']],
});

const sms = (): FlowNode => sendSmsNode({ smsType: 'Standard', smsTypeType: 'smstype' });

const CASES: Array<{
  enum: StatusEnum;
  value: string;
  node: () => FlowNode;
  operation: string;
  payload: unknown;
}> = [
  ...['None', 'DatabaseError'].map((value) => ({
    enum: 'LoginStatus' as const,
    value,
    node: sms,
    operation: 'SendSMS',
    payload: 'freezer alarm',
  })),
  ...['None', 'NoDataFound', 'NoUrlFound', 'LoginError', 'UnknowError', 'DatabaseError'].map((value, i) => ({
    enum: 'CreateStatus' as const,
    value,
    // Mostly the SMS node; the HLR node once, since its answer carries a CreateStatus too.
    node: i === 4 ? hlrNode : sms,
    operation: i === 4 ? 'SendHLR' : 'SendSMS',
    payload: 'freezer alarm',
  })),
  ...['MMSXMLParseError', 'MMSPictureNOTReadable'].map((value) => ({
    enum: 'ParseStatus' as const,
    value,
    node: () => sendUdhNode(),
    operation: 'SendUDH',
    payload: Buffer.from('0605040B8423F0DEADBEEF', 'hex'),
  })),
];

describe('nodes: statuses the emulator is told to answer with', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(() => stopEnv(env));
  afterEach(async () => {
    env.emu.statuses.clear();
    await helper.unload();
  });

  for (const c of CASES) {
    const code = c.enum === 'LoginStatus' ? 'AUTH' : 'REJECTED';
    it(`${c.enum} ${c.value} (${c.operation}): Catch gets ${code} with status ${c.value}; nothing sent`, async () => {
      await loadFlow(flowWith(env.emu.url, [c.node()]));
      const jobs = env.emu.state.jobs().length;
      env.emu.statuses.add({ enum: c.enum, value: c.value, operation: c.operation });
      const caught = nextMessage('caught');
      send('n1', { payload: c.payload, topic: `forced-${c.value}` });
      const msg = await caught;
      const error = msg.error as Caught;
      assert.equal(error.code, code);
      assert.equal(error.cause.status, c.value);
      assert.equal(error.cause.operation, c.operation);
      assert.equal(error.cause.service, 'send');
      assert.equal(error.cause.ambiguous, false);
      assert.equal(
        error.message,
        `${c.operation}: ${code === 'AUTH' ? 'login refused' : 'refused'}: ${c.value}`,
      );
      assert.equal(msg.topic, `forced-${c.value}`, 'the msg that failed reaches Catch');
      assert.equal(env.emu.state.jobs().length, jobs, 'no job was created');
      assert.deepEqual(env.emu.statuses.list(), []);
      const last = statuses('n1').at(-1)!;
      assert.equal(last.fill, 'red');
      if (code === 'AUTH') assert.match(String(last.text), new RegExp(`^auth failed: ${c.value}$`));
      else assert.equal(last.text, `REJECTED: ${c.value}`);
    });
  }

  it('after a LoginStatus DatabaseError the next call that succeeds clears the red ring', async () => {
    await loadFlow(flowWith(env.emu.url, [sms()]));
    env.emu.statuses.add({ enum: 'LoginStatus', value: 'DatabaseError' });
    const caught = nextMessage('caught');
    send('n1', { payload: 'first', topic: 'db-down' });
    assert.equal(((await caught).error as Caught).cause.status, 'DatabaseError');
    const out = nextMessage('out');
    send('n1', { payload: 'second', topic: 'db-up' });
    assert.equal(((await out).payload as { CreateStatus: string }).CreateStatus, 'Ok');
    await waitFor(() => statuses('n1').at(-1)?.fill === 'green');
  });
});
