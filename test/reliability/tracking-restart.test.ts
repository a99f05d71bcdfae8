/**
 * Delivery tracking across restarts and redeploys: jobs sent by a tracking send node, finished in batches
 * through the emulator's control API while Node-RED is stopped, started and the send node redeployed; some
 * recipients unreachable and some jobs never finished (timeouts). Each job's outcome leaves output 2 or 3
 * exactly once.
 */
import assert from 'node:assert/strict';
import type { Node, NodeMessage } from 'node-red';
import {
  flowWith,
  helper,
  loadFlow,
  sleep,
  startEnv,
  stopEnv,
  type Env,
  type FlowNode,
} from '../nodes/helpers';
import { CAPTION_MATCH, FULL } from './helpers';

const JOBS = FULL ? 300 : 60;
const ROUNDS = FULL ? 10 : 4;

describe('reliability: delivery tracking across restarts and redeploys (one outcome per job)', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
    env.emu.control.setCaptionMatch(CAPTION_MATCH);
    env.emu.control.setBalance('demo', 10_000_000);
    helper.settings({ userDir: env.userDir, smsgwDeliveryPollInterval: 50 } as Record<string, unknown>);
  });
  after(() => stopEnv(env));

  it(`${JOBS} tracked jobs over ${ROUNDS} restarts/redeploys`, async function () {
    this.timeout(FULL ? 300_000 : 60_000);
    const started = Date.now();
    const finals = new Map<number, number>();
    const timeouts = new Map<number, number>();
    const sent: number[] = [];
    const unfinished = new Set<number>();
    let restarts = 0;
    let redeploys = 0;

    const sender = (name: string, timeoutMin: number): FlowNode => ({
      id: 's1',
      type: 'smsgw-send-sms',
      name,
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
      trackTimeout: timeoutMin,
      wires: [['out'], ['out2'], ['out3']],
    });
    const flowOf = (name: string, timeoutMin = 60): FlowNode[] => [
      ...flowWith(env.emu.url, [sender(name, timeoutMin)]),
      { id: 'out3', type: 'helper', z: 'tab' },
    ];
    const count = (m: Map<number, number>) => (msg: NodeMessage) => {
      const id = (msg.payload as { JobId: number }).JobId;
      m.set(id, (m.get(id) ?? 0) + 1);
    };
    const listen = (): void => {
      (helper.getNode('out') as Node).on('input', (msg: NodeMessage) => {
        sent.push((msg.payload as { JobId: number }).JobId);
      });
      (helper.getNode('out2') as Node).on('input', count(finals));
      (helper.getNode('out3') as Node).on('input', count(timeouts));
    };
    const sendSome = async (n: number): Promise<void> => {
      const target = sent.length + n;
      for (let i = sent.length; i < target && i < JOBS; i++) {
        const recipients = [
          `+49172${String(2 * i).padStart(7, '0')}`,
          `+49172${String(2 * i + 1).padStart(7, '0')}`,
        ];
        if (i % 7 === 0) env.emu.control.setSubscriberState(recipients[1]!, 'unreachable');
        (helper.getNode('s1') as Node).receive({ payload: `job ${i}`, recipient: recipients } as NodeMessage);
      }
      const end = Date.now() + 10_000;
      while (sent.length < Math.min(target, JOBS) && Date.now() < end) await sleep(10);
    };

    let flow = flowOf('v0');
    await loadFlow(flow);
    listen();
    const perRound = Math.ceil(JOBS / ROUNDS);
    for (let round = 0; round < ROUNDS; round++) {
      await sendSome(perRound);
      if (round % 2 === 0) {
        await helper.unload(); // stopped with jobs tracked ...
        env.emu.control.finishJobs(); // ... whose reports arrive meanwhile
        await loadFlow(flow);
        listen();
        restarts += 1;
      } else {
        env.emu.control.finishJobs();
        await sleep(20);
        flow = flowOf(`v${round}`);
        // Only the send node restarts; the helper nodes (and their listeners) stay.
        await helper.setFlows(flow, 'nodes', { cfg: { user: 'demo', password: 'demo-password' } });
        redeploys += 1;
      }
    }
    // The last few jobs are scheduled for tomorrow (no reports): they must time out (after a restart that shortens the wait).
    const last = Math.min(5, JOBS);
    flow = flowOf('short', 0.02);
    await helper.setFlows(flow, 'nodes', { cfg: { user: 'demo', password: 'demo-password' } });
    const before = sent.length;
    for (let i = 0; i < last; i++) {
      (helper.getNode('s1') as Node).receive({
        payload: 'never',
        sendDate: new Date(Date.now() + 86_400_000),
        recipient: `+49173${String(i).padStart(7, '0')}`,
      } as NodeMessage);
    }
    const end = Date.now() + (FULL ? 60_000 : 20_000);
    while (
      Date.now() < end &&
      finals.size + timeouts.size < sent.length + (sent.length < before + last ? last : 0)
    )
      await sleep(50);
    await sleep(400);
    for (const id of sent.slice(before)) unfinished.add(id);

    const dup = [...finals.values(), ...timeouts.values()].filter((c) => c > 1).length;
    const both = [...finals.keys()].filter((id) => timeouts.has(id)).length;
    const missing = sent.filter((id) => !finals.has(id) && !timeouts.has(id)).length;
    console.log(
      `      tracking: ${sent.length} jobs sent, ${restarts} restarts, ${redeploys} redeploys; ` +
        `${finals.size} final, ${timeouts.size} timed out, ${dup} duplicated, ${missing} missing; ` +
        `${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    assert.equal(sent.length, JOBS + last);
    assert.deepEqual([missing, dup, both], [0, 0, 0]);
    assert.deepEqual(
      [...timeouts.keys()].sort(),
      [...unfinished].sort(),
      'only the unfinished jobs time out',
    );
  });
});
