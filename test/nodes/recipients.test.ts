/** Send nodes refuse recipients that are no phone number; the config's Default country makes them international. */
import assert from 'node:assert/strict';
import { flowWith, helper, loadFlow, nextMessage, send, startEnv, stopEnv, type Env } from './helpers';
import { sendSmsNode } from './send-sms-node';

const lastSendRequest = (env: Env): string =>
  env.emu.requests
    .list()
    .filter((r) => /Send/.test(r.operation ?? ''))
    .at(-1)?.request ?? '';

describe('nodes: recipients checked before sending', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  it('send SMS: "abc" is refused with VALIDATION naming it, nothing is sent', async () => {
    await loadFlow(flowWith(env.emu.url, [sendSmsNode({ recipient: '+4917000000001, abc' })]));
    const before = env.emu.requests.list().length;
    const caught = nextMessage('caught');
    send('n1', { payload: 'hello' });
    const { error } = (await caught) as unknown as { error: { code: string; message: string } };
    assert.equal(error.code, 'VALIDATION');
    assert.match(error.message, /SendSMS: not a phone number: "abc" \(digits with an optional leading \+/);
    assert.equal(env.emu.requests.list().length, before, 'nothing reached the gateway');
  });

  it('Default country DE: 0170 1234567 goes out as +491701234567', async () => {
    await loadFlow(
      flowWith(env.emu.url, [sendSmsNode({ recipient: '0170 1234567' })], { defaultCountry: 'DE' }),
    );
    const out = nextMessage('out');
    send('n1', { payload: 'hello' });
    assert.equal(((await out).payload as { CreateStatus: string }).CreateStatus, 'Ok');
    assert.match(lastSendRequest(env), /<string>\+491701234567<\/string>/);
  });

  it('off by default: a national number is sent as given', async () => {
    await loadFlow(flowWith(env.emu.url, [sendSmsNode({ recipient: '0170 1234567' })]));
    const out = nextMessage('out');
    send('n1', { payload: 'hello' });
    await out;
    assert.match(lastSendRequest(env), /<string>0170 1234567<\/string>/);
  });
});
