/**
 * Errors without a Catch node: the log shows one line a user understands, and msg.error's cause
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
import { runInNewContext } from 'node:vm';
import { messageText } from '../../src/nodes/send/send-path';
import { kindOf } from '../../src/value-kind';

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

describe('nodes: error texts read as English', () => {
  it('a text that is not a string names what it is with its article: "got an object", "got a boolean"', () => {
    const refusal = (value: unknown): string => {
      try {
        messageText(value, 'SendSMS');
      } catch (e) {
        return (e as Error).message;
      }
      return 'accepted';
    };
    assert.equal(refusal({ text: 'x' }), 'SendSMS: the message text must be a string, got an object');
    assert.equal(refusal(true), 'SendSMS: the message text must be a string, got a boolean');
    assert.equal(refusal(['x']), 'SendSMS: the message text must be a string, got an array');
    assert.equal(refusal(new Map()), 'SendSMS: the message text must be a string, got a Map');
  });

  it('kindOf: the article fits the word, a value from another realm reads the same', () => {
    assert.deepEqual(
      [
        {},
        [],
        1,
        'x',
        true,
        undefined,
        null,
        1n,
        Symbol('s'),
        () => 1,
        new Error('e'),
        new Uint8Array(1),
      ].map(kindOf),
      [
        'an object',
        'an array',
        'a number',
        'a string',
        'a boolean',
        'undefined',
        'null',
        'a bigint',
        'a symbol',
        'a function',
        'an Error',
        'a Uint8Array',
      ],
    );
    assert.equal(kindOf(runInNewContext('({ a: 1 })')), 'an object');
    assert.equal(kindOf(runInNewContext('new Map()')), 'a Map');
  });
});
