/**
 * The msg overrides a flow expects: send HLR's wait and its timeout, send SMS's tracking and its
 * timeout, send UDH's data format, balance's operation; read through the override table, checked before anything
 * is sent. Against the emulator, as a flow would use them; the checks also by themselves, with values made in
 * another JavaScript realm (a function node's).
 */
import assert from 'node:assert/strict';
import { runInNewContext } from 'node:vm';
import { util } from '@node-red/util';
import type { Node, NodeAPI, NodeMessage } from 'node-red';
import {
  ALL_NODES,
  DEMO,
  collect,
  flowWith,
  helper,
  loadFlow,
  nextMessage,
  send,
  sleep,
  startEnv,
  stopEnv,
  waitFor,
  type Env,
  type FlowNode,
} from './helpers';
import { sendSmsNode, sendUdhNode } from './send-sms-node';
import { startEmulator } from '../../src/emulator';
import { OVERRIDES, overridesOf } from '../../src/nodes/common/override-table';
import { isRecord, readOverride } from '../../src/nodes/common/overrides';
import { isGatewayError } from '../../src/errors';

// The function node of the Node-RED this package is tested with (its code runs in a vm context of its own).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const functionNode = require('@node-red/nodes/core/function/10-function.js') as unknown;

type Rec = Record<string, unknown>;
const errorOf = (msg: Rec): { code: string; message: string } =>
  msg.error as { code: string; message: string };

describe('nodes: msg overrides a flow expects', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
    env.emu.control.setBalance('demo', 1_000_000);
    helper.settings({
      userDir: env.userDir,
      smsgwSendHlrPollInterval: 100,
      smsgwDeliveryPollInterval: 150,
    } as Record<string, unknown>);
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  const requests = (operation: string): number =>
    env.emu.requests.list().filter((r) => r.operation === operation).length;

  describe('send HLR: msg.wait, msg.waitTimeout', () => {
    const hlr = (extra: Rec = {}): FlowNode => ({
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

    it('msg.wait = true on a node that does not wait: the HLR result comes with the msg', async () => {
      await loadFlow(flowWith(env.emu.url, [hlr({ wait: false })]));
      const out = nextMessage('out');
      send('n1', { recipient: '+4917022200001', wait: true });
      // The job must exist before it is finished: a fixed 150 ms missed a SendHLR slowed by a loaded machine.
      await waitFor(() => env.emu.state.jobs().some((j) => j.recipients.includes('+4917022200001')));
      env.emu.control.finishJobs();
      const p = (await out).payload as { hlr?: { NecValue: string }[] };
      assert.equal(p.hlr?.length, 1);
      assert.equal(p.hlr[0]!.NecValue, 'OK');
    });

    it('msg.wait = false (or "false") on a node that waits: the JobId at once, no HLR query', async () => {
      await loadFlow(flowWith(env.emu.url, [hlr({ wait: true, waitTimeout: 60 })]));
      for (const wait of [false, 'false']) {
        env.emu.requests.clear();
        const out = nextMessage('out');
        send('n1', { recipient: '+4917022200002', wait });
        const p = (await out).payload as { JobId: number; hlr?: unknown };
        assert.ok(p.JobId > 0);
        assert.equal(p.hlr, undefined);
        assert.equal(requests('QueryHLRJobsByJobID'), 0);
      }
    });

    it('msg.waitTimeout replaces the wait of the dialog: TIMEOUT after it, with the JobId', async () => {
      const slow = await startEmulator({ port: 0, timing: { processingMs: 600_000 } });
      try {
        await loadFlow(flowWith(slow.url, [hlr({ wait: true, waitTimeout: 60 })]));
        // The dialog's 60 s would end the wait for the Catch node first (and name 60 s).
        const caught = nextMessage('caught', 15_000);
        send('n1', { recipient: '+4917022200003', waitTimeout: '0.3' });
        const msg = await caught;
        assert.equal(errorOf(msg).code, 'TIMEOUT');
        assert.equal(errorOf(msg).message, 'QueryHLRJobsByJobID: timeout: no HLR result within 0.3 s');
        assert.ok((msg.payload as { JobId: number }).JobId > 0);
      } finally {
        await helper.unload();
        await slow.close();
      }
    });

    for (const [label, extra] of [
      ['msg.waitTimeout = "soon"', { waitTimeout: 'soon' }],
      ['msg.waitTimeout = 0', { waitTimeout: 0 }],
      ['msg.wait = "yes"', { wait: 'yes' }],
    ] as const) {
      it(`${label}: VALIDATION naming it, nothing sent`, async () => {
        await loadFlow(flowWith(env.emu.url, [hlr({ wait: true })]));
        env.emu.requests.clear();
        const caught = nextMessage('caught');
        send('n1', { recipient: '+4917022200004', ...extra });
        const error = errorOf(await caught);
        assert.equal(error.code, 'VALIDATION');
        assert.match(error.message, new RegExp(`^msg\\.${Object.keys(extra)[0]!}: `));
        assert.equal(requests('SendHLR'), 0);
      });
    }
  });

  describe('send SMS: msg.track, msg.trackTimeout', () => {
    const tracked = (extra: Rec = {}): FlowNode =>
      sendSmsNode({ track: true, trackTimeout: 5, wires: [['out'], ['out2'], ['out3']], ...extra });
    const flow = (node: FlowNode): FlowNode[] => [
      ...flowWith(env.emu.url, [node]),
      { id: 'out3', type: 'helper', z: 'tab' },
    ];

    it('msg.track = false on a tracking node: sent, not tracked (no report poll, nothing on outputs 2 and 3)', async () => {
      await loadFlow(flow(tracked()));
      env.emu.requests.clear();
      const later = [collect('out2'), collect('out3')];
      const sent = nextMessage('out');
      send('n1', { payload: 'not tracked', track: false });
      assert.ok(((await sent).payload as { JobId: number }).JobId > 0);
      env.emu.control.finishJobs();
      await sleep(600);
      for (const c of later) c.stop();
      assert.deepEqual(
        later.map((c) => c.messages.length),
        [0, 0],
      );
      assert.equal(requests('QueryReceivedDLR'), 0);
    });

    it('msg.trackTimeout replaces Wait for reports for that job: output 3 after it', async () => {
      await loadFlow(flow(tracked({ trackTimeout: 5 })));
      const timedOut = nextMessage('out3', 8000);
      // Due in an hour: no report can come before the 0.6 s deadline.
      send('n1', { payload: 'due later', trackTimeout: 0.01, sendDate: new Date(Date.now() + 3_600_000) });
      const o = (await timedOut).payload as { outcome: string; missing: number };
      assert.equal(o.outcome, 'timeout');
      assert.equal(o.missing, 1);
    });

    for (const [label, extra, named] of [
      ['msg.track = true', { track: true }, 'msg.track'],
      ['msg.trackTimeout', { trackTimeout: 10 }, 'msg.trackTimeout'],
    ] as const) {
      it(`${label} on a node without tracking (no outputs 2 and 3): VALIDATION before anything is sent`, async () => {
        await loadFlow(flowWith(env.emu.url, [sendSmsNode()]));
        env.emu.requests.clear();
        const caught = nextMessage('caught');
        send('n1', { payload: 'where would the outcome go', ...extra });
        const error = errorOf(await caught);
        assert.equal(error.code, 'VALIDATION');
        assert.equal(
          error.message,
          `${named}: this node does not track delivery (no outputs 2 and 3): tick Track delivery in its dialog`,
        );
        assert.equal(requests('SendSMS'), 0);
      });
    }

    it('msg.track = "sometimes", msg.trackTimeout = -1: VALIDATION naming the property, nothing sent', async () => {
      await loadFlow(flow(tracked()));
      env.emu.requests.clear();
      for (const [extra, text] of [
        [{ track: 'sometimes' }, 'msg.track: true or false'],
        [{ trackTimeout: -1 }, 'msg.trackTimeout: a number above 0, at most 35791 (minutes)'],
      ] as const) {
        const caught = nextMessage('caught');
        send('n1', { payload: 'x', ...extra });
        const error = errorOf(await caught);
        assert.equal(error.code, 'VALIDATION');
        assert.equal(error.message, text);
      }
      assert.equal(requests('SendSMS'), 0);
    });
  });

  describe('send UDH: msg.dataFormat', () => {
    it('"base64" reads a text that also looks like hex as base64 (the dialog says auto)', async () => {
      await loadFlow(flowWith(env.emu.url, [sendUdhNode({ dataFormat: 'auto' })]));
      const out = nextMessage('out');
      send('n1', { payload: '0605040B', dataFormat: 'base64', topic: 'udh-base64' });
      const p = (await out).payload as { JobId: number; bytes: number; caption: string };
      const job = env.emu.control.snapshot() as {
        accounts: { jobs: { caption: string; binData: string }[] }[];
      };
      const sent = job.accounts.flatMap((a) => a.jobs).find((j) => j.caption === p.caption);
      assert.equal(sent?.binData, Buffer.from('0605040B', 'base64').toString('hex').toUpperCase());
      assert.equal(p.bytes, 6);
    });

    it('"hex" refuses base64 text; an unknown format is refused naming msg.dataFormat; nothing sent', async () => {
      await loadFlow(flowWith(env.emu.url, [sendUdhNode()]));
      env.emu.requests.clear();
      for (const [extra, text] of [
        [{ payload: 'AQIDBA==', dataFormat: 'hex' }, 'SendUDH: the data is not hex'],
        [{ payload: '0605', dataFormat: 'binary' }, 'msg.dataFormat: one of auto, hex, base64'],
      ] as const) {
        const caught = nextMessage('caught');
        send('n1', extra);
        const error = errorOf(await caught);
        assert.equal(error.code, 'VALIDATION');
        assert.equal(error.message, text);
      }
      assert.equal(requests('SendUDH'), 0);
    });
  });

  describe('balance: msg.operation', () => {
    const balance = (operation: string): FlowNode => ({
      id: 'n1',
      type: 'smsgw-balance',
      gateway: 'cfg',
      operation,
      threshold: '',
      thresholdType: 'num',
      wires: [['out'], ['out2']],
    });

    it('picks the operation for one msg: QueryBalance2 on a QueryAccountBalance node, auto = the config', async () => {
      await loadFlow(flowWith(env.emu.url, [balance('QueryAccountBalance')]));
      for (const [operation, expected] of [
        ['QueryBalance2', 'QueryBalance2'],
        ['auto', 'QueryAccountBalance'],
        [undefined, 'QueryAccountBalance'],
      ] as const) {
        env.emu.requests.clear();
        const out = nextMessage('out');
        send('n1', operation === undefined ? {} : { operation });
        assert.equal(((await out).payload as { operation: string }).operation, expected);
        assert.equal(requests(expected), 1, expected);
      }
    });

    it('an operation the node does not offer is refused before the query', async () => {
      await loadFlow(flowWith(env.emu.url, [balance('auto')]));
      env.emu.requests.clear();
      const caught = nextMessage('caught');
      send('n1', { operation: 'SendSMS' });
      const error = errorOf(await caught);
      assert.equal(error.code, 'VALIDATION');
      assert.match(error.message, /operation "SendSMS" is not offered by smsgw-balance/);
      assert.equal(env.emu.requests.list().length, 0);
    });
  });

  it('set in a real function node (its own realm): msg.wait, msg.dataFormat and msg.operation are followed', async () => {
    const fn = (func: string): FlowNode => ({ id: 'f', type: 'function', func, outputs: 1, wires: [['n1']] });
    const viaFunction = async (node: FlowNode, func: string): Promise<Rec> => {
      await helper.load([functionNode, ...ALL_NODES] as never, flowWith(env.emu.url, [fn(func), node]), {
        cfg: DEMO,
      });
      env.emu.requests.clear();
      const out = nextMessage('out');
      send('f', { payload: 'go' });
      return (await out).payload as Rec;
    };
    // A node that waits for the HLR result, told by the function node not to: the JobId at once.
    const hlr = await viaFunction(
      {
        id: 'n1',
        type: 'smsgw-send-hlr',
        gateway: 'cfg',
        recipient: '',
        recipientType: 'str',
        wait: true,
        waitTimeout: 60,
        wires: [['out']],
      },
      `msg.recipients = ['+4917022200009']; msg.wait = false; return msg;`,
    );
    assert.ok(Number(hlr.JobId) > 0);
    assert.equal(hlr.hlr, undefined);
    assert.equal(requests('QueryHLRJobsByJobID'), 0);
    await helper.unload();
    const udh = await viaFunction(
      sendUdhNode({ dataFormat: 'auto' }),
      `msg.payload = '0605040B'; msg.dataFormat = 'base64'; return msg;`,
    );
    assert.equal(udh.bytes, 6);
    await helper.unload();
    const balance = await viaFunction(
      {
        id: 'n1',
        type: 'smsgw-balance',
        gateway: 'cfg',
        operation: 'QueryAccountBalance',
        threshold: '',
        thresholdType: 'num',
        wires: [['out'], ['out2']],
      },
      `msg.operation = 'QueryBalance2'; return msg;`,
    );
    assert.equal(balance.operation, 'QueryBalance2');
    assert.equal(requests('QueryBalance2'), 1);
  });

  it('values from a function node (another realm) are taken by shape: msg.params of query jobs', async () => {
    await loadFlow(
      flowWith(env.emu.url, [
        {
          id: 'n1',
          type: 'smsgw-query-jobs',
          gateway: 'cfg',
          operation: 'QueryJobs',
          params: {},
          wires: [['out']],
        },
      ]),
    );
    env.emu.requests.clear();
    const out = nextMessage('out');
    send('n1', runInNewContext('({ params: { StartDate: "2026-11-01T00:00:00Z" } })') as Rec);
    assert.ok(Array.isArray((await out).payload));
    const request = env.emu.requests.list().find((r) => r.operation === 'QueryJobs');
    assert.match(String(request?.request), /<StartDate>2026-11-01T/);
  });
});

describe('msg overrides: the checks and the reader', () => {
  const refused = (f: () => unknown, text: RegExp): void => {
    assert.throws(f, (e: unknown) => isGatewayError(e) && e.code === 'VALIDATION' && text.test(e.message));
  };

  it("the checks of msg.track, msg.waitTimeout and msg.dataFormat are their fields' rules, naming the property", () => {
    const check = (type: keyof typeof OVERRIDES, prop: string) => (v: unknown) =>
      readOverride(
        { [prop]: v } as NodeMessage,
        (OVERRIDES[type] as Record<string, Parameters<typeof readOverride>[1]>)[prop]!,
      );
    const track = check('smsgw-send-sms', 'track');
    assert.deepEqual([true, false, 'true', ' FALSE '].map(track), [true, false, true, false]);
    for (const bad of ['yes', 1, 0, {}]) refused(() => track(bad), /^msg\.track: true or false$/);
    // The value is not repeated: a msg may carry a long text where a word belongs.
    refused(() => track('x'.repeat(1_000_000)), /^msg\.track: true or false$/);
    const wait = check('smsgw-send-hlr', 'waitTimeout');
    assert.deepEqual([0.5, '2', ' 90 ', 2_147_483].map(wait), [0.5, 2, 90, 2_147_483]);
    for (const bad of [0, -1, '', 'soon', Infinity, NaN, true, [], 2_147_484, 1e12])
      refused(() => wait(bad), /^msg\.waitTimeout: a number above 0, at most 2147483 \(seconds\)$/);
    const format = check('smsgw-send-udh', 'dataFormat');
    assert.equal(format(' hex '), 'hex');
    for (const bad of ['HEX', 'binary', 1])
      refused(() => format(bad), /^msg\.dataFormat: one of auto, hex, base64$/);
  });

  it('isRecord: a plain object of any realm, not an array, a Buffer, a Date or a typed array', () => {
    for (const yes of [{}, Object.create(null), runInNewContext('({ a: 1 })'), JSON.parse('{"a":1}')])
      assert.equal(isRecord(yes), true);
    for (const no of [
      [],
      runInNewContext('[]'),
      Buffer.from('x'),
      runInNewContext('new Uint8Array(2)'),
      new Date(),
      runInNewContext('new Date()'),
      null,
      'x',
      1,
    ])
      assert.equal(isRecord(no), false, String(no));
  });

  it('msg.soapHeaders from a function node is an object of header blocks; a list is refused', () => {
    const headers = OVERRIDES['smsgw-call'].soapHeaders;
    const foreign = runInNewContext('({ AuthHeader: { Token: "t" } })') as Rec;
    assert.equal(readOverride({ soapHeaders: foreign } as NodeMessage, headers), foreign);
    refused(
      () => readOverride({ soapHeaders: runInNewContext('[1]') } as NodeMessage, headers),
      /msg\.soapHeaders must be an object/,
    );
  });

  it('the reader: msg.recipients before msg.recipient before the field; undefined and null are not set', () => {
    const RED = { util } as unknown as NodeAPI;
    const node = { id: 'n', type: 'smsgw-send-hlr' } as unknown as Node;
    const o = overridesOf(RED, node, 'smsgw-send-hlr', { recipient: '+491', recipientType: 'str' });
    const m = (v: Rec): NodeMessage => v as NodeMessage;
    assert.deepEqual(o.field(m({ recipients: ['+492'], recipient: '+493' }), 'recipient'), ['+492']);
    assert.deepEqual(o.field(m({ recipients: null, recipient: '+493' }), 'recipient'), ['+493']);
    assert.deepEqual(o.field(m({}), 'recipient'), ['+491']);
    assert.equal(o.msg(m({ wait: undefined }), 'wait'), undefined);
    assert.equal(o.msg(m({ wait: 'true' }), 'wait'), true);
    assert.throws(() => o.field(m({}), 'wait'), /msg\.wait does not override a typed field/);
  });
});
