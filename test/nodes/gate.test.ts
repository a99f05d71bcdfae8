/**
 * The send gate in Node-RED: every operation that costs money or reaches a phone (catalogue `costs`), from every
 * node that can reach it, is counted by the spending guard; the any-operation node is no way around it, and
 * recipients separated by any separator the gateway might honour are all counted.
 */
import assert from 'node:assert/strict';
import { CATALOGUE, type OperationDef } from '../../src/catalogue';
import { sampleParams } from '../client/sample-params';
import {
  collect,
  DEMO,
  flowWith,
  helper,
  loadFlow,
  send,
  sleep,
  startEnv,
  stopEnv,
  waitFor,
  type Env,
  type FlowNode,
} from './helpers';
import { sendSmsNode, sendUdhNode } from './send-sms-node';

type Rec = Record<string, unknown>;

const MARKED = CATALOGUE.operations.filter((op) => op.costs === true);

interface Job {
  caption: string;
  recipients: string[];
}

describe('nodes: the send gate', function () {
  this.timeout(60_000);
  let env: Env;
  before(async () => {
    env = await startEnv();
    env.emu.control.setBalance('demo', 1_000_000);
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  const jobs = (): Job[] =>
    (env.emu.control.snapshot() as { accounts: { jobs: Job[] }[] }).accounts.flatMap((a) => a.jobs);
  /** SMS the emulator would bill for jobs whose caption starts with `caption`: recipients of each job. */
  const billed = (caption: string): number =>
    jobs()
      .filter((j) => j.caption.startsWith(caption))
      .reduce((n, j) => n + j.recipients.length, 0);
  /** Requests of marked operations that reached the emulator (an ask node's reads of replies aside). */
  const MARKED_NAMES = new Set(MARKED.map((op) => op.name));
  const sendRequests = (): string[] =>
    env.emu.requests
      .list()
      .map((r) => r.operation ?? '')
      .filter((name) => MARKED_NAMES.has(name));
  const dayCount = async (config = 'cfg'): Promise<number> => {
    const res = await helper.request().get(`/smsgw-config/${config}/budget`).expect(200);
    const day = (res.body as { windows: Rec[] }).windows.find((w) => w.window === 'day');
    return Number(day?.count);
  };
  /** flowWith, the config node named `id` and every node on it. */
  const flowFor = (id: string, config: Rec, nodes: FlowNode[]): FlowNode[] =>
    flowWith(
      env.emu.url,
      nodes.map((n) => ({ ...n, gateway: id })),
      { id, ...config },
    ).map((n) => (n.type === 'smsgw-config' ? { ...n, id } : n));
  const codes = (msgs: Rec[]): string[] => msgs.map((m) => String((m.error as Rec | undefined)?.code));

  const callNode = (extra: Rec = {}): FlowNode => ({
    id: 'n1',
    type: 'smsgw-call',
    gateway: 'cfg',
    service: 'send',
    operation: 'SendSMS',
    auth: 'auto',
    wires: [['out']],
    ...extra,
  });

  it('12 x SendSMS through the any-operation node on a daily limit of 10: 10 sent, 2 refused with BUDGET, counted 10', async () => {
    await loadFlow(flowWith(env.emu.url, [callNode()], { budgetDay: 10 }));
    const out = collect('out');
    const caught = collect('caught');
    for (let i = 0; i < 12; i++) {
      send('n1', {
        payload: {
          Caption: 'call-budget',
          Sender: 'Flow',
          Recipient: { string: ['+4917012345678'] },
          SMSText: `alarm ${i}`,
          SmsTyp: 'Standard',
          SendDate: '0001-01-01T00:00:00',
        },
      });
    }
    await waitFor(() => out.messages.length + caught.messages.length === 12, 30_000);
    assert.equal(out.messages.length, 10);
    assert.deepEqual(codes(caught.messages), ['BUDGET', 'BUDGET']);
    assert.equal(billed('call-budget'), 10);
    assert.equal(await dayCount(), 10);
    // The answer stays invoke()'s envelope, with what the gate adds: the caption as sent and its reference.
    const first = out.messages[0]!.payload as Rec;
    assert.equal(first.StatusCode, 'Ok');
    assert.equal((first.Value as Rec).Status, 'Ok');
    assert.match(String(first.caption), /^call-budget #[a-z2-9]{10}$/);
    assert.equal(first.recovered, false);
  });

  const TEN_BY_CR = Array.from({ length: 10 }, (_, i) => `+49170123450${String(i).padStart(2, '0')}`).join(
    '\r',
  );
  /** The node, and the msg (a fresh one per send: a node writes its answer into the msg) whose caption is `cr-<label>`. */
  const crRoutes: [string, FlowNode, () => Rec][] = [
    [
      'smsgw-send-sms',
      sendSmsNode({ recipient: 'recipient', recipientType: 'msg' }),
      () => ({ payload: 'cr', topic: 'cr-smsgw-send-sms', recipient: TEN_BY_CR }),
    ],
    [
      'smsgw-legacy-send-text',
      { id: 'n1', type: 'smsgw-legacy-send-text', operation: 'SendText', params: {}, wires: [['out']] },
      () => ({
        payload: 'cr',
        topic: 'cr-smsgw-legacy-send-text',
        params: { Recipient: TEN_BY_CR, SmsTyp: '1' },
      }),
    ],
    [
      'smsgw-call',
      callNode({ operation: 'SendSimpleSMS' }),
      () => ({
        payload: {
          Caption: 'cr-smsgw-call',
          Sender: '',
          Recipient: TEN_BY_CR,
          SMSText: 'cr',
          SmsTyp: 'Standard',
          SendDate: '',
        },
      }),
    ],
  ];
  for (const [label, node, msg] of crRoutes) {
    it(`${label}: recipients separated by CR are each counted (check off): 10 numbers in one entry count 10`, async () => {
      const id = `cfg-cr-${label}`;
      await loadFlow(flowFor(id, { budgetDay: 10, checkRecipients: false }, [node]), { [id]: DEMO });
      const out = collect('out');
      const caught = collect('caught');
      for (let i = 0; i < 3; i++) send('n1', msg());
      await waitFor(() => out.messages.length + caught.messages.length === 3, 30_000);
      assert.equal(out.messages.length, 1);
      assert.deepEqual(codes(caught.messages), ['BUDGET', 'BUDGET']);
      assert.equal(billed(`cr-${label} #`), 10);
      assert.equal(await dayCount(id), 10);
    });
  }

  /** Each way a node can reach a marked operation: the node, and the msg that makes it send that operation. */
  interface Route {
    label: string;
    node: FlowNode;
    msg: Rec;
  }

  const legacyParams = (op: OperationDef): Rec => {
    const p = sampleParams(op, 'gate');
    delete p.Caption;
    delete p.caption;
    return p;
  };

  /** The routes to `op` from every node type that offers it (its menu node, the fixed-operation nodes). */
  function routesTo(op: OperationDef): Route[] {
    const out: Route[] = [];
    const key = `${op.service}/${op.name}`;
    if (op.node === 'smsgw-send-sms')
      out.push({
        label: 'smsgw-send-sms',
        node: sendSmsNode({ operation: op.name }),
        msg: { payload: 'gate', topic: 'gate' },
      });
    else if (op.node === 'smsgw-legacy-send-text' || op.node === 'smsgw-customer')
      out.push({
        label: op.node,
        node: { id: 'n1', type: op.node, gateway: 'cfg', operation: op.name, params: {}, wires: [['out']] },
        msg: { payload: 'gate', topic: 'gate', params: legacyParams(op) },
      });
    if (key === 'send/SendUDH')
      out.push({
        label: 'smsgw-send-udh',
        node: sendUdhNode(),
        msg: { payload: '0605040B8423F0', topic: 'gate' },
      });
    if (key === 'send/SendHLR')
      out.push({
        label: 'smsgw-send-hlr',
        node: {
          id: 'n1',
          type: 'smsgw-send-hlr',
          gateway: 'cfg',
          recipient: '+4917012345678',
          recipientType: 'str',
          wires: [['out']],
        },
        msg: { topic: 'gate' },
      });
    if (key === 'send/SendSMS')
      out.push({
        label: 'smsgw-ask',
        node: {
          id: 'n1',
          type: 'smsgw-ask',
          gateway: 'cfg',
          question: 'payload',
          questionType: 'msg',
          numbers: '+4917012345678',
          numbersType: 'str',
          wait: 60,
          waitUnit: 's',
          rounds: 1,
          ack: '1',
          pass: '2',
          tell: 'none',
          interval: 60,
          wires: [['out'], ['out2']],
        },
        msg: { payload: 'gate?' },
      });
    // The any-operation node: by service, by the service's path, and by name on a path the config does not know.
    const params = sampleParams(op, 'gate');
    const path = { send: '/gateway/Send.asmx', legacy: '/soap/send.asmx' }[op.service as 'send' | 'legacy'];
    out.push(
      {
        label: 'smsgw-call (service)',
        node: callNode({ service: op.service, operation: op.name }),
        msg: { payload: params },
      },
      {
        label: 'smsgw-call (service path)',
        node: callNode({ service: 'path', path, operation: op.name }),
        msg: { payload: params },
      },
      {
        label: 'smsgw-call (unknown path)',
        node: callNode({ service: 'path', path: '/gateway/Other.asmx', operation: op.name }),
        msg: { payload: params },
      },
      {
        label: 'smsgw-call (msg.service)',
        node: callNode({ service: 'information', operation: 'QueryAccountBalance' }),
        msg: { payload: params, service: op.service, operation: op.name },
      },
    );
    return out;
  }

  it('every marked operation is in the catalogue: every send of both services, UDH, HLR, binary, SMSCR', () => {
    const names = MARKED.map((op) => `${op.service}/${op.name}`);
    for (const op of CATALOGUE.operations)
      if (op.sends) assert.ok(op.costs, `${op.name} sends but is not marked`);
    for (const key of ['send/SendSMS', 'send/SendHLR', 'send/SendUDH', 'legacy/SMSCR', 'legacy/SendBinURL'])
      assert.ok(names.includes(key), key);
    // Customer operations send nothing to a phone (CreateCustomer creates an account): unmarked.
    assert.deepEqual(
      MARKED.filter((op) => op.service === 'customer' || op.service === 'information'),
      [],
    );
  });

  for (const op of MARKED) {
    it(`a cap of 0 refuses ${op.service}/${op.name} with BUDGET from every node that reaches it; nothing reaches the gateway`, async () => {
      const routes = routesTo(op);
      assert.ok(routes.length >= 4, 'the any-operation node reaches every marked operation');
      for (const route of routes) {
        await loadFlow(flowWith(env.emu.url, [route.node], { budgetDay: 0 }));
        env.emu.requests.clear();
        const caught = collect('caught');
        const out = collect('out');
        send('n1', route.msg);
        await waitFor(() => caught.messages.length > 0 || out.messages.length > 0, 10_000);
        assert.deepEqual(
          codes(caught.messages),
          ['BUDGET'],
          `${route.label}: ${JSON.stringify(caught.messages.map((m) => (m.error as Rec).message))}`,
        );
        assert.equal(out.messages.length, 0, route.label);
        // A send refused late would show here: give it the time a request takes on a loaded machine.
        await sleep(50);
        assert.deepEqual(sendRequests(), [], `${route.label}: nothing reaches the gateway`);
        await helper.unload();
      }
    });
  }
});
