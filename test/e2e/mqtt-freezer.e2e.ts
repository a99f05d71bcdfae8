/**
 * The "Freezer alarm over MQTT" example as a home-automation user runs it: the packed package in a real Node-RED,
 * the example imported as shipped, a real Mosquitto broker, readings published by an MQTT client as the sensor
 * would, the SMS read back from the emulator. 20 readings cross the limits back and forth; exactly the expected
 * SMS go out, with the expected texts. The same readings through the flow without its hysteresis, or without its
 * rate limit, give other SMS: the test shows it can fail when either is removed.
 *
 * The only change to the example is its rate-limit time (the tab's SMS_EVERY_MIN) shortened to a few seconds.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { connectAsync, type MqttClient } from 'mqtt';
import { examplesForDeploy, listExamples, type FlowNode } from '../../scripts/lib/flows';
import { deployFlows } from '../../scripts/lib/nodered';
import { startMosquitto, type RunningMosquitto } from './mosquitto';
import { nodeRedVersion, outDir, startStack, type Stack } from './stack';

const EXAMPLE = 'Freezer alarm over MQTT';
const TOPIC = 'home/freezer/temperature';
/** The rate-limit time in the test (the example's is 10 minutes). */
const WINDOW_S = 4;
const MARGIN_MS = 1500;

/**
 * 20 readings in three bursts (limits: too warm above -12 C, normal again at or below -16 C). Each burst is sent
 * within a second; between bursts the test waits until the rate-limit time of the burst's first SMS is over.
 */
const BURSTS = [
  // normal, too warm (SMS), hovering, normal, too warm, normal: within the rate-limit time, so only the last
  // state goes out when it is over ("back to normal" -17), not the alarm in between
  [-18.5, -17, -11, -12.5, -11.5, -16.5, -10, -9.5, -17],
  // hovering around the alarm limit: one alarm (SMS), then nothing, also when the rate-limit time is over
  [-12.5, -11.8, -12.3, -11.6, -12.4],
  // slowly back to normal: one SMS at -16; then too warm and normal again within the rate-limit time: nothing
  [-13, -15.9, -16, -11.9, -16.2, -18],
];
const EXPECTED = [
  'Freezer too warm: -11 C (alarm above -12 C)',
  'Freezer back to normal: -17 C',
  'Freezer too warm: -11.8 C (alarm above -12 C)',
  'Freezer back to normal: -16 C',
];

interface Job {
  id: number;
  caption: string;
  text: string;
  sender: string;
  recipients: string[];
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The example with the shortened rate-limit time and, optionally, changed further by `mutate`. */
function exampleFlow(mutate: (nodes: FlowNode[]) => FlowNode[] = (n) => n): FlowNode[] {
  const example = listExamples().find((e) => e.name === EXAMPLE);
  assert.ok(example, `examples/${EXAMPLE}.json is missing`);
  const nodes = structuredClone(example.nodes).map((n) =>
    n.type === 'tab' ? { ...n, env: setting(n, 'SMS_EVERY_MIN', String(WINDOW_S / 60)) } : n,
  );
  return mutate(nodes);
}

/** The tab's environment variables with `name` set to `value` (it must exist: the example documents it). */
function setting(tab: FlowNode, name: string, value: string): unknown[] {
  const env = tab.env as { name: string; value: string; type: string }[];
  assert.ok(
    env.some((e) => e.name === name),
    `the example's tab has no ${name}`,
  );
  return env.map((e) => (e.name === name ? { ...e, value } : e));
}

/** Without hysteresis: back to normal at the alarm limit itself (a plain threshold). */
const withoutHysteresis = (nodes: FlowNode[]): FlowNode[] =>
  nodes.map((n) => {
    if (n.type !== 'tab') return n;
    const alarmAbove = (n.env as { name: string; value: string }[]).find((e) => e.name === 'ALARM_ABOVE')!;
    return { ...n, env: setting(n, 'NORMAL_AT_OR_BELOW', alarmAbove.value) };
  });

/** Without the rate limit: the trigger node taken out, its input wired straight to its output. */
const withoutRateLimit = (nodes: FlowNode[]): FlowNode[] => {
  const trigger = nodes.filter((n) => n.type === 'trigger');
  assert.equal(trigger.length, 1, 'the example has one trigger node (the rate limit)');
  const [t] = trigger;
  const next = (t!.wires as string[][])[0]!;
  return nodes
    .filter((n) => n !== t)
    .map((n) =>
      Array.isArray(n.wires)
        ? { ...n, wires: (n.wires as string[][]).map((w) => w.flatMap((id) => (id === t!.id ? next : [id]))) }
        : n,
    );
};

describe(`MQTT freezer example: Node-RED ${nodeRedVersion}, Mosquitto, the emulator`, function () {
  this.timeout(180000);
  let stack: Stack;
  let mosquitto: RunningMosquitto;
  let sensor: MqttClient;

  before(async function () {
    mosquitto = await startMosquitto(join(outDir, 'mosquitto'));
    stack = await startStack('mqtt-freezer');
    sensor = await connectAsync(mosquitto.url, { clientId: 'freezer-sensor-e2e', reconnectPeriod: 0 });
  });
  after(async function () {
    await sensor?.endAsync();
    await stack?.stop();
    await mosquitto?.stop();
  });

  async function jobs(): Promise<Job[]> {
    const state = (await (await fetch(`${stack.emulator.url}/_emulator/state`)).json()) as {
      accounts: { jobs: Job[] }[];
    };
    return state.accounts.flatMap((a) => a.jobs).sort((a, b) => a.id - b.id);
  }

  async function until(ok: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (await ok()) return true;
      await sleep(100);
    }
    return false;
  }

  /**
   * Deploys `flow` (under a new name each time, so new node ids and fresh state), waits until Node-RED subscribed,
   * checks that nothing was sent on deploy, publishes the readings and returns the SMS the flow sent.
   */
  async function run(label: string, flow: FlowNode[]): Promise<Job[]> {
    const before = (await jobs()).length;
    const logFrom = mosquitto.proc.output().length;
    await deployFlows(
      stack.nodeRed.url,
      examplesForDeploy(stack.emulator.url, [{ name: `${EXAMPLE} (${label})`, nodes: flow }], {
        mqtt: { host: '127.0.0.1', port: mosquitto.port },
      }),
    );
    const subscribed = await until(
      () => / \d home\/freezer\/temperature\s*$/m.test(mosquitto.proc.output().slice(logFrom)),
      20000,
    );
    assert.ok(
      subscribed,
      `Node-RED did not subscribe to ${TOPIC}:\n${mosquitto.proc.output().slice(logFrom)}`,
    );
    await sleep(1000);
    const since = async (): Promise<Job[]> => (await jobs()).slice(before);
    assert.deepEqual(await since(), [], `${label}: sent something on deploy`);

    // each burst: the readings, then wait for the SMS it sends at once and for its rate-limit time to pass
    const firstSms = [1, 3, 4];
    for (const [i, burst] of BURSTS.entries()) {
      for (const reading of burst) {
        await sensor.publishAsync(TOPIC, String(reading), { qos: 1 });
        await sleep(60);
      }
      await until(async () => (await since()).length >= firstSms[i]!, 15000);
      await sleep(WINDOW_S * 1000 + MARGIN_MS);
    }
    return since();
  }

  it('20 readings crossing the limits back and forth: exactly the expected SMS, none on deploy', async function () {
    const sent = await run('as shipped', exampleFlow());
    assert.deepEqual(
      sent.map((j) => j.text),
      EXPECTED,
    );
    for (const j of sent) {
      assert.ok(j.caption.startsWith(TOPIC), j.caption);
      assert.deepEqual(j.recipients, ['+4917012345678']);
    }
  });

  it('the same readings without the hysteresis send more (the test would catch its removal)', async function () {
    const sent = await run('no hysteresis', exampleFlow(withoutHysteresis));
    assert.notDeepEqual(
      sent.map((j) => j.text),
      EXPECTED,
    );
    assert.ok(sent.length > EXPECTED.length, sent.map((j) => j.text).join(' | '));
  });

  it('the same readings without the rate limit send more (the test would catch its removal)', async function () {
    const sent = await run('no rate limit', exampleFlow(withoutRateLimit));
    assert.ok(sent.length > EXPECTED.length, sent.map((j) => j.text).join(' | '));
  });
});
