/**
 * "Freezer alarm with acknowledgement" end to end: the packed package in a real Node-RED, the
 * example as shipped, a real Mosquitto broker, readings published as the sensor would, replies sent through the
 * emulator's control API as a phone in its console sends them (with the JobId of the newest message to that
 * number), steps of a few seconds.
 *
 * Changed in the example for the test: its wait per step (the tab's WAIT_MIN) and how often replies are read;
 * the sensor topic becomes home/+/temperature (as its sibling example documents, for two sensors in (d)); and its
 * three output debug nodes publish msg.ask to MQTT, where the test counts them.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { connectAsync, type MqttClient } from 'mqtt';
import { examplesForDeploy, listExamples, type FlowNode } from '../../scripts/lib/flows';
import { deployFlows, startNodeRed, type RunningNodeRed } from '../../scripts/lib/nodered';
import { freePort } from '../../scripts/lib/proc';
import { openBrowser } from './browser';
import { addNode, openEditDialog } from './editor';
import { startMosquitto, type RunningMosquitto } from './mosquitto';
import { nodeBin, nodeRedDir, nodeRedVersion, outDir, startStack, type Stack } from './stack';

const EXAMPLE = 'Freezer alarm with acknowledgement';
const A = '+4917012345678';
const B = '+4917087654321';
const STRANGER = '+4917011110000';
const OUT_TOPIC = 'e2e/ask';

interface Job {
  id: number;
  caption: string;
  text: string;
  recipients: string[];
}

interface AskOut {
  answer: string;
  from: string;
  step: number;
  afterMs: number;
  jobId: number;
  id: string;
  code: string;
  status?: string;
  resolution?: string;
  resolvedBy?: string;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(ok: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await ok()) return;
    await sleep(100);
  }
  throw new Error(`${what}: not within ${ms} ms`);
}

/** The tab's environment variable `name` set to `value`. */
function setting(tab: FlowNode, name: string, value: string): unknown[] {
  const env = tab.env as { name: string; value: string; type: string }[];
  assert.ok(
    env.some((e) => e.name === name),
    `the example's tab has no ${name}`,
  );
  return env.map((e) => (e.name === name ? { ...e, value } : e));
}

/** The example with a wait of `waitS` seconds per step and its outputs published to MQTT. */
function exampleFlow(waitS: number): FlowNode[] {
  const example = listExamples().find((e) => e.name === EXAMPLE);
  assert.ok(example, `examples/${EXAMPLE}.json is missing`);
  const nodes = structuredClone(example.nodes);
  const ask = nodes.find((n) => n.type === 'smsgw-ask');
  assert.ok(ask, 'the example has an ask node');
  const broker = nodes.find((n) => n.type === 'mqtt-broker')!;
  const out: FlowNode[] = [];
  const [answered, unanswered, resolved] = (ask.wires as string[][]).map((w) => w[0]!);
  for (const [debugId, which] of [
    [answered!, 'answered'],
    [unanswered!, 'unanswered'],
    [resolved!, 'resolved'],
  ] as const) {
    const debug = nodes.find((n) => n.id === debugId)!;
    assert.equal(debug.type, 'debug');
    // The debug node becomes: msg.ask as the payload, published to e2e/ask/<which>.
    Object.assign(debug, {
      type: 'change',
      rules: [{ t: 'set', p: 'payload', pt: 'msg', to: 'ask', tot: 'msg' }],
      wires: [[`${debugId}-mqtt`]],
    });
    out.push({
      id: `${debugId}-mqtt`,
      type: 'mqtt out',
      z: debug.z,
      topic: `${OUT_TOPIC}/${which}`,
      qos: '1',
      retain: 'false',
      broker: broker.id,
      x: 0,
      y: 0,
      wires: [],
    });
  }
  return [
    ...nodes.map((n) => {
      if (n.type === 'tab') return { ...n, env: setting(n, 'WAIT_MIN', String(waitS / 60)) };
      if (n.type === 'smsgw-ask') return { ...n, interval: 1 };
      if (n.type === 'mqtt in') return { ...n, topic: 'home/+/temperature' };
      return n;
    }),
    ...out,
  ];
}

/** Other examples deployed beside it, their inbound triggers reading every second. */
function otherExamples(names: string[]): { name: string; nodes: FlowNode[] }[] {
  return names.map((name) => {
    const example = listExamples().find((e) => e.name === name);
    assert.ok(example, `examples/${name}.json is missing`);
    return {
      name,
      nodes: example.nodes.map((n) => (n.type === 'smsgw-inbound' ? { ...n, interval: 1 } : n)),
    };
  });
}

describe(`ask example (Freezer alarm with acknowledgement): Node-RED ${nodeRedVersion}, Mosquitto, the emulator`, function () {
  this.timeout(240_000);
  let stack: Stack;
  let nodeRed: RunningNodeRed;
  let mosquitto: RunningMosquitto;
  let mqtt: MqttClient;
  const got: { which: string; ask: AskOut; topic: string }[] = [];
  let deploys = 0;

  before(async function () {
    mosquitto = await startMosquitto(join(outDir, 'mosquitto-ask'));
    stack = await startStack('ask-freezer');
    nodeRed = stack.nodeRed;
    mqtt = await connectAsync(mosquitto.url, { clientId: 'ask-e2e', reconnectPeriod: 0 });
    await mqtt.subscribeAsync(`${OUT_TOPIC}/#`, { qos: 1 });
    mqtt.on('message', (topic, payload) => {
      const ask = JSON.parse(payload.toString('utf8')) as AskOut;
      got.push({ which: topic.slice(OUT_TOPIC.length + 1), ask, topic });
    });
  });
  after(async function () {
    await mqtt?.endAsync();
    await nodeRed?.proc.stop();
    await stack?.stop();
    await mosquitto?.stop();
  });

  async function jobs(): Promise<Job[]> {
    const state = (await (await fetch(`${stack.emulator.url}/_emulator/state`)).json()) as {
      accounts: { jobs: Job[] }[];
    };
    return state.accounts.flatMap((a) => a.jobs).sort((a, b) => a.id - b.id);
  }

  /** A reply as the console's phone sends it: with the JobId of the newest message to that number. */
  async function reply(from: string, text: string, withJob = true): Promise<void> {
    const last = (await jobs()).filter((j) => j.recipients.includes(from)).pop();
    const res = await fetch(`${stack.emulator.url}/_emulator/inbound`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ from, text, ...(withJob && last ? { jobId: last.id } : {}) }),
    });
    assert.ok(res.ok, `inbound: ${res.status}`);
  }

  /** Deploys the example (fresh node ids each time), waits for its MQTT subscription; returns the job count. */
  async function deploy(waitS: number, also: string[] = []): Promise<number> {
    const before = (await jobs()).length;
    const logFrom = mosquitto.proc.output().length;
    deploys += 1;
    await deployFlows(
      nodeRed.url,
      examplesForDeploy(
        stack.emulator.url,
        [{ name: `${EXAMPLE} (${deploys})`, nodes: exampleFlow(waitS) }, ...otherExamples(also)],
        {
          mqtt: { host: '127.0.0.1', port: mosquitto.port },
        },
      ),
    );
    await until(
      () => / \d home\/\+\/temperature\s*$/m.test(mosquitto.proc.output().slice(logFrom)),
      20_000,
      'Node-RED subscribed',
    );
    await sleep(500);
    assert.equal((await jobs()).length, before, 'nothing sent on deploy');
    return before;
  }

  async function publish(sensor: string, ...readings: number[]): Promise<void> {
    for (const r of readings) {
      await mqtt.publishAsync(`home/${sensor}/temperature`, String(r), { qos: 1 });
      await sleep(150);
    }
  }

  const since = async (n: number): Promise<Job[]> => (await jobs()).slice(n);
  const to = (list: Job[], n: string): Job[] => list.filter((j) => j.recipients.includes(n));
  const codeOf = (j: Job): string => /Reply 1([a-z]+)=/.exec(j.text)?.[1] ?? '';

  it('(a) the first number replies 1: output 1 once, no question to the second', async function () {
    const n = await deploy(3);
    const outs = got.length;
    await publish('freezer', -18, -9);
    await until(async () => to(await since(n), A).length === 1, 10_000, 'the question to the first number');
    const question = to(await since(n), A)[0]!;
    assert.match(
      question.text,
      /^Freezer too warm: -9 C \(alarm above -12 C\)\nReply 1([a-z]+)=ok 2\1=busy 3\1=done$/,
    );
    await reply(A, '1');
    await until(() => got.length > outs, 10_000, 'output 1');
    await sleep(4000); // past the step's end: nothing more may come
    const mine = got.slice(outs);
    assert.equal(mine.length, 1);
    assert.equal(mine[0]!.which, 'answered');
    assert.deepEqual(
      [mine[0]!.ask.answer, mine[0]!.ask.from, mine[0]!.ask.step, mine[0]!.ask.jobId],
      ['1', A, 1, question.id],
    );
    assert.deepEqual(
      to(await since(n), B),
      [],
      'no SMS to the second number (it was not asked, so not told)',
    );
  });

  it('(b)(c) nobody replies: the second number gets it once, then output 2 once; a stranger answers nothing', async function () {
    const n = await deploy(3);
    const outs = got.length;
    await publish('freezer', -18, -8);
    await until(async () => to(await since(n), A).length === 1, 10_000, 'the question to the first number');
    await reply(STRANGER, '1', false);
    await reply(STRANGER, `1${codeOf(to(await since(n), A)[0]!)}`, false);
    await until(() => got.length > outs, 20_000, 'output 2');
    await sleep(1500);
    const mine = got.slice(outs);
    assert.deepEqual(
      mine.map((m) => [m.which, m.ask.answer, m.ask.from, m.ask.step]),
      [['unanswered', '', '', 2]],
    );
    const sent = await since(n);
    assert.equal(to(sent, B).length, 1, 'the second number once');
    assert.match(
      to(sent, B)[0]!.text,
      new RegExp(`^Passed on, no reply from \\${A}: Freezer too warm: -8 C`),
    );
    assert.equal(to(sent, A).length, 1);
    assert.equal(to(sent, STRANGER).length, 0);
  });

  it('(d) two open questions to one number, answered by their codes in reverse order', async function () {
    const n = await deploy(20);
    const outs = got.length;
    await publish('freezer1', -18, -9);
    await until(async () => to(await since(n), A).length === 1, 10_000, 'the first question');
    await publish('freezer2', -18, -7);
    await until(async () => to(await since(n), A).length === 2, 10_000, 'the second question');
    const [first, second] = to(await since(n), A);
    const [c1, c2] = [codeOf(first!), codeOf(second!)];
    assert.ok(c1 && c2 && c1 !== c2, `two codes: ${first!.text} / ${second!.text}`);
    await reply(A, '1'); // no code while two are open: answers none
    await sleep(1500);
    assert.equal(got.length, outs);
    await reply(A, `1${c2}`);
    await until(() => got.length === outs + 1, 10_000, 'the second answered');
    await reply(A, `1${c1}`);
    await until(() => got.length === outs + 2, 10_000, 'the first answered');
    const mine = got.slice(outs);
    assert.deepEqual(
      mine.map((m) => [m.which, m.ask.code, m.ask.jobId]),
      [
        ['answered', c2, second!.id],
        ['answered', c1, first!.id],
      ],
    );
    assert.equal(to(await since(n), B).length, 0);
  });

  it('(f) the reply forms: "busy c" passes on ("Passed on by"), "ok b" names one, "1*" takes the rest; the Auto-reply example beside it answers none of them', async function () {
    const n = await deploy(30, ['Auto-reply to inbound SMS']);
    const outs = got.length;
    const questions: Job[] = [];
    for (const [sensor, reading] of [
      ['freezer1', -9],
      ['freezer2', -7],
      ['freezer3', -8],
    ] as const) {
      await publish(sensor, -18, reading);
      const count = questions.length + 1;
      await until(async () => to(await since(n), A).length === count, 10_000, `question ${count}`);
      questions.push(to(await since(n), A)[count - 1]!);
    }
    const [c1, c2, c3] = questions.map(codeOf);
    assert.equal(new Set([c1, c2, c3]).size, 3, `three codes: ${questions.map((q) => q.text).join(' / ')}`);
    await reply(A, `busy ${c3}`);
    await until(async () => to(await since(n), B).length === 1, 10_000, 'passed on to the second number');
    assert.match(to(await since(n), B)[0]!.text, new RegExp(`^Passed on by \\${A}: Freezer too warm: -8 C`));
    await reply(A, `ok ${c2} on my way`);
    await until(() => got.length === outs + 1, 10_000, 'the second answered');
    // A was asked the third question too (before passing it on): "1*" acknowledges both left.
    await reply(A, '1*');
    await until(() => got.length === outs + 3, 10_000, 'the first and third answered');
    assert.deepEqual(
      got.slice(outs).map((m) => [m.which, m.ask.code, m.ask.answer, m.ask.from]),
      [
        ['answered', c2, 'ok', A],
        ['answered', c1, '1', A],
        ['answered', c3, '1', A],
      ],
    );
    // Someone else's message after the replies: the auto-reply answers it, so it read past the replies.
    await reply(STRANGER, 'STATUS', false);
    await until(
      async () => to(await since(n), STRANGER).length === 1,
      15_000,
      'the auto-reply to the stranger',
    );
    assert.equal(to(await since(n), STRANGER)[0]!.text, 'Thanks, we got your message: STATUS');
    const thanked = (await since(n)).filter(
      (j) => j.text.startsWith('Thanks') && !j.recipients.includes(STRANGER),
    );
    assert.deepEqual(thanked, [], 'no auto-reply to a reply that answered a question');
    assert.equal(to(await since(n), A).length, 3, 'the three questions, nothing else, to the first number');
  });

  it('(g) back to normal after the first number acknowledged: resolved, everyone asked told once, output 3 once', async function () {
    const n = await deploy(20);
    const outs = got.length;
    await publish('freezer', -18, -9);
    await until(async () => to(await since(n), A).length === 1, 10_000, 'the question');
    await reply(A, 'ok');
    await until(() => got.length === outs + 1, 10_000, 'output 1');
    await publish('freezer', -18);
    await until(() => got.length === outs + 2, 10_000, 'output 3');
    await until(async () => to(await since(n), A).length === 2, 10_000, 'the resolve SMS');
    // The next alarm: its question comes after the resolve SMS, and nothing else came meanwhile.
    await publish('freezer', -9);
    await until(async () => to(await since(n), A).length === 3, 10_000, 'the next question');
    const mine = got.slice(outs);
    assert.deepEqual(
      mine.map((m) => [m.which, m.ask.from, m.ask.status, m.ask.resolution, m.ask.resolvedBy]),
      [
        ['answered', A, undefined, undefined, undefined],
        ['resolved', A, 'resolved', 'Freezer back to -18 C', ''],
      ],
    );
    assert.deepEqual(
      to(await since(n), A).map((j) => j.text.split('\n')[0]),
      [
        'Freezer too warm: -9 C (alarm above -12 C)',
        'Resolved: Freezer back to -18 C',
        'Freezer too warm: -9 C (alarm above -12 C)',
      ],
    );
    assert.equal(to(await since(n), B).length, 0, 'the second number was never asked, so not told');
  });

  it('(e) kill -9 of Node-RED while a question waits: after the restart it escalates once, on time', async function () {
    const WAIT_S = 20;
    const n = await deploy(WAIT_S);
    const outs = got.length;
    await publish('freezer', -18, -9);
    await until(async () => to(await since(n), A).length === 1, 10_000, 'the question');
    const asked = Date.now();
    await sleep(1500);
    nodeRed.proc.child.kill('SIGKILL');
    await until(() => !nodeRed.proc.alive(), 5000, 'Node-RED killed');
    nodeRed = await startNodeRed({
      nodeRedDir,
      nodeBin,
      userDir: join(outDir, 'userdir'),
      port: await freePort(),
      freshFlows: false,
      logFile: join(outDir, 'ask-freezer-restarted-node-red.log'),
    });
    const restartedAfter = Date.now() - asked;
    assert.ok(restartedAfter < WAIT_S * 1000 - 3000, `Node-RED took ${restartedAfter} ms to come back`);
    await until(async () => to(await since(n), B).length >= 1, WAIT_S * 1000 + 10_000, 'passed on');
    const passedAfter = Date.now() - asked;
    assert.ok(
      passedAfter >= WAIT_S * 1000 - 500 && passedAfter <= WAIT_S * 1000 + 4000,
      `passed on ${passedAfter} ms after the question (its step is ${WAIT_S} s)`,
    );
    await reply(B, '1');
    await until(() => got.length > outs, 10_000, 'output 1');
    await sleep(1500);
    const mine = got.slice(outs);
    assert.deepEqual(
      mine.map((m) => [m.which, m.ask.from, m.ask.step]),
      [['answered', B, 2]],
    );
    const sent = await since(n);
    assert.equal(to(sent, B).filter((j) => j.text.includes('Reply')).length, 1, 'escalated once');
    assert.equal(
      to(sent, A).filter((j) => j.text.includes('Reply')).length,
      1,
      'the first step not sent again',
    );
    assert.deepEqual(
      to(sent, A)
        .filter((j) => !j.text.includes('Reply'))
        .map((j) => j.text),
      [`Answered by ${B}: Freezer too warm: -9 C (alarm above -12 C)`],
      'the first number (asked) is told who took it',
    );
  });

  it('the dialog: a new ask node shows its defaults, the hint follows the answers, Done stores every field', async function () {
    const browser = await openBrowser();
    try {
      const page = browser.page;
      await page.goto(`${nodeRed.url}/`);
      await page.waitForSelector('#red-ui-palette-container .red-ui-palette-node', { timeout: 60_000 });
      const id = await addNode(page, 'smsgw-ask', 300, 500);
      await openEditDialog(page, id);
      const typed = (field: string): Promise<[unknown, unknown]> =>
        page.evaluate((f) => {
          const $ = (window as unknown as { $: (s: string) => { typedInput(a: string): unknown } }).$;
          return [$(`#node-input-${f}`).typedInput('type'), $(`#node-input-${f}`).typedInput('value')];
        }, field);
      assert.deepEqual(await typed('question'), ['msg', 'payload']);
      assert.deepEqual(await typed('caption'), ['msg', 'topic']);
      assert.equal(await page.inputValue('#node-input-wait'), '5');
      assert.equal(await page.inputValue('#node-input-waitUnit'), 'min');
      assert.equal(await page.inputValue('#node-input-tell'), 'none');
      const hint = (): Promise<string | null> => page.getAttribute('#node-input-hint', 'placeholder');
      // A new node has the English and German words; the hint is one short line.
      assert.equal(await page.inputValue('#node-input-ack'), '1, ok, ja');
      assert.equal(await page.inputValue('#node-input-pass'), '2, busy, besetzt');
      assert.equal(await page.inputValue('#node-input-resolve'), '3, done, erledigt');
      assert.equal(await page.inputValue('#node-input-tellResolve'), 'asked');
      assert.equal(await hint(), 'Reply {ack}{code}=ok {pass}{code}=busy {resolve}{code}=done');
      await page.fill('#node-input-resolve', '');
      assert.equal(await hint(), 'Reply {ack}{code}=ok {pass}{code}=busy');
      await page.fill('#node-input-pass', '');
      await page.fill('#node-input-ack', '');
      assert.equal(await hint(), 'Reply {code} to acknowledge.');
      await page.fill('#node-input-ack', '1');
      await page.fill('#node-input-pass', '2');
      assert.equal(await hint(), 'Reply {ack}{code}=ok {pass}{code}=busy');
      await page.click('#node-dialog-ok');
      await page.waitForSelector('#node-dialog-ok', { state: 'detached' });
      const saved = await page.evaluate((nid) => {
        const RED = (
          window as unknown as {
            RED: {
              nodes: { node(id: string): Record<string, unknown>; getType(t: string): { defaults: object } };
            };
          }
        ).RED;
        return { node: RED.nodes.node(nid), defaults: Object.keys(RED.nodes.getType('smsgw-ask').defaults) };
      }, id);
      for (const field of saved.defaults) assert.ok(field in saved.node, `the node has no ${field}`);
      assert.deepEqual([saved.node.ack, saved.node.pass, saved.node.wait], ['1', '2', 5]);
      // (the editor asks the Flow Library catalogue for the palette manager; the browser is kept off the internet)
      const ours = browser.errors.filter(
        (e) => !/Failed to load resource|ERR_FAILED|ERR_NAME_NOT_RESOLVED|net::/.test(e),
      );
      assert.deepEqual(ours, []);
    } finally {
      await browser.close();
    }
  });
});
