/**
 * The heartbeat node on a real Node-RED with this package installed from its tarball and the emulator in a
 * process of its own: a pump's heartbeats come in over HTTP, its overdue output sends an SMS "pump quiet", its
 * back output "pump back". Node-RED is killed with SIGKILL (a) right after the overdue SMS went, and (b) while the
 * pump falls due: each overdue is sent once, also across the kill.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { deployFlows, startNodeRed, type RunningNodeRed } from '../../scripts/lib/nodered';
import { freePort } from '../../scripts/lib/proc';
import { nodeBin, nodeRedDir, nodeRedVersion, outDir, startStack, type Stack } from './stack';

const EVERY_S = 3;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Job {
  id: number;
  text: string;
}

/** An SMS to the admin with the text the change node made. */
const sms = (id: string, text: string, x: number, y: number): Record<string, unknown>[] => [
  {
    id: `${id}-text`,
    z: 'tab',
    type: 'change',
    rules: [{ t: 'set', p: 'payload', pt: 'msg', to: text, tot: 'str' }],
    x,
    y,
    wires: [[id]],
  },
  {
    id,
    z: 'tab',
    type: 'smsgw-send-sms',
    gateway: 'cfg',
    operation: 'SendSMS',
    recipient: '+4917012345678',
    recipientType: 'str',
    text: 'payload',
    textType: 'msg',
    x: x + 200,
    y,
    wires: [[]],
  },
];

function flows(url: string): unknown[] {
  return [
    { id: 'tab', type: 'tab', label: 'Heartbeat' },
    {
      id: 'cfg',
      type: 'smsgw-config',
      name: 'emulator',
      baseUrl: url,
      service: 'gateway',
      transport: 'soap11',
      credentials: { user: 'demo', password: 'demo-password' },
    },
    { id: 'http-beat', z: 'tab', type: 'http in', url: '/beat', method: 'post', wires: [['hb']] },
    {
      id: 'hb',
      z: 'tab',
      type: 'smsgw-heartbeat',
      name: 'pump heartbeat',
      source: 'payload.source',
      sourceType: 'msg',
      every: EVERY_S,
      unit: 's',
      grace: 0,
      sources: 'pump',
      wires: [['quiet-text'], ['back-text']],
    },
    ...sms('quiet', 'pump quiet', 300, 80),
    ...sms('back', 'pump back', 300, 160),
    { id: 'took', z: 'tab', type: 'complete', scope: ['hb'], uncaught: false, wires: [['ok']] },
    { id: 'ok', z: 'tab', type: 'http response', statusCode: '200', wires: [] },
  ];
}

describe(`heartbeat node: Node-RED ${nodeRedVersion}, the emulator, kill -9`, function () {
  this.timeout(240_000);
  let stack: Stack;
  let nodeRed: RunningNodeRed;
  let restarts = 0;

  before(async function () {
    this.timeout(600_000);
    stack = await startStack('heartbeat');
    nodeRed = stack.nodeRed;
    await deployFlows(nodeRed.url, flows(stack.emulator.url));
  });
  after(async function () {
    await nodeRed?.proc.stop();
    await stack?.stop();
  });

  async function texts(): Promise<string[]> {
    const state = (await (await fetch(`${stack.emulator.url}/_emulator/state`)).json()) as {
      accounts: { jobs: Job[] }[];
    };
    return state.accounts
      .flatMap((a) => a.jobs)
      .sort((a, b) => a.id - b.id)
      .map((j) => j.text);
  }
  const count = async (text: string): Promise<number> => (await texts()).filter((t) => t === text).length;

  async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
    const end = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > end) throw new Error(`not in time: ${what} (${JSON.stringify(await texts())})`);
      await sleep(100);
    }
  }

  async function beat(): Promise<void> {
    // Node-RED answers the deploy before the flow's HTTP route exists on a busy machine: until it does, the
    // request reaches no node (404) and is sent again (bounded).
    let status = 0;
    for (let i = 0; i < 100; i++) {
      const res = await fetch(`${nodeRed.url}/beat`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ source: 'pump' }),
      });
      status = res.status;
      await res.arrayBuffer();
      if (status !== 404) break;
      await sleep(100);
    }
    assert.equal(status, 200);
  }

  async function killAndRestart(): Promise<void> {
    nodeRed.proc.child.kill('SIGKILL');
    const end = Date.now() + 10_000;
    while (nodeRed.proc.alive() && Date.now() < end) await sleep(50);
    assert.ok(!nodeRed.proc.alive(), 'Node-RED killed');
    restarts++;
    nodeRed = await startNodeRed({
      nodeRedDir,
      nodeBin,
      userDir: stack.userDir,
      port: await freePort(),
      freshFlows: false,
      logFile: join(outDir, `heartbeat-restarted-${restarts}-node-red.log`),
    });
  }

  it('(a) killed right after the overdue SMS went: not sent again after the restart; back once', async () => {
    await beat();
    await until(async () => (await count('pump quiet')) === 1, 30_000, 'the overdue SMS');
    await killAndRestart();
    // Two periods and more after the restart: a repeated alarm would have gone by now.
    await sleep(3 * EVERY_S * 1000);
    assert.equal(await count('pump quiet'), 1, 'overdue once across the kill');
    await beat();
    await until(async () => (await count('pump back')) === 1, 30_000, 'the back SMS');
  });

  it('(b) killed while the pump falls due: after the restart the overdue comes once', async () => {
    const before = await count('pump quiet');
    await beat();
    await killAndRestart();
    await sleep(EVERY_S * 1000);
    await until(
      async () => (await count('pump quiet')) === before + 1,
      30_000,
      'the overdue after the restart',
    );
    await sleep(3 * EVERY_S * 1000);
    assert.equal(await count('pump quiet'), before + 1, 'once');
    assert.equal(await count('pump back'), 1);
  });
});
