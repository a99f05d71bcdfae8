/**
 * Errors without a Catch node (issue 14 §3): the log shows one line a user understands, and msg.error's cause
 * reads as text in the debug sidebar instead of "[object Object]".
 */
import assert from 'node:assert/strict';
import { util as nodeRedUtil } from '@node-red/util';
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
import { sendSmsNode } from './send-sms-node';

interface LogEntry {
  level: number;
  type?: string;
  msg?: unknown;
}
const errorsLogged = (): LogEntry[] =>
  (helper.log() as unknown as { args: LogEntry[][] }).args
    .map((a) => a[0]!)
    .filter((e) => e.level === 20 && e.type === 'smsgw-send-sms');

describe('nodes: errors without a Catch node are readable', () => {
  afterEach(() => helper.unload());

  async function failOnce(baseUrl: string): Promise<LogEntry> {
    // no Catch node: Node-RED logs the error and shows it in the debug sidebar
    const flow: FlowNode[] = [
      { id: 'tab', type: 'tab', label: 'test' },
      {
        id: 'cfg',
        type: 'smsgw-config',
        baseUrl,
        service: 'gateway',
        transport: 'soap11',
        gatewayNamespace: 'https://gateway.smsgw.example/',
      },
      { z: 'tab', ...sendSmsNode() },
      { id: 'out', type: 'helper', z: 'tab' },
    ];
    await loadFlow(flow);
    send('n1', { payload: 'hello' });
    await waitFor(() => errorsLogged().length > 0);
    return errorsLogged()[0]!;
  }

  it('logs one line: "SendSMS: network: could not send the request: connect ECONNREFUSED 127.0.0.1:9"', async () => {
    const entry = await failOnce('http://127.0.0.1:9');
    // what Node-RED's console logger prints: the message object turned into text
    assert.equal(
      `${entry.msg as string}`,
      'SendSMS: network: could not send the request: connect ECONNREFUSED 127.0.0.1:9',
    );
  });

  it('the debug sidebar shows the cause as text with status, operation and whether it may have been sent', async () => {
    const entry = await failOnce('http://127.0.0.1:9');
    // what the runtime sends to the editor's debug sidebar for a logged node error
    const encoded = nodeRedUtil.encodeObject({ msg: entry.msg }) as { msg: string; format: string };
    assert.equal(encoded.format, 'error');
    const shown = (JSON.parse(encoded.msg) as { data: { message: string; code: string; cause: string } })
      .data;
    assert.equal(shown.code, 'NETWORK');
    assert.equal(
      shown.message,
      'SendSMS: network: could not send the request: connect ECONNREFUSED 127.0.0.1:9',
    );
    assert.equal(shown.cause, 'SendSMS (send)');
    // the Catch node's msg.error.cause stays plain JSON with every field
    const cause = (entry.msg as { cause: Record<string, unknown> }).cause;
    assert.deepEqual(JSON.parse(JSON.stringify(cause)), {
      name: 'GatewayError',
      code: 'NETWORK',
      message: 'SendSMS: could not send the request: connect ECONNREFUSED 127.0.0.1:9',
      service: 'send',
      operation: 'SendSMS',
      ambiguous: false,
    });
  });

  it('the red status says why in a few words: "network: ECONNREFUSED"', async () => {
    await failOnce('http://127.0.0.1:9');
    await waitFor(() => statuses('n1').at(-1)?.fill === 'red');
    assert.deepEqual(statuses('n1').at(-1), { fill: 'red', shape: 'ring', text: 'network: ECONNREFUSED' });
  });
});

describe('nodes: red statuses name the reason, not only the code', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  it('an empty recipient shows "no recipient"', async () => {
    await loadFlow(flowWith(env.emu.url, [sendSmsNode({ recipient: '' })]));
    const caught = nextMessage('caught');
    send('n1', { payload: 'hello' });
    await caught;
    assert.equal(statuses('n1').at(-1)?.text, 'no recipient');
  });

  it('a text too long for its type shows the start of the reason, shortened', async () => {
    await loadFlow(flowWith(env.emu.url, [sendSmsNode()]));
    const caught = nextMessage('caught');
    send('n1', { payload: 'a'.repeat(1993) });
    await caught;
    assert.equal(statuses('n1').at(-1)?.text, '1,993 characters, 14 segments: Standard…');
  });
});
