/**
 * What the send nodes refuse before anything reaches the gateway: texts too long for their SMS type
 * (the limits are config node settings).
 */
import assert from 'node:assert/strict';
import {
  flowWith,
  helper,
  loadFlow,
  nextMessage,
  send,
  startEnv,
  statuses,
  stopEnv,
  type Env,
} from './helpers';
import { sendSmsNode } from './send-sms-node';

/** Every job the emulator holds, so a test can tell that nothing was sent. */
const jobCount = (env: Env): number =>
  (env.emu.control.snapshot() as { accounts: { jobs: unknown[] }[] }).accounts.reduce(
    (n, a) => n + a.jobs.length,
    0,
  );

/** The message as msg.error carries it (without the "GatewayError: " Node-RED puts in front). */
const said = (error: { message: string }): string => error.message.replace(/^GatewayError: /, '');

interface Caught {
  error: { code: string; message: string; source?: { id: string } };
}

describe('nodes: refused before sending', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  const text = 'a'.repeat(1993);
  const typed = (smsType: string) => sendSmsNode({ smsType, smsTypeType: 'smstype' });
  const legacy = (SmsTyp: string) => ({
    id: 'n1',
    type: 'smsgw-legacy-send-text',
    gateway: 'cfg',
    operation: 'SendText',
    params: { Recipient: { value: '+4917000000001', type: 'str' }, SmsTyp: { value: SmsTyp, type: 'str' } },
    wires: [['out']],
  });

  async function refused(nodes: Record<string, unknown>[], msg: Record<string, unknown>, config = {}) {
    await loadFlow(flowWith(env.emu.url, nodes as never, config));
    const before = jobCount(env);
    const caught = nextMessage('caught');
    send('n1', msg);
    const { error } = (await caught) as unknown as Caught;
    assert.equal(jobCount(env), before, 'nothing reached the gateway');
    return error;
  }

  it('send SMS: a text too long for Standard fails with VALIDATION saying what fits', async () => {
    const error = await refused([typed('Standard')], { payload: text });
    assert.equal(error.code, 'VALIDATION');
    assert.equal(
      said(error),
      'SendSMS: 1,993 characters, 14 segments: Standard allows 1 segment; StandardLong allows up to 10',
    );
  });

  it('send SMS: StandardLong takes 10 segments, not 14', async () => {
    const error = await refused([typed('StandardLong')], { payload: text });
    assert.equal(said(error), 'SendSMS: 1,993 characters, 14 segments: StandardLong allows up to 10');
  });

  it('send SMS: msg.smsType is checked too', async () => {
    const error = await refused([typed('StandardLong')], { payload: 'x'.repeat(200), smsType: 'Flash' });
    assert.equal(said(error), 'SendSMS: 200 characters, 2 segments: Flash allows 1 segment');
  });

  it('legacy send: SendText with SmsTyp 6 (our reading of the codes) is checked the same way', async () => {
    const error = await refused([legacy('6')], { payload: 'x'.repeat(161) });
    assert.equal(error.code, 'VALIDATION');
    assert.match(
      said(error),
      /^SendText: 161 characters, 2 segments: SmsTyp 6 \(Standart\) allows 1 segment;/,
    );
  });

  it('the limits are config settings: Long SMS 20 sends the 14 segments, Single SMS 0 turns the check off', async () => {
    await loadFlow(flowWith(env.emu.url, [typed('StandardLong')], { segmentsLong: 20 }));
    const out = nextMessage('out');
    send('n1', { payload: text });
    // the emulator itself takes at most 10 parts: the node let it through and the gateway refused it
    const caught = await Promise.race([out.then(() => undefined), nextMessage('caught')]);
    assert.ok(caught, 'the gateway refused it');
    const error = (caught as unknown as Caught).error;
    assert.equal(error.code, 'REJECTED');
    await helper.unload();

    const off = await refused([typed('Standard')], { payload: 'x'.repeat(200) }, { segmentsSingle: 0 });
    assert.equal(off.code, 'REJECTED', 'sent, and refused by the gateway (SMSTypeError)');
  });

  it('a text that fits is sent', async () => {
    await loadFlow(flowWith(env.emu.url, [typed('StandardLong')]));
    const out = nextMessage('out');
    send('n1', { payload: 'a'.repeat(1530) });
    const p = (await out).payload as { CreateStatus: string; segments: number };
    assert.deepEqual([p.CreateStatus, p.segments], ['Ok', 10]);
    assert.equal(statuses('n1').at(-1)?.fill, 'green');
  });
});
