import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import {
  collect,
  flowWith,
  helper,
  loadFlow,
  nextMessage,
  send,
  sleep,
  startEnv,
  statuses,
  stopEnv,
  waitFor,
  warnings,
  type Env,
  type FlowNode,
} from './helpers';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { RespelledReports } from './respelled-reports';
import { deliveryStatus, SHARED_NS } from '../../src/nodes/common/status';
import type { NodeAPI } from 'node-red';

const enUS = JSON.parse(
  readFileSync(path.join(__dirname, '..', '..', 'nodes', 'locales', 'en-US', 'smsgw-config.json'), 'utf8'),
) as { 'smsgw-config': Record<string, Record<string, string>> };

/** RED._ as the editor renders the shared en-US catalogue (the test helper's RED answers the key). */
const render = (key: string, params: Record<string, unknown> = {}): string => {
  const [group, name] = key.replace(SHARED_NS, '').split('.');
  return enUS['smsgw-config'][group!]![name!]!.replace(/__(\w+)__/g, (_m, k: string) => String(params[k]));
};

/** The node's last status: colour, shape, and its text in en-US (or its key, as the test helper gives it). */
function lastStatus(
  id: string,
  fill: string,
  shape: string,
  key: string,
  params: Record<string, unknown>,
): void {
  const last = statuses(id).at(-1);
  assert.deepEqual({ fill: last?.fill, shape: last?.shape }, { fill, shape });
  assert.ok([render(key, params), SHARED_NS + key].includes(String(last?.text)), String(last?.text));
}

interface Outcome {
  JobId: number;
  outcome: string;
  delivered: number;
  failed: number;
  missing: number;
  reports: { Recipient: string; Status: string }[];
}

describe('nodes: smsgw-send-sms delivery tracking (outputs 2 and 3)', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
    env.emu.control.setBalance('demo', 1_000_000);
    helper.settings({ userDir: env.userDir, smsgwDeliveryPollInterval: 150 } as Record<string, unknown>);
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  const sender = (id: string, extra: Record<string, unknown> = {}): FlowNode => ({
    id,
    type: 'smsgw-send-sms',
    gateway: 'cfg',
    operation: 'SendSMS',
    recipient: '',
    recipientType: 'str',
    text: 'payload',
    textType: 'msg',
    caption: 'tracked',
    captionType: 'str',
    smsType: 'Standard',
    smsTypeType: 'smstype',
    track: true,
    trackTimeout: 5,
    wires: [['out'], ['out2'], ['out3']],
    ...extra,
  });
  const flow = (nodes: FlowNode[]): FlowNode[] => [
    ...flowWith(env.emu.url, nodes),
    { id: 'out3', type: 'helper', z: 'tab' },
  ];
  const dlrRequests = (): number =>
    env.emu.requests.list().filter((r) => r.operation === 'QueryReceivedDLR').length;

  it('off by default: one output, no delivery-report polling', async () => {
    const f = flow([sender('s1', { track: undefined, trackTimeout: undefined, wires: [['out']] })]);
    await loadFlow(f);
    env.emu.requests.clear();
    const sent = nextMessage('out');
    send('s1', { payload: 'untracked', recipient: '+4917012399001' });
    assert.equal(typeof ((await sent).payload as { JobId: number }).JobId, 'number');
    env.emu.control.finishJobs();
    await sleep(400);
    assert.equal(dlrRequests(), 0);
    assert.equal(existsSync(path.join(env.userDir, 'smsgw-state', 'smsgw-delivery.cfg.json')), false);
  });

  it('sends the final reports of the job to output 2, one msg per job, keeping the msg properties', async () => {
    await loadFlow(flow([sender('s1')]));
    env.emu.control.setSubscriberState('+4917012399012', 'unreachable');
    const sent = nextMessage('out');
    const delivered = nextMessage('out2');
    send('s1', { payload: 'hello', recipient: ['+4917012399011', '+4917012399012'], orderId: 'A-17' });
    const jobId = ((await sent).payload as { JobId: number }).JobId;
    env.emu.control.finishJobs();
    const msg = await delivered;
    const o = msg.payload as Outcome;
    assert.equal(o.JobId, jobId);
    assert.equal(msg.topic, String(jobId));
    assert.equal(msg.orderId, 'A-17');
    assert.equal(o.outcome, 'final');
    assert.deepEqual([o.delivered, o.failed, o.missing], [1, 1, 0]);
    assert.deepEqual(o.reports.map((r) => [r.Recipient, r.Status]).sort(), [
      ['+4917012399011', 'DELIVERED'],
      ['+4917012399012', 'EXPIRED'],
    ]);
    // the send node says so too: a failed delivery is not shown as a success
    lastStatus('s1', 'red', 'ring', 'status.deliveryFailed', { jobId, failed: 1, count: 2 });
  });

  it('shows "delivered" in the status once every recipient has a delivered report', async () => {
    await loadFlow(flow([sender('s1')]));
    const sent = nextMessage('out');
    const delivered = nextMessage('out2');
    send('s1', { payload: 'hello', recipient: ['+4917012399013', '+4917012399014'] });
    const jobId = ((await sent).payload as { JobId: number }).JobId;
    lastStatus('s1', 'green', 'dot', 'status.job', { jobId });
    env.emu.control.finishJobs();
    assert.deepEqual(((await delivered).payload as Outcome).failed, 0);
    lastStatus('s1', 'green', 'dot', 'status.delivered', { jobId });
  });

  it('sends a job whose reports do not come in time to output 3', async () => {
    await loadFlow(flow([sender('s1', { trackTimeout: 0.01 })])); // 0.6 s
    const got2 = collect('out2');
    const timedOut = nextMessage('out3', 8000);
    // Due in an hour: no report can come before the deadline (a job due now is delivered after ~0.7 s).
    send('s1', {
      payload: 'never finished',
      recipient: '+4917012399021',
      sendDate: new Date(Date.now() + 3_600_000),
    });
    const o = (await timedOut).payload as Outcome;
    assert.equal(o.outcome, 'timeout');
    assert.equal(o.missing, 1);
    lastStatus('s1', 'yellow', 'ring', 'status.deliveryTimeout', { jobId: o.JobId });
    got2.stop();
    assert.equal(got2.messages.length, 0);
  });

  it('two tracking nodes on one config share one poll, which stops when nothing is tracked', async () => {
    await loadFlow(flow([sender('s1'), sender('s2')]));
    const got = collect('out2');
    // Scheduled for tomorrow: tracked, and final only at finishJobs below (sent now, the emulator's own delivery
    // after 0.7 s could end the tracking before a loaded machine made two polls).
    const tomorrow = new Date(Date.now() + 86_400_000);
    send('s1', { payload: 'a', recipient: '+4917012399031', sendDate: tomorrow });
    send('s2', { payload: 'b', recipient: '+4917012399032', sendDate: tomorrow });
    await waitFor(() => env.emu.requests.list().filter((r) => r.operation === 'SendSMS').length >= 2);
    env.emu.requests.clear();
    const from = Date.now();
    // At least two polls (waited for: a loaded machine may take longer than 1 s), then the rate over >= 1 s.
    await waitFor(() => dlrRequests() >= 2, 10_000);
    await sleep(Math.max(0, 1000 - (Date.now() - from)));
    const polls = dlrRequests();
    const window = Date.now() - from;
    // 1 s at 150 ms: one poller gives about 6, two would give about 12.
    assert.ok(
      polls >= 2 && polls <= 8 * Math.max(1, window / 1000),
      `${polls} QueryReceivedDLR in ${window} ms`,
    );
    env.emu.control.finishJobs();
    await waitFor(() => got.messages.length === 2);
    assert.deepEqual(
      got.messages.map((m) => m.topic).sort(),
      [...new Set(got.messages.map((m) => m.topic))].sort(),
    );
    await sleep(300);
    const after = dlrRequests();
    await sleep(600);
    assert.equal(dlrRequests(), after, 'idle: no more polls');
  });

  it('a restart does not lose tracking: the job tracked before it is reported after it', async () => {
    const f = flow([sender('s1')]);
    await loadFlow(f);
    const sent = nextMessage('out');
    send('s1', { payload: 'across restart', recipient: '+4917012399041', orderId: 'gone' });
    const jobId = ((await sent).payload as { JobId: number }).JobId;
    await helper.unload();
    env.emu.control.finishJobs();
    await loadFlow(f);
    const msg = await nextMessage('out2');
    assert.equal((msg.payload as Outcome).JobId, jobId);
    assert.equal((msg.payload as Outcome).outcome, 'final');
    assert.equal(msg.orderId, undefined, 'the msg itself does not survive a restart');
  });

  it('a deleted send node leaves no tracked job behind', async () => {
    const f = flow([sender('s1'), sender('s2')]);
    await loadFlow(f);
    const sent = nextMessage('out');
    send('s1', { payload: 'x', recipient: '+4917012399051' });
    await sent;
    const withoutS1 = f.filter((n) => n.id !== 's1').map((n) => n);
    await helper.setFlows(withoutS1, 'full', { cfg: { user: 'demo', password: 'demo-password' } });
    const cfg = helper.getNode('cfg') as unknown as { getDeliveryTracker(): { size: number } };
    assert.equal(cfg.getDeliveryTracker().size, 0);
  });

  it('a send whose answer was lost is found by its reference and tracked late: final, not a false timeout', async function () {
    this.timeout(30_000);
    await loadFlow(
      flow([
        // Keeps the shared poll running (due in an hour): the tracker reads the other jobs' reports early.
        sender('s0', { trackTimeout: 60, wires: [['out'], [], []] }),
        sender('s1', { trackTimeout: 0.15 }), // 9 s
      ]),
    );
    const sent = collect('out');
    send('s0', { payload: 'busy', recipient: '+4917012399081', sendDate: new Date(Date.now() + 3_600_000) });
    await waitFor(() => sent.messages.length === 1);
    // The gateway makes the jobs but the answers are lost, and the first lookups get 503.
    env.emu.faults.add({ kind: 'commitThenDrop', operation: 'SendSMS', count: 3 });
    env.emu.faults.add({ kind: 'http503', operation: 'QueryJobInfoByJobCaption', count: 3 });
    const finals = collect('out2');
    const timeouts = collect('out3');
    for (let i = 0; i < 3; i++) send('s1', { payload: `lost answer ${i}`, recipient: `+491701239909${i}` });
    await waitFor(() => sent.messages.length === 4, 20_000);
    const jobs = sent.messages.slice(1).map((m) => m.payload as { JobId: number; recovered: boolean });
    assert.deepEqual(
      jobs.map((j) => j.recovered),
      [true, true, true],
      'found by their reference',
    );
    await waitFor(() => finals.messages.length + timeouts.messages.length >= 3, 15_000);
    assert.deepEqual(
      timeouts.messages.map((m) => m.topic),
      [],
      'no false timeout',
    );
    assert.deepEqual(
      finals.messages.map((m) => (m.payload as Outcome).JobId).sort(),
      jobs.map((j) => j.JobId).sort(),
    );
    sent.stop();
  });

  describe('report states the lists do not know (the spec shows none)', () => {
    let odd: RunningEmulator<RespelledReports>;
    before(async () => {
      odd = await startEmulator({ backend: new RespelledReports({ balance: 1000 }), console: false });
    });
    after(() => odd.close());
    beforeEach(() =>
      rmSync(path.join(env.userDir, 'smsgw-state', 'smsgw-delivery.cfg.json'), { force: true }),
    );

    const oddFlow = (timeoutMinutes: number): FlowNode[] => [
      ...flowWith(odd.url, [sender('s1', { trackTimeout: timeoutMinutes })]),
      { id: 'out3', type: 'helper', z: 'tab' },
    ];

    it('DELIVRD (SMPP spelling) is final and delivered: output 2', async () => {
      await loadFlow(oddFlow(5));
      odd.state.statusOf.set('+4917012399061', 'DELIVRD');
      const delivered = nextMessage('out2');
      send('s1', { payload: 'smpp', recipient: '+4917012399061' });
      odd.control.finishJobs();
      const o = (await delivered).payload as Outcome & { unknown: number };
      assert.deepEqual([o.outcome, o.delivered, o.failed, o.unknown, o.missing], ['final', 1, 0, 0, 0]);
    });

    it('a state in neither list reaches the flow on output 3 at the deadline, counted as unknown, with a warning', async () => {
      await loadFlow(oddFlow(0.02)); // 1.2 s
      odd.state.statusOf.set('+4917012399071', 'SOMETHING_NEW');
      const got2 = collect('out2');
      const timedOut = nextMessage('out3', 8000);
      send('s1', { payload: 'odd', recipient: '+4917012399071' });
      odd.control.finishJobs();
      const o = (await timedOut).payload as Outcome & { unknown: number };
      assert.equal(o.outcome, 'timeout');
      assert.deepEqual(
        o.reports.map((r) => r.Status),
        ['SOMETHING_NEW'],
      );
      assert.deepEqual([o.delivered, o.failed, o.unknown, o.missing], [0, 0, 1, 0]);
      got2.stop();
      assert.equal(got2.messages.length, 0);
      const warned = warnings('cfg');
      assert.equal(
        warned.filter((w) =>
          w.startsWith(
            'Delivery tracking: job ' +
              String(o.JobId) +
              ' has a report with status "SOMETHING_NEW", which is neither a final nor a known pending state',
          ),
        ).length,
        1,
        warned.join('\n'),
      );
    });
  });
});

describe('nodes: the delivery outcome in a send node’s status (en-US)', () => {
  const RED = {
    _: (key: string, params?: Record<string, unknown>) => render(key, params),
  } as unknown as NodeAPI;
  const counts = { JobId: 42, delivered: 0, failed: 0, unknown: 0, missing: 0 };
  it('all delivered: green "JobId 42 delivered"', () => {
    assert.deepEqual(deliveryStatus(RED, { ...counts, outcome: 'final', delivered: 3 }), {
      fill: 'green',
      shape: 'dot',
      text: 'JobId 42 delivered',
    });
  });
  it('some not delivered: a red ring saying how many of how many', () => {
    assert.deepEqual(deliveryStatus(RED, { ...counts, outcome: 'final', delivered: 2, failed: 1 }), {
      fill: 'red',
      shape: 'ring',
      text: 'JobId 42: 1 of 3 not delivered',
    });
  });
  it('not in time: a yellow ring', () => {
    assert.deepEqual(deliveryStatus(RED, { ...counts, outcome: 'timeout', delivered: 1, missing: 1 }), {
      fill: 'yellow',
      shape: 'ring',
      text: 'JobId 42: no final report in time',
    });
  });
});
