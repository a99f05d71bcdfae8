import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Node, NodeAPI, NodeMessage } from 'node-red';
import { startMqttBroker, type RunningBroker } from '../../scripts/lib/mqtt-broker';
import { startEmulator } from '../../src/emulator';
import { EXPECTED } from './example-expectations';
import {
  ALL_NODES,
  DEMO,
  helper,
  sleep,
  startEnv,
  stopEnv,
  waitFor,
  type Env,
  type FlowNode,
} from './helpers';

const examplesDir = path.join(__dirname, '..', '..', 'examples');
const coreDir = path.dirname(require.resolve('@node-red/nodes/package.json'));
const core = (file: string): ((RED: NodeAPI) => void) =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require(path.join(coreDir, 'core', file)) as (RED: NodeAPI) => void;
const CORE_NODES = [
  core('common/20-inject.js'),
  core('common/90-comment.js'),
  core('function/10-switch.js'),
  core('function/15-change.js'),
  core('function/10-function.js'),
  core('function/89-trigger.js'),
  core('function/rbe.js'),
  core('function/80-template.js'),
  core('network/10-mqtt.js'),
];

/** Node types that make the gateway send (an SMS, an HLR request): they must never run on their own. */
const SENDING_TYPES = new Set([
  'smsgw-send-sms',
  'smsgw-send-hlr',
  'smsgw-send-udh',
  'smsgw-legacy-send-text',
  'smsgw-call',
  'smsgw-ask',
]);
/** Operations that make the gateway send something (the request log's operation names). */
const SENDING_OPERATION = /^(Send|SMSCR$)/;

/** An inject that fires without anyone pressing it: once after deploy, at an interval or by a schedule. */
const firesOnItsOwn = (n: FlowNode): boolean =>
  n.type === 'inject' && (n.once === true || Number(n.repeat) > 0 || String(n.crontab ?? '') !== '');

/** Every node a msg from `start` can reach along the wires. */
function downstream(flow: FlowNode[], start: FlowNode): FlowNode[] {
  const byId = new Map(flow.map((n) => [n.id, n]));
  const seen = new Set<string>();
  const todo = [start];
  while (todo.length > 0) {
    const n = todo.pop()!;
    for (const id of ((n.wires as string[][] | undefined) ?? []).flat()) {
      if (seen.has(id)) continue;
      seen.add(id);
      const next = byId.get(id);
      if (next) todo.push(next);
    }
  }
  return [...seen].flatMap((id) => byId.get(id) ?? []);
}

/**
 * The flow as the tests deploy it: debug nodes become helper sinks, the config points at `url`, an MQTT broker
 * configuration at the test's broker.
 */
function testFlowOf(
  flow: FlowNode[],
  url: string,
  mqttPort: number,
): { testFlow: FlowNode[]; debugNames: Map<string, string> } {
  const debugNames = new Map<string, string>();
  const testFlow = flow.map((n) => {
    if (n.type === 'debug') {
      debugNames.set(n.id, String(n.name));
      return { id: n.id, type: 'helper', z: n.z, name: n.name, wires: [] };
    }
    if (n.type === 'smsgw-config') return { ...n, baseUrl: url };
    if (n.type === 'mqtt-broker') return { ...n, broker: '127.0.0.1', port: String(mqttPort) };
    return n;
  });
  return { testFlow, debugNames };
}

const examples = readdirSync(examplesDir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({
    name: f.slice(0, -5),
    flow: JSON.parse(readFileSync(path.join(examplesDir, f), 'utf8')) as FlowNode[],
  }));

/** An MQTT broker (aedes, as in the sandbox) for the examples that use one, for the tests of `describe`. */
function useMqttBroker(): { port: number } {
  const at = { port: 0 };
  let broker: RunningBroker | undefined;
  before(async () => {
    broker = await startMqttBroker(0);
    at.port = broker.port;
  });
  after(() => broker?.stop());
  return at;
}

/** Until every MQTT broker configuration of `flow` is connected (an inject pressed before would publish nothing). */
async function mqttConnected(flow: FlowNode[]): Promise<void> {
  for (const b of flow.filter((n) => n.type === 'mqtt-broker'))
    await waitFor(
      () => (helper.getNode(b.id) as unknown as { connected?: boolean }).connected === true,
      5000,
    );
}

describe('nodes: example flows', () => {
  let env: Env;
  const mqtt = useMqttBroker();
  before(async () => {
    env = await startEnv();
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  // Importing a second example must not replace the first: only the configuration nodes they share (one gateway
  // configuration, one MQTT broker) may have the same id in two examples.
  it('share no node id but their configuration nodes', () => {
    const owner = new Map<string, string>();
    const clashes: string[] = [];
    for (const e of examples)
      for (const n of e.flow) {
        const other = owner.get(n.id);
        if (other !== undefined && other !== e.name && !['smsgw-config', 'mqtt-broker'].includes(n.type))
          clashes.push(`${n.id} (${n.type}) in "${e.name}" and "${other}"`);
        owner.set(n.id, e.name);
      }
    assert.deepEqual(clashes, []);
  });

  it('together use every node type the package registers, and each has expectations here', () => {
    const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      'node-red': { nodes: Record<string, string> };
    };
    const used = new Set(examples.flatMap((e) => e.flow.map((n) => n.type)));
    for (const type of Object.keys(pkg['node-red'].nodes))
      assert.ok(used.has(type), `${type} is in no example`);
    assert.deepEqual(examples.map((e) => e.name).sort(), Object.keys(EXPECTED).sort());
  });

  for (const { name, flow } of examples) {
    it(`"${name}": emulator config, no credentials, runs against the emulator without errors`, async function () {
      this.timeout(30_000);
      const configs = flow.filter((n) => n.type === 'smsgw-config');
      assert.equal(configs.length, 1);
      assert.equal(configs[0]!.baseUrl, 'http://127.0.0.1:8080');
      for (const n of flow) assert.ok(!('credentials' in n) && !('user' in n) && !('password' in n), n.id);
      assert.ok(!JSON.stringify(flow).includes(DEMO.password));

      // Debug nodes become helper sinks; the config points at the test emulator and gets the demo account.
      const { testFlow, debugNames } = testFlowOf(flow, env.emu.url, mqtt.port);
      const expected = EXPECTED[name]!;
      expected.before?.(env);
      await helper.load([...CORE_NODES, ...ALL_NODES], testFlow, { [configs[0]!.id]: DEMO });
      await mqttConnected(flow);

      const got = new Map<string, Array<NodeMessage & Record<string, unknown>>>();
      for (const [id, label] of debugNames) {
        got.set(label, []);
        (helper.getNode(id) as Node).on('input', (msg: NodeMessage) =>
          got.get(label)!.push(msg as NodeMessage & Record<string, unknown>),
        );
      }
      const injects = flow
        .filter((n) => n.type === 'inject' && !n.once)
        .sort((a, b) => Number(a.y) - Number(b.y));
      for (const inj of injects) {
        await expected.beforePressing?.[String(inj.name)]?.(env);
        (helper.getNode(inj.id) as Node).receive({});
        await sleep(300);
        const pressed = expected.afterPressing?.[String(inj.name)];
        if (pressed)
          await waitFor(() => pressed((label) => got.get(label) ?? []), 10_000).catch(() => {
            throw new Error(
              `after "${String(inj.name)}": ${JSON.stringify([...got].map(([k, v]) => [k, v.length]))}`,
            );
          });
      }
      await waitFor(
        () =>
          Object.entries(expected.counts).every(([label, n]) => (got.get(label)?.length ?? 0) >= n) &&
          (expected.until?.(env) ?? true),
        10_000,
      ).catch(() => undefined);
      await sleep(200);
      // At least the expected number (a poller may also pick up what earlier tests left); none where 0.
      const counts = Object.fromEntries(
        Object.entries(expected.counts).map(([label, n]) => [
          label,
          Math.min(n || Infinity, got.get(label)?.length ?? 0),
        ]),
      );
      const seen = JSON.stringify(
        [...got.entries()].map(([k, v]) => [k, v.map((m) => m.error ?? m.payload)]),
      );
      assert.deepEqual(counts, { ...expected.counts }, seen);
      for (const label of Object.keys(expected.counts))
        assert.ok([...debugNames.values()].includes(label), `no debug node "${label}"`);
      // What the example is meant to show, not only how many msgs it made.
      expected.shows((label) => got.get(label) ?? [], env);

      // Nothing of ours logged an error or a warning.
      const log = helper.log() as unknown as { args: { level: number; type?: string; msg?: unknown }[][] };
      const problems = log.args
        .map((a) => a[0]!)
        .filter((e) => (e.level === 20 || e.level === 30) && String(e.type ?? '').startsWith('smsgw-'));
      assert.deepEqual(problems, []);
      env.emu.control.setBalance('demo', 1000);
    });
  }
});

describe('nodes: "Delivery tracking" sorts the final reports by what they say', () => {
  // Output 2 carries every final report, delivered or not: an unreachable number's once went to "delivered".
  const flow = examples.find((e) => e.name === 'Delivery tracking')!.flow;
  const RECIPIENT = '+4917012345678';
  let env: Env;
  before(async () => {
    env = await startEnv();
    helper.settings({ userDir: env.userDir, smsgwDeliveryPollInterval: 150 } as Record<string, unknown>);
  });
  after(() => stopEnv(env));
  afterEach(async () => {
    await helper.unload();
    env.emu.control.setSubscriberState(RECIPIENT, 'ok');
  });

  for (const [state, shows, not, failed] of [
    ['unreachable', 'not delivered (payload.failed)', 'delivered', 1],
    ['ok', 'delivered', 'not delivered (payload.failed)', 0],
  ] as const) {
    it(`a recipient whose phone is ${state === 'ok' ? 'reachable' : state}: "${shows}", not "${not}"`, async function () {
      this.timeout(20_000);
      const { testFlow, debugNames } = testFlowOf(flow, env.emu.url, 0);
      const config = flow.find((n) => n.type === 'smsgw-config')!;
      await helper.load([...CORE_NODES, ...ALL_NODES], testFlow, { [config.id]: DEMO });
      const got = new Map<string, NodeMessage[]>();
      for (const [id, label] of debugNames) {
        got.set(label, []);
        (helper.getNode(id) as Node).on('input', (msg: NodeMessage) => got.get(label)!.push(msg));
      }
      env.emu.control.setSubscriberState(RECIPIENT, state);
      const inject = flow.find((n) => n.type === 'inject' && n.name === 'send tracked SMS')!;
      (helper.getNode(inject.id) as Node).receive({});
      await waitFor(() => got.get('sent')!.length > 0, 5000);
      env.emu.control.finishJobs();
      const count = (label: string): number => got.get(label)?.length ?? 0;
      await waitFor(() => count(shows) + count(not) > 0, 10_000);
      await sleep(500); // a second msg (the same outcome on both debug nodes) would come now
      assert.equal(count(not), 0, `"${not}" got ${JSON.stringify(got.get(not)?.map((m) => m.payload))}`);
      assert.equal(count(shows), 1, [...got.keys()].join(', '));
      const outcome = got.get(shows)![0]!.payload as { outcome: string; failed: number };
      assert.deepEqual([outcome.outcome, outcome.failed], ['final', failed]);
    });
  }
});

describe('nodes: no example flow sends on its own', () => {
  const mqtt = useMqttBroker();
  for (const { name, flow } of examples) {
    it(`"${name}": no inject that fires by itself (once, interval, schedule) reaches a sending node`, () => {
      const offenders = flow.filter(firesOnItsOwn).flatMap((inj) =>
        downstream(flow, inj)
          .filter((n) => SENDING_TYPES.has(n.type))
          .map((n) => `${String(inj.name)} -> ${n.type} ${String(n.name || n.id)}`),
      );
      assert.deepEqual(offenders, []);
    });

    it(`"${name}": deployed against a fresh emulator with a low balance, it sends nothing within 3 s`, async function () {
      this.timeout(20_000);
      const emu = await startEmulator({ port: 0, console: false });
      try {
        emu.control.setBalance('demo', 1); // below any threshold an example might watch
        const { testFlow } = testFlowOf(flow, emu.url, mqtt.port);
        const config = flow.find((n) => n.type === 'smsgw-config')!;
        await helper.load([...CORE_NODES, ...ALL_NODES], testFlow, { [config.id]: DEMO });
        // Every node of the example is running (an inject that fires once exists from the start).
        for (const n of flow.filter((x) => x.type !== 'tab' && x.type !== 'debug'))
          assert.ok(helper.getNode(n.id), `${n.type} ${n.id} is not deployed`);
        await sleep(3000); // past every inject's onceDelay and every poller's first poll
        await helper.unload();
        const operations = emu.requests.list().map((r) => r.operation);
        assert.deepEqual(
          operations.filter((op) => op !== null && SENDING_OPERATION.test(op)),
          [],
          `requests: ${operations.join(', ')}`,
        );
        assert.deepEqual(emu.state.jobs(), []);
      } finally {
        await emu.close();
      }
    });
  }
});

describe('nodes: "Auto-reply to inbound SMS" beside "Freezer alarm with acknowledgement": replies belong to whoever asked', () => {
  // Both examples on one gateway configuration, as in the sandbox: the on-call phone's acknowledgement answers the
  // question and is not answered by the auto-reply flow (it once texted "Thanks, we got your message: 1").
  const ON_CALL = '+4917012345678';
  const OTHER = '+4917011112222';
  const ASK = 'a5c0000000000007';
  let env: Env;
  const mqtt = useMqttBroker();
  before(async () => {
    env = await startEnv();
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  it('the acknowledgement reaches the ask node only; another message still gets its auto-reply, once', async function () {
    this.timeout(30_000);
    const both = [
      ...examples.find((e) => e.name === 'Freezer alarm with acknowledgement')!.flow,
      ...examples.find((e) => e.name === 'Auto-reply to inbound SMS')!.flow,
    ];
    const byId = new Map(both.map((n) => [n.id, n]));
    // Read replies every second (the examples poll every 30 s; the reader polls at the shortest interval).
    const flow = [...byId.values()].map((n) =>
      n.type === 'smsgw-inbound' || n.type === 'smsgw-ask' ? { ...n, interval: 1 } : n,
    );
    const { testFlow, debugNames } = testFlowOf(flow, env.emu.url, mqtt.port);
    const config = flow.find((n) => n.type === 'smsgw-config')!;
    await helper.load([...CORE_NODES, ...ALL_NODES], testFlow, { [config.id]: DEMO });
    const got = new Map<string, Array<NodeMessage & Record<string, unknown>>>();
    for (const [id, label] of debugNames) {
      got.set(label, []);
      (helper.getNode(id) as Node).on('input', (msg: NodeMessage) =>
        got.get(label)!.push(msg as NodeMessage & Record<string, unknown>),
      );
    }
    const seen = (label: string): Array<NodeMessage & Record<string, unknown>> => got.get(label) ?? [];
    type Job = { id: number; recipients: string[]; text: string };
    const jobsTo = (n: string): Job[] =>
      (env.emu.control.snapshot() as { accounts: { jobs: Job[] }[] }).accounts
        .flatMap((a) => a.jobs)
        .filter((j) => j.recipients.includes(n));

    (helper.getNode(ASK) as Node).receive({ payload: 'Freezer too warm: -9 C', topic: 'freezer' });
    await waitFor(() => jobsTo(ON_CALL).length === 1, 10_000);
    const question = jobsTo(ON_CALL)[0]!;
    // The acknowledgement first, then a message of someone else: the trigger gets them in this order.
    env.emu.control.injectInbound({ from: ON_CALL, text: '1', jobId: question.id });
    env.emu.control.injectInbound({ from: OTHER, text: 'STATUS' });
    await waitFor(() => seen('acknowledged').length === 1 && seen('reply sent').length === 1, 15_000).catch(
      () => {
        throw new Error(JSON.stringify([...got].map(([k, v]) => [k, v.map((m) => m.payload)])));
      },
    );
    assert.deepEqual(
      seen('received').map((m) => [m.from, m.payload]),
      [[OTHER, 'STATUS']],
      'the trigger left the acknowledgement out',
    );
    assert.deepEqual(
      jobsTo(ON_CALL).map((j) => j.text),
      [question.text],
      'no auto-reply to the on-call phone',
    );
    assert.deepEqual(
      jobsTo(OTHER).map((j) => j.text),
      ['Thanks, we got your message: STATUS'],
    );
    assert.equal((seen('acknowledged')[0]!.ask as Record<string, unknown>).from, ON_CALL);
  });
});
