/**
 * The opt-out node (smsgw-optout) in Node-RED against the emulator: a flow adds numbers to a configuration's
 * opt-out list (a send to them is then refused before any request), removes them again, asks about them; each
 * change is on the list's log with its time and the source "flow"; junk is refused with VALIDATION before anything
 * changes; two configurations keep two lists.
 */
import assert from 'node:assert/strict';
import type { Node } from 'node-red';
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
import { sendSmsNode } from './send-sms-node';
import { MAX_NUMBERS } from '../../src/nodes/smsgw-optout';
import type { OptChange } from '../../src/nodes/optout/book';

type Rec = Record<string, unknown>;

const A = '+4917022220001';
const B = '+4917022220002';
const C = '+4917022220003';

/** The opt-out node "opt" on `gateway`, its output to the helper "out2". */
const optNode = (extra: Rec = {}): FlowNode => ({
  id: 'opt',
  type: 'smsgw-optout',
  gateway: 'cfg',
  action: 'check',
  numbers: 'payload',
  numbersType: 'msg',
  wires: [['out2']],
  ...extra,
});

const code = (m: Rec): unknown => (m.error as Rec | undefined)?.code;
const numbersOf = (m: Rec): Rec[] => (m.payload as { numbers: Rec[] }).numbers;

/** The last changes of a configuration's list (newest first), as its log keeps them. */
function recent(configId: string): Promise<OptChange[]> {
  const cfg = helper.getNode(configId) as unknown as {
    optOutHost: { list: { recent(n: number): Promise<OptChange[]> } };
  };
  return cfg.optOutHost.list.recent(20);
}

describe('nodes: the opt-out node (a flow adds, removes, checks numbers on the list)', function () {
  this.timeout(60_000);
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  const lastJobRecipients = (): string[] => {
    const snap = env.emu.control.snapshot() as { accounts: { jobs: { recipients: string[] }[] }[] };
    return snap.accounts.flatMap((a) => a.jobs).at(-1)?.recipients ?? [];
  };
  const flow = (opt: Rec = {}, config: Rec = {}): FlowNode[] =>
    flowWith(env.emu.url, [optNode(opt), sendSmsNode({ recipient: `${A},${B}` })], {
      optOut: true,
      ...config,
    });

  it('add: the numbers go on the list (logged with time and source "flow"), a send then leaves them out before any request', async () => {
    await loadFlow(flow({ action: 'add', name: 'crm' }));
    const result = collect('out2');
    const caught = collect('caught');
    const before = Date.now();
    send('opt', { payload: [A, '0049 170 2222 0003'] });
    await waitFor(() => result.messages.length === 1);
    assert.equal(caught.messages.length, 0);
    const payload = result.messages[0]!.payload as Rec;
    assert.equal(payload.action, 'add');
    assert.equal(payload.changed, 2);
    assert.deepEqual(
      numbersOf(result.messages[0]!).map((n) => [n.number, n.key, n.optedOut, n.changed, n.source]),
      [
        [A, A, true, true, 'flow'],
        ['0049 170 2222 0003', C, true, true, 'flow'],
      ],
    );
    const log = await recent('cfg');
    assert.deepEqual(
      log.map((c) => [c.key, c.action, c.source, c.by]),
      [
        [C.slice(1), 'added', 'flow', 'flow (opt-out node crm)'],
        [A.slice(1), 'added', 'flow', 'flow (opt-out node crm)'],
      ],
    );
    assert.ok(
      log.every((c) => c.at >= before && c.at <= Date.now()),
      'each change has its time',
    );

    // The same numbers again: nothing changes, nothing more is logged.
    send('opt', { payload: A });
    await waitFor(() => result.messages.length === 2);
    assert.equal((result.messages[1]!.payload as Rec).changed, 0);
    assert.equal(numbersOf(result.messages[1]!)[0]!.changed, false);
    assert.equal((await recent('cfg')).length, 2);

    // The send gate reads the same list: A is left out, B sent, OPTED_OUT for the Catch node.
    const out = collect('out');
    send('n1', { payload: 'offer', topic: 'after-add' });
    await waitFor(() => out.messages.length === 1 && caught.messages.length === 1);
    assert.deepEqual(lastJobRecipients(), [B]);
    assert.equal(code(caught.messages[0]!), 'OPTED_OUT');
  });

  it('check, then remove (msg.optOut over the node setting): the number is sent to again', async () => {
    // A and C are on the list from the test before (the list is durable: a new deploy reads it back).
    await loadFlow(flow({ action: 'check' }));
    const result = collect('out2');
    send('opt', { payload: `${A}; ${B}` });
    await waitFor(() => result.messages.length === 1);
    assert.equal((result.messages[0]!.payload as Rec).optedOut, 1);
    assert.deepEqual(
      numbersOf(result.messages[0]!).map((n) => [n.key, n.optedOut, n.changed]),
      [
        [A, true, undefined],
        [B, false, undefined],
      ],
    );
    send('opt', { payload: A, optOut: 'remove' });
    await waitFor(() => result.messages.length === 2);
    assert.equal((result.messages[1]!.payload as Rec).action, 'remove');
    assert.deepEqual(
      numbersOf(result.messages[1]!).map((n) => [n.key, n.optedOut, n.changed]),
      [[A, false, true]],
    );
    const log = await recent('cfg');
    assert.deepEqual([log[0]!.key, log[0]!.action, log[0]!.source], [A.slice(1), 'removed', 'flow']);
    // Removing a number that is not on the list changes and logs nothing.
    send('opt', { payload: B, optOut: 'remove' });
    await waitFor(() => result.messages.length === 3);
    assert.equal((result.messages[2]!.payload as Rec).changed, 0);
    assert.equal((await recent('cfg')).length, log.length);

    const out = collect('out');
    const caught = collect('caught');
    send('n1', { payload: 'welcome back', topic: 'after-remove' });
    await waitFor(() => out.messages.length === 1);
    assert.equal(caught.messages.length, 0);
    assert.deepEqual(lastJobRecipients(), [A, B]);
  });

  it('junk is refused with VALIDATION before anything changes: no number, one bad among good ones, too many, a bad msg.optOut', async () => {
    await loadFlow(flow({ action: 'add' }));
    // The list read back first (the admin route waits for it), then its log as it is.
    const shown = await helper.request().get('/smsgw-config/cfg/optout').expect(200);
    assert.equal((shown.body as Rec).count, 1, 'only C (from the first test) is on the list');
    const before = await recent('cfg');
    assert.ok(before.length > 0);
    const result = collect('out2');
    const caught = collect('caught');
    const junk: Rec[] = [
      { payload: 'call me maybe' },
      { payload: [B, 'not-a-number'] },
      { payload: '' },
      { payload: Array.from({ length: MAX_NUMBERS + 1 }, (_v, i) => `+49170${String(i).padStart(7, '0')}`) },
      { payload: B, optOut: 'added' },
      { payload: B, optOut: 42 },
    ];
    // One at a time: the Catch node hears them in this order.
    for (const [i, m] of junk.entries()) {
      send('opt', m);
      await waitFor(() => caught.messages.length === i + 1);
    }
    assert.equal(result.messages.length, 0);
    assert.deepEqual(
      caught.messages.map((m) => code(m)),
      junk.map(() => 'VALIDATION'),
    );
    const texts = caught.messages.map((m) => String((m.error as Rec).message));
    assert.match(texts[1]!, /not-a-number/);
    assert.match(texts[3]!, new RegExp(`${MAX_NUMBERS + 1} numbers in one msg, at most ${MAX_NUMBERS}`));
    assert.match(texts[4]!, /msg\.optOut/);
    assert.deepEqual(await recent('cfg'), before, 'the list did not change');
    const res = await helper.request().get('/smsgw-config/cfg/optout').expect(200);
    assert.equal((res.body as Rec).count, 1, 'only C (from the first test) is on the list');
  });

  it('two configurations keep two lists; a configuration without the list refuses with CONFIG', async () => {
    const nodes: FlowNode[] = [
      ...flowWith(env.emu.url, [optNode({ action: 'add' })], { id: 'cfg', optOut: true }),
      {
        id: 'cfg2',
        type: 'smsgw-config',
        baseUrl: env.emu.url,
        service: 'gateway',
        transport: 'soap11',
        optOut: true,
      },
      { id: 'cfg3', type: 'smsgw-config', baseUrl: env.emu.url, service: 'gateway', transport: 'soap11' },
      { ...optNode({ id: 'opt2', gateway: 'cfg2', action: 'check' }), z: 'tab', wires: [['out']] },
      { ...optNode({ id: 'opt3', gateway: 'cfg3', action: 'check' }), z: 'tab', wires: [['out']] },
    ];
    await loadFlow(nodes, { cfg: { user: 'demo', password: 'demo-password' }, cfg2: {}, cfg3: {} });
    const first = collect('out2');
    const second = collect('out');
    const caught = collect('caught');
    send('opt', { payload: B });
    await waitFor(() => first.messages.length === 1);
    assert.equal(numbersOf(first.messages[0]!)[0]!.optedOut, true);
    send('opt2', { payload: [B, C] });
    await waitFor(() => second.messages.length === 1);
    assert.deepEqual(
      numbersOf(second.messages[0]!).map((n) => n.optedOut),
      [false, false],
      "cfg's numbers are not on cfg2's list",
    );
    send('opt3', { payload: B });
    await waitFor(() => caught.messages.length === 1);
    assert.equal(code(caught.messages[0]!), 'CONFIG');
    assert.match(String((caught.messages[0]!.error as Rec).message), /no opt-out list/);
    void (helper.getNode('opt') as Node);
  });
});
