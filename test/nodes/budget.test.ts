/**
 * The spending guard in Node-RED: a flapping sensor's 1,000 alarms against a daily limit of
 * 50 segments (refused with BUDGET, or held in the outbox), one warning at 40 as a msg of the smsgw-budget node,
 * a restart in the middle, the critical reserve, how sends whose outcome is unknown count, the status and the
 * editor's count.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { NodeAPI } from 'node-red';
import type { NextFunction, Request, Response } from 'express';
import {
  ALL_NODES,
  collect,
  DEMO,
  flowWith,
  helper,
  loadFlow,
  send,
  startEnv,
  statuses,
  stopEnv,
  waitFor,
  warnings,
  type Env,
  type FlowNode,
} from './helpers';
import { sendSmsNode } from './send-sms-node';
import { readStateFile } from '../store/read';

type Rec = Record<string, unknown>;

const ALARMS = 1000;

/** The budget node "b" on config "cfg", its output wired to the helper "out2". */
const budgetNode: FlowNode = { id: 'b', type: 'smsgw-budget', gateway: 'cfg', wires: [['out2']] };

describe('nodes: spending guard (Budget tab, smsgw-budget node)', function () {
  this.timeout(60_000);
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  /** Jobs the emulator made with this caption (as sent: caption + reference). */
  const jobs = (caption: string): number =>
    (env.emu.control.snapshot() as { accounts: { jobs: { caption: string }[] }[] }).accounts.flatMap((a) =>
      a.jobs.filter((j) => j.caption.startsWith(`${caption} #`)),
    ).length;
  const budgetFile = (): string => path.join(env.userDir, 'smsgw-state', 'budget.cfg.json');

  /** `n` alarms into n1, as fast as a flapping sensor sends them. */
  function alarms(n: number, caption: string, extra: Rec = {}): void {
    for (let i = 0; i < n; i++) send('n1', { payload: `freezer warm (${i})`, topic: caption, ...extra });
  }

  /** flowWith, the config node named `id` and every node on it. */
  const flowFor = (id: string, config: Rec, nodes: FlowNode[]): FlowNode[] =>
    flowWith(
      env.emu.url,
      nodes.map((n) => ({ ...n, gateway: id })),
      { id, ...config },
    ).map((n) => (n.type === 'smsgw-config' ? { ...n, id } : n));

  const codes = (msgs: Rec[]): string[] => msgs.map((m) => String((m.error as Rec | undefined)?.code));

  it(`${ALARMS} alarms against a daily limit of 50: exactly 50 go out, ${ALARMS - 50} are refused with BUDGET, one warning at 40`, async () => {
    await loadFlow(flowWith(env.emu.url, [sendSmsNode(), budgetNode], { budgetDay: 50 }));
    const out = collect('out');
    const caught = collect('caught');
    const events = collect('out2');
    alarms(ALARMS, 'flap-refuse');
    await waitFor(() => out.messages.length + caught.messages.length === ALARMS, 30_000);
    assert.equal(out.messages.length, 50);
    assert.equal(caught.messages.length, ALARMS - 50);
    assert.deepEqual([...new Set(codes(caught.messages))], ['BUDGET']);
    assert.equal(jobs('flap-refuse'), 50);
    // The error names the limit and when it resets; its cause carries the figures for a flow.
    const error = caught.messages[0]!.error as Rec;
    assert.match(
      String(error.message),
      /SendSMS: daily limit of 50 reached \(50 counted, this message 1: segments x recipients\): not sent; it resets at \d{4}-\d\d-\d\d 00:00 local time/,
    );
    assert.deepEqual((error.cause as Rec).budget, {
      window: 'day',
      limit: 50,
      count: 50,
      cost: 1,
      held: false,
    });
    // One warning (at 40 of 50), then one message when the limit first stopped a send.
    await waitFor(() => events.messages.length >= 2);
    assert.deepEqual(
      events.messages.map((m) => [m.topic, (m.payload as Rec).count, (m.payload as Rec).percent]),
      [
        ['budget/warning', 40, 80],
        ['budget/limit', 50, 100],
      ],
    );
    assert.equal((events.messages[0]!.payload as Rec).window, 'day');
    // The send node shows the limit, the budget node its count (the test runtime shows texts as their keys).
    const last = statuses('n1').at(-1)!;
    assert.equal(last.fill, 'red');
    assert.match(String(last.text), /budget\.statusReached$|^budget reached: day 50\/50 \(until 00:00\)$/);
    assert.equal(statuses('b').at(-1)?.fill, 'red');
    // The count is durable: mode 600.
    assert.equal(statSync(budgetFile()).mode & 0o777, 0o600);
  });

  it('a restart in the middle does not reset the count (nor the warning)', async () => {
    const flow = flowFor('cfg-restart', { budgetDay: 50 }, [sendSmsNode(), budgetNode]);
    await loadFlow(flow, { 'cfg-restart': DEMO });
    let out = collect('out');
    let events = collect('out2');
    alarms(30, 'flap-restart');
    await waitFor(() => out.messages.length === 30);
    await helper.unload();
    await loadFlow(flow, { 'cfg-restart': DEMO });
    out = collect('out');
    const caught = collect('caught');
    events = collect('out2');
    alarms(ALARMS - 30, 'flap-restart');
    await waitFor(() => out.messages.length + caught.messages.length === ALARMS - 30, 30_000);
    assert.equal(out.messages.length, 20);
    assert.equal(caught.messages.length, ALARMS - 50);
    assert.equal(jobs('flap-restart'), 50);
    await waitFor(() => events.messages.length >= 2);
    assert.deepEqual(
      events.messages.map((m) => [m.topic, (m.payload as Rec).count]),
      [
        ['budget/warning', 40],
        ['budget/limit', 50],
      ],
    );
  });

  it(`hold: ${ALARMS} alarms with the outbox on: 50 go out, ${ALARMS - 50} are held in the outbox (no error), one warning`, async function () {
    this.timeout(150_000);
    await loadFlow(
      flowFor('cfg-hold', { budgetDay: 50, budgetOver: 'hold', outbox: true }, [sendSmsNode(), budgetNode]),
      { 'cfg-hold': DEMO },
    );
    const out = collect('out');
    const caught = collect('caught');
    const events = collect('out2');
    alarms(ALARMS, 'flap-hold');
    const kept = async (): Promise<number> => {
      const res = await helper.request().get('/smsgw-config/cfg-hold/outbox').expect(200);
      return (res.body as { entries: unknown[] }).entries.length;
    };
    // A bound that ends a hung test (a loaded machine needs a minute), not a measure.
    const end = Date.now() + 100_000;
    while (out.messages.length < 50 || (await kept()) < ALARMS - 50) {
      assert.ok(Date.now() < end, `${out.messages.length} sent, ${await kept()} kept`);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(statuses('n1').some((s) => /status\.kept|kept in outbox/.test(String(s.text))));
    assert.equal(out.messages.length, 50);
    assert.equal(caught.messages.length, 0);
    assert.equal(jobs('flap-hold'), 50);
    const journal = path.join(env.userDir, 'smsgw-outbox', 'cfg-hold.jsonl');
    const res = await helper.request().get('/smsgw-config/cfg-hold/outbox').expect(200);
    assert.equal((res.body as { entries: Rec[] }).entries.length, ALARMS - 50);
    assert.match(
      String(((res.body as { entries: Rec[] }).entries[0] as Rec).lastError),
      /held in the outbox until then/,
    );
    assert.ok(existsSync(journal));
    await waitFor(() => events.messages.length >= 2);
    assert.deepEqual(
      events.messages.map((m) => [m.topic, (m.payload as Rec).count]),
      [
        ['budget/warning', 40],
        ['budget/limit', 50],
      ],
    );
    // Held until the day resets: nothing more goes out meanwhile.
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(jobs('flap-hold'), 50);
  });

  it('refusing with the outbox on: refused before the outbox accepts it (done(err), nothing stored, nothing sent)', async () => {
    await loadFlow(flowFor('cfg-box', { budgetDay: 2, outbox: true }, [sendSmsNode()]), { 'cfg-box': DEMO });
    const out = collect('out');
    const caught = collect('caught');
    alarms(5, 'box-refuse');
    await waitFor(() => out.messages.length + caught.messages.length === 5);
    assert.equal(out.messages.length, 2);
    assert.deepEqual(codes(caught.messages), ['BUDGET', 'BUDGET', 'BUDGET']);
    const res = await helper.request().get('/smsgw-config/cfg-box/outbox').expect(200);
    assert.equal((res.body as { entries: unknown[] }).entries.length, 0);
    assert.equal(jobs('box-refuse'), 2);
  });

  it('msg.priority = "critical" may use the reserve above the limit; beyond it, refused too', async () => {
    await loadFlow(flowFor('cfg-crit', { budgetDay: 2, budgetReserve: 1 }, [sendSmsNode()]), {
      'cfg-crit': DEMO,
    });
    const out = collect('out');
    const caught = collect('caught');
    alarms(3, 'crit');
    await waitFor(() => out.messages.length + caught.messages.length === 3);
    assert.equal(caught.messages.length, 1);
    alarms(2, 'crit', { priority: 'critical' });
    await waitFor(() => out.messages.length + caught.messages.length === 5);
    assert.equal(out.messages.length, 3);
    assert.equal(caught.messages.length, 2);
    assert.match(
      String((caught.messages[1]!.error as Rec).message),
      /daily limit of 2 and the reserve of 1 for critical messages reached \(3 counted/,
    );
  });

  it('a send whose outcome is unknown counts (the safe side); one surely not sent does not', async () => {
    await loadFlow(flowFor('cfg-unknown', { budgetDay: 10, timeout: 2 }, [sendSmsNode()]), {
      'cfg-unknown': DEMO,
    });
    const caught = collect('caught');
    // The gateway answers 503 (never took it): not counted.
    env.emu.faults.add({ kind: 'http503', operation: 'SendSMS', count: 100 });
    alarms(1, 'sure-fail');
    await waitFor(() => caught.messages.length === 1, 20_000);
    env.emu.faults.clear();
    assert.equal((caught.messages[0]!.error as Rec).code, 'HTTP');
    let res = await helper.request().get('/smsgw-config/cfg-unknown/budget').expect(200);
    assert.equal(((res.body as { windows: Rec[] }).windows[0] as Rec).count, 0);
    // The answer is lost after the gateway made the job, and the lookup cannot tell: it may be out, so it counts.
    env.emu.faults.add({ kind: 'commitThenDrop', operation: 'SendSMS' });
    env.emu.faults.add({ kind: 'http503', operation: 'QueryJobInfoByJobCaption', count: 1000 });
    alarms(1, 'unknown');
    await waitFor(() => caught.messages.length === 2, 40_000);
    env.emu.faults.clear();
    assert.equal(
      (caught.messages[1]!.error as Rec).ambiguous ??
        ((caught.messages[1]!.error as Rec).cause as Rec).ambiguous,
      true,
    );
    res = await helper.request().get('/smsgw-config/cfg-unknown/budget').expect(200);
    assert.equal(((res.body as { windows: Rec[] }).windows[0] as Rec).count, 1);
  });

  it('the editor reads the counts (admin route), the budget node answers a msg with them, the nodes warn at the share', async () => {
    await loadFlow(
      flowFor('cfg-view', { budgetHour: 100, budgetDay: 5, budgetMonth: 1000, budgetWarn: 60 }, [
        sendSmsNode(),
        budgetNode,
        { id: 'bal', type: 'smsgw-balance', wires: [[]] },
      ]),
      { 'cfg-view': DEMO },
    );
    const out = collect('out');
    alarms(3, 'view');
    await waitFor(() => out.messages.length === 3);
    const res = await helper.request().get('/smsgw-config/cfg-view/budget').expect(200);
    const body = res.body as { enabled: boolean; windows: Rec[]; warnPercent: number; hold: boolean };
    assert.equal(body.enabled, true);
    assert.equal(body.hold, false);
    assert.equal(body.warnPercent, 60);
    assert.deepEqual(
      body.windows.map((w) => [w.window, w.count, w.limit, w.warnAt]),
      [
        ['hour', 3, 100, 60],
        ['day', 3, 5, 3],
        ['month', 3, 1000, 600],
      ],
    );
    // At 3 of 5 (60 %): the send node shows the warning in yellow.
    const last = statuses('n1').at(-1)!;
    assert.equal(last.fill, 'yellow');
    assert.match(String(last.text), /budget\.statusWarning$|^budget day 3\/5$/);
    // A node that sends nothing (balance) shows its own result, not the guard's state.
    send('bal', {});
    await waitFor(() => statuses('bal').some((st) => st.fill === 'green'));
    assert.equal(statuses('bal').at(-1)!.fill, 'green');
    const answer = collect('out2');
    send('b', { topic: 'how much?' });
    await waitFor(() => answer.messages.some((m) => m.topic === 'how much?'));
    const payload = answer.messages.find((m) => m.topic === 'how much?')!.payload as Rec;
    assert.deepEqual(
      (payload.windows as Rec[]).map((w) => w.count),
      [3, 3, 3],
    );
    // A config without limits: nothing counted, the route says so.
    const none = await helper.request().get('/smsgw-config/cfg/budget').expect(200);
    assert.deepEqual(none.body, { enabled: false, windows: [] });
    const file = path.join(env.userDir, 'smsgw-state', 'budget.cfg-view.json');
    assert.equal(readStateFile(file).version, 1);
  });

  it('the count is read with smsgw-config.read, like the outbox list', async () => {
    const granted = new Set<string>();
    const withAuth = (RED: NodeAPI): void => {
      // The helper's RED.auth lets everything through; this one behaves like adminAuth for one user.
      (RED as unknown as { auth: unknown }).auth = {
        needsPermission: (permission: string) => (_req: Request, res: Response, next: NextFunction) =>
          granted.has(permission) ? next() : res.status(401).end(),
      };
    };
    await helper.load([withAuth, ...ALL_NODES], flowWith(env.emu.url, [], { budgetDay: 5 }), { cfg: DEMO });
    await helper.request().get('/smsgw-config/cfg/budget').expect(401);
    granted.add('smsgw-config.read');
    const res = await helper.request().get('/smsgw-config/cfg/budget').expect(200);
    assert.equal((res.body as { enabled: boolean }).enabled, true);
  });

  it('"hold" without the outbox: a warning at deploy, and sends over the limit are refused, not held', async () => {
    await loadFlow(flowFor('cfg-nobox', { budgetDay: 1, budgetOver: 'hold' }, [sendSmsNode()]), {
      'cfg-nobox': DEMO,
    });
    assert.ok(warnings('cfg-nobox').some((w) => /holdNeedsOutbox|needs the outbox/.test(w)));
    const out = collect('out');
    const caught = collect('caught');
    alarms(2, 'nobox');
    await waitFor(() => out.messages.length + caught.messages.length === 2);
    assert.deepEqual(codes(caught.messages), ['BUDGET']);
    assert.equal((((caught.messages[0]!.error as Rec).cause as Rec).budget as Rec).held, false);
  });

  it('a damaged count file: copied aside, named in the log, the counts lost until a person confirms (route or msg)', async () => {
    const file = path.join(env.userDir, 'smsgw-state', 'budget.cfg-damaged.json');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, '{"version":1,"hour":[[1,');
    const b = { ...budgetNode, id: 'bd' };
    await loadFlow(flowFor('cfg-damaged', { budgetDay: 3 }, [sendSmsNode(), b]), { 'cfg-damaged': DEMO });
    const events = collect('out2');
    const node = helper.getNode('cfg-damaged') as unknown as {
      error: { args: unknown[][]; thisValues: unknown[] };
    };
    const logged = (): string[] =>
      node.error.args.filter((_a, i) => node.error.thisValues[i] === node).map((a) => String(a[0]));
    await waitFor(() => logged().some((l) => /Spending guard: the counts were lost/.test(l)));
    assert.ok(
      logged().some((l) => l.startsWith(`State file ${file} could not be read whole`)),
      logged().join('\n'),
    );
    assert.ok(readdirSync(path.dirname(file)).some((f) => f.startsWith('budget.cfg-damaged.json.damaged-')));
    // The budget node tells the flow; its status and the send node's are red.
    await waitFor(() => events.messages.some((m) => m.topic === 'budget/lost'));
    const lost = events.messages.find((m) => m.topic === 'budget/lost')!.payload as Rec;
    assert.match(String(lost.why), /the count file was damaged/);
    assert.equal(lost.where, file);
    assert.equal(statuses('bd').at(-1)!.fill, 'red');
    const out = collect('out');
    const caught = collect('caught');
    alarms(1, 'after-damage');
    await waitFor(() => caught.messages.length === 1);
    assert.deepEqual(codes(caught.messages), ['BUDGET']);
    assert.match(String((caught.messages[0]!.error as Rec).message), /counts were lost.*Confirm counts/);
    assert.equal(jobs('after-damage'), 0, 'nothing sent while the counts are lost');
    const shown = await helper.request().get('/smsgw-config/cfg-damaged/budget').expect(200);
    assert.match(String(((shown.body as Rec).lost as Rec).why), /damaged/);
    assert.deepEqual(
      ((shown.body as Rec).windows as Rec[]).map((w) => w.count),
      [3],
      'the day counts as spent up to its limit',
    );
    // Confirmed in the editor: logged, and sends are counted from there.
    const confirmed = await helper.request().post('/smsgw-config/cfg-damaged/budget/confirm').expect(200);
    assert.equal((confirmed.body as Rec).lost, undefined);
    await waitFor(() => events.messages.some((m) => m.topic === 'budget/confirmed'));
    alarms(1, 'confirmed');
    await waitFor(() => out.messages.length === 1);
    assert.equal(jobs('confirmed'), 1);
    assert.equal(readStateFile(file).lost, undefined, 'kept across a restart');
  });

  it('counts lost can be confirmed by a msg to the budget node (msg.topic "budget/confirm"), logged', async () => {
    const file = path.join(env.userDir, 'smsgw-state', 'budget.cfg-msg.json');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, 'garbage');
    const b = { ...budgetNode, id: 'bm' };
    await loadFlow(flowFor('cfg-msg', { budgetDay: 3 }, [sendSmsNode(), b]), { 'cfg-msg': DEMO });
    const events = collect('out2');
    await waitFor(() => events.messages.some((m) => m.topic === 'budget/lost'));
    send('bm', { topic: 'budget/confirm' });
    await waitFor(() => events.messages.some((m) => m.topic === 'budget/confirm'));
    const answer = events.messages.find((m) => m.topic === 'budget/confirm')!.payload as Rec;
    assert.match(String((answer.confirmed as Rec).by), /a flow \(budget node bm\)/);
    assert.equal(answer.lost, undefined);
    const cfg = helper.getNode('cfg-msg') as unknown as { log: { args: unknown[][]; thisValues: unknown[] } };
    assert.ok(
      cfg.log.args
        .filter((_a, i) => cfg.log.thisValues[i] === cfg)
        .some((a) => /counts were confirmed by a flow/.test(String(a[0]))),
    );
    const out = collect('out');
    alarms(1, 'after-msg-confirm');
    await waitFor(() => out.messages.length === 1);
  });

  it('confirming counts needs smsgw-config.write', async () => {
    const granted = new Set<string>(['smsgw-config.read']);
    const withAuth = (RED: NodeAPI): void => {
      (RED as unknown as { auth: unknown }).auth = {
        needsPermission: (permission: string) => (_req: Request, res: Response, next: NextFunction) =>
          granted.has(permission) ? next() : res.status(401).end(),
      };
    };
    await helper.load([withAuth, ...ALL_NODES], flowWith(env.emu.url, [], { budgetDay: 5 }), { cfg: DEMO });
    await helper.request().post('/smsgw-config/cfg/budget/confirm').expect(401);
    granted.add('smsgw-config.write');
    await helper.request().post('/smsgw-config/cfg/budget/confirm').expect(200);
  });

  it('a setting that cannot work fails every send with CONFIG naming the field', async () => {
    await loadFlow(flowWith(env.emu.url, [sendSmsNode()], { budgetDay: 'fifty' }));
    const caught = collect('caught');
    send('n1', { payload: 'x', topic: 'bad-setting' });
    await waitFor(() => caught.messages.length === 1);
    assert.equal((caught.messages[0]!.error as Rec).code, 'CONFIG');
    assert.match(
      String((caught.messages[0]!.error as Rec).message),
      /Per day: a whole number from 0 \(segments x recipients\), or blank \(no limit\)$/,
    );
    assert.equal(jobs('bad-setting'), 0);
  });
});
