/**
 * Crash anywhere: bursts of messages into a real Node-RED process (its own process, this package
 * linked into its user directory, the outbox on) while the emulator flaps (down and up on the same port, with
 * random faults while up), and `kill -9` of Node-RED at random moments; restarted on the same user directory
 * each round. Counted at the emulator by caption (0 lost, 0 sent twice) and at the flow side by a ledger the
 * flow writes: every msg the send node acknowledged (Complete node) comes out of it (output or Catch), also
 * across the kills. Seeded (SMSGW_CRASH_SEED, printed). `npm test`: 2 rounds of 200; `npm run
 * test:reliability`: 10 rounds of 1,000, with figures; SMSGW_CRASH_ROUNDS and SMSGW_CRASH_BURST set others.
 * Needs dist/ (npm run build).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DEFAULT_NAMESPACES } from '../../src/catalogue';
import { GatewayState, startEmulator, type RunningEmulator } from '../../src/emulator';
import { readJournal } from '../../src/reliability';
import { deployFlows, startNodeRed, type RunningNodeRed } from '../../scripts/lib/nodered';
import { ROOT } from '../../scripts/lib/package';
import { freePort } from '../../scripts/lib/proc';
import { CAPTION_MATCH, FULL, PASSWORD, injectRandomFaults, report, seeded } from './helpers';

const ROUNDS = Number(process.env.SMSGW_CRASH_ROUNDS) || (FULL ? 10 : 2);
const BURST = Number(process.env.SMSGW_CRASH_BURST) || (FULL ? 1000 : 200);
/** A kill comes this long after the burst was handed over, at most (uniform). */
const KILL_WITHIN_MS = FULL ? 4000 : 2500;
const SEED = Number(process.env.SMSGW_CRASH_SEED) || Date.now() % 1_000_000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A function node that appends one ledger line per msg: `<kind> <message id> <details>`. */
function recorder(id: string, kind: 'A' | 'O' | 'E', ledger: string, y: number): Record<string, unknown> {
  return {
    id,
    type: 'function',
    z: 'tab',
    x: 600,
    y,
    name: `ledger ${kind}`,
    libs: [{ var: 'fs', module: 'fs' }],
    outputs: 0,
    func: `
const p = msg.payload && typeof msg.payload === 'object' ? msg.payload : {};
const caption = typeof p.caption === 'string' ? p.caption : String(msg.topic || '');
let line = ${JSON.stringify(kind)} + ' ' + caption.split(' #')[0];
if (${JSON.stringify(kind)} === 'O') line += ' ' + p.reference + (p.restored ? ' restored' : '') + (p.outbox ? ' kept' : '');
if (${JSON.stringify(kind)} === 'E') line += ' ' + ((msg.error && msg.error.code) || '?');
fs.appendFileSync(${JSON.stringify(ledger)}, line + '\\n');
return null;`,
  };
}

function flows(emulatorUrl: string, ledger: string): unknown[] {
  return [
    { id: 'tab', type: 'tab', label: 'crash anywhere' },
    {
      id: 'cfg',
      type: 'smsgw-config',
      baseUrl: emulatorUrl,
      service: 'gateway',
      transport: 'soap11',
      gatewayNamespace: DEFAULT_NAMESPACES.gateway,
      legacyNamespace: DEFAULT_NAMESPACES.legacy,
      timeout: 1,
      maxConnections: 16,
      maxQueue: 5000,
      outbox: true,
      credentials: { user: 'demo', password: PASSWORD },
    },
    { id: 'in', type: 'http in', z: 'tab', x: 100, y: 40, url: '/burst', method: 'post', wires: [['split']] },
    {
      id: 'split',
      type: 'function',
      z: 'tab',
      x: 250,
      y: 40,
      outputs: 2,
      func: `
const { from, count } = msg.payload;
for (let i = from; i < from + count; i++) node.send([{ payload: 'crash test ' + i, topic: 'c' + i }, null]);
return [null, msg];`,
      wires: [['send'], ['answer']],
    },
    { id: 'answer', type: 'http response', z: 'tab', x: 400, y: 80, statusCode: '', wires: [] },
    {
      id: 'send',
      type: 'smsgw-send-sms',
      z: 'tab',
      x: 400,
      y: 40,
      gateway: 'cfg',
      operation: 'SendSMS',
      recipient: '+4917012345678',
      recipientType: 'str',
      text: 'payload',
      textType: 'msg',
      caption: 'topic',
      captionType: 'msg',
      smsType: 'Standard',
      smsTypeType: 'smstype',
      wires: [['rec-out']],
    },
    { id: 'done', type: 'complete', z: 'tab', x: 400, y: 120, scope: ['send'], wires: [['rec-ack']] },
    { id: 'caught', type: 'catch', z: 'tab', x: 400, y: 160, scope: ['send'], wires: [['rec-err']] },
    recorder('rec-out', 'O', ledger, 40),
    recorder('rec-ack', 'A', ledger, 120),
    recorder('rec-err', 'E', ledger, 160),
  ];
}

interface Ledger {
  accepted: Set<number>;
  outputs: Map<number, number>;
  restored: number;
  errors: Map<number, string[]>;
}

function readLedger(file: string): Ledger {
  const l: Ledger = { accepted: new Set(), outputs: new Map(), restored: 0, errors: new Map() };
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  for (const line of text.split('\n')) {
    const [kind, id, ...rest] = line.split(' ');
    const i = Number(String(id ?? '').slice(1));
    if (!id?.startsWith('c') || !Number.isInteger(i)) continue;
    if (kind === 'A') l.accepted.add(i);
    if (kind === 'O') {
      l.outputs.set(i, (l.outputs.get(i) ?? 0) + 1);
      if (rest.includes('restored')) l.restored++;
    }
    if (kind === 'E') l.errors.set(i, [...(l.errors.get(i) ?? []), rest.join(' ')]);
  }
  return l;
}

async function post(url: string, body: unknown): Promise<number> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

describe('reliability: crash anywhere (kill -9 of a real Node-RED while the gateway flaps)', function () {
  this.timeout(FULL ? 900_000 : 150_000);
  const nodeRedDir = dirname(require.resolve('node-red/package.json', { paths: [ROOT] }));
  let work: string;
  let userDir: string;
  let ledger: string;
  let state: GatewayState;
  let emu: RunningEmulator | undefined;
  let port = 0;
  let nodeRed: RunningNodeRed | undefined;
  let flapping = false;
  let flapper: Promise<void> | undefined;

  const up = async (rnd: () => number, faults: boolean): Promise<void> => {
    emu = await startEmulator({ backend: state, port, console: false, requestLogSize: 1 });
    port = emu.port;
    // Random faults while up: answers delayed past the 1 s timeout, connections reset, jobs committed but the
    // answer dropped, 503 pages, cut answers (sends and lookups alike).
    if (faults) injectRandomFaults(emu, { share: 0.05, seed: Math.floor(rnd() * 1e9), delayMs: 1500 });
  };
  const down = async (): Promise<void> => {
    const e = emu;
    emu = undefined;
    await e?.close();
  };

  before(function () {
    if (!existsSync(join(ROOT, 'dist', 'nodes', 'smsgw-config.js')))
      throw new Error('dist/ is missing: run npm run build first (npm test does)');
  });

  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'smsgw-crash-'));
    userDir = join(work, 'userdir');
    ledger = join(work, 'ledger.txt');
    // The package as users install it, linked to this checkout (nodes/ -> dist/).
    mkdirSync(join(userDir, 'node_modules', '@smsgw'), { recursive: true });
    symlinkSync(ROOT, join(userDir, 'node_modules', '@smsgw', 'node-red-sms-gateway'), 'dir');
    state = new GatewayState({
      captionMatch: CAPTION_MATCH,
      password: PASSWORD,
      balance: 1e12,
      timing: { processingMs: 0, deliveryMs: 0 },
      // No duplicate detection: a second send would be a second job, not hidden by DuplicateSMSJobFound.
      duplicateWindowMs: 0,
      maxJobs: 1_000_000,
    });
  });

  afterEach(async function () {
    flapping = false;
    await flapper;
    if (nodeRed?.proc.alive()) nodeRed.proc.child.kill('SIGKILL');
    await down();
    if (this.currentTest?.state === 'passed') rmSync(work, { recursive: true, force: true });
    else console.log(`      kept for inspection: ${work}`);
  });

  /** Node-RED on the user directory (the flows deployed on the first start), the emulator's address fixed. */
  const startRed = async (fresh: boolean, nrPort: number): Promise<RunningNodeRed> => {
    const red = await startNodeRed({
      nodeRedDir,
      nodeBin: process.execPath,
      userDir,
      port: nrPort,
      freshFlows: fresh,
      logFile: join(work, 'node-red.log'),
      settings: {
        smsgwOutboxRetryInterval: 200,
        logging: { console: { level: 'warn', metrics: false, audit: false } },
      },
    });
    if (fresh) await deployFlows(red.url, flows(`http://127.0.0.1:${port}`, ledger));
    // The http in node answers once the flow runs.
    const deadline = Date.now() + 30_000;
    while ((await post(`${red.url}/burst`, { from: 0, count: 0 })) !== 200) {
      if (Date.now() > deadline) throw new Error('the flow did not start');
      await sleep(100);
    }
    return red;
  };
  const killRed = async (): Promise<void> => {
    const red = nodeRed!;
    if (!red.proc.alive()) return;
    const exited = new Promise<void>((resolve) => red.proc.child.once('exit', () => resolve()));
    red.proc.child.kill('SIGKILL');
    await exited;
  };
  /**
   * Waits until the outbox is empty (admin API) and the ledger shows what the test asserts (`settled`, up to 10 s:
   * the flow writes the last results a moment after the journal let go of them, longer on a loaded machine), then
   * stops Node-RED normally.
   */
  const drainAndStop = async (ms: number, settled: (l: Ledger) => boolean): Promise<void> => {
    const red = nodeRed!;
    const deadline = Date.now() + ms;
    for (;;) {
      const res = await fetch(`${red.url}/smsgw-config/cfg/outbox`).catch(() => undefined);
      const body = res?.ok ? ((await res.json()) as { enabled: boolean; entries: unknown[] }) : undefined;
      if (body?.enabled && body.entries.length === 0) break;
      if (Date.now() > deadline) throw new Error(`the outbox did not drain: ${JSON.stringify(body)}`);
      await sleep(250);
    }
    const end = Date.now() + 10_000;
    while (!settled(readLedger(ledger)) && Date.now() < end) await sleep(100);
    // A late second output or send would show now.
    await sleep(500);
    await red.proc.stop();
  };
  /** Jobs per message number, by the caption the emulator got. */
  const jobsByMessage = (): Map<number, number> => {
    const jobs = new Map<number, number>();
    for (const job of state.jobs()) {
      const m = /^c(\d+) #/.exec(job.caption);
      if (m) jobs.set(Number(m[1]), (jobs.get(Number(m[1])) ?? 0) + 1);
    }
    return jobs;
  };

  it('the case of the issue: gateway refusing, a burst of 200, kill -9 once acknowledged (at most 10 s): each sent once after the restart', async () => {
    const N = 200;
    await up(() => 0, false);
    const nrPort = await freePort();
    nodeRed = await startRed(true, nrPort);
    await down(); // connection refused from now on
    const t0 = Date.now();
    assert.equal(await post(`${nodeRed.url}/burst`, { from: 0, count: N }), 200);
    while (readLedger(ledger).accepted.size < N && Date.now() - t0 < 10_000) await sleep(20);
    const acknowledgedMs = Date.now() - t0;
    const acknowledged = readLedger(ledger).accepted.size;
    await killRed();
    await up(() => 0, false);
    nodeRed = await startRed(false, nrPort);
    await drainAndStop(60_000, (l) => l.restored >= N);
    const jobs = jobsByMessage();
    const l = readLedger(ledger);
    const figures = {
      messages: N,
      acknowledged,
      acknowledgedWithinMs: acknowledgedMs,
      sent: jobs.size,
      sentTwice: [...jobs.values()].filter((n) => n > 1).length,
      restoredOutputs: l.restored,
    };
    report('the issue case (200, gateway refusing, kill -9)', figures);
    assert.equal(acknowledged, N, `all acknowledged while the gateway refused: ${JSON.stringify(figures)}`);
    for (let i = 0; i < N; i++) assert.equal(jobs.get(i), 1, `message ${i}: ${JSON.stringify(figures)}`);
    assert.equal(l.restored, N, 'each result comes out of the restarted flow');
  });

  it(`${ROUNDS} rounds of ${BURST}: 0 lost, 0 sent twice, every acknowledged msg comes out of the flow`, async () => {
    console.log(`      crash-anywhere seed ${SEED} (SMSGW_CRASH_SEED=${SEED} repeats it)`);
    // One generator per purpose, so the kill moments and the flap lengths of a seed are the same in every run
    // (how they interleave with Node-RED's own timing is not).
    const kill = seeded(SEED);
    const flap = seeded(SEED + 1);
    const fault = seeded(SEED + 2);
    const started = Date.now();
    await up(fault, true);
    const nrPort = await freePort();

    // The gateway flaps for the whole run: up 0.5–2.5 s, down (connection refused, requests under way cut) 0.2–1 s.
    flapping = true;
    let flaps = 0;
    flapper = (async () => {
      while (flapping) {
        await sleep(500 + flap() * 2000);
        if (!flapping) break;
        await down();
        flaps++;
        await sleep(200 + flap() * 800);
        await up(fault, true);
      }
    })();

    const kills: Array<Record<string, number>> = [];
    for (let round = 0; round < ROUNDS; round++) {
      nodeRed = await startRed(round === 0, nrPort);
      // Answered once the split handed every msg of the burst to the send node.
      assert.equal(await post(`${nodeRed.url}/burst`, { from: round * BURST, count: BURST }), 200);
      const after = Math.floor(kill() * KILL_WITHIN_MS);
      await sleep(after);
      await killRed();
      const file = join(userDir, 'smsgw-outbox', 'cfg.jsonl');
      kills.push({
        round,
        killedAfterMs: after,
        acknowledged: readLedger(ledger).accepted.size,
        jobs: state.jobs().length,
        inJournal: existsSync(file) ? readJournal(readFileSync(file, 'utf8')).entries.length : 0,
      });
    }

    // Last start: the gateway up for good, no faults; everything held is looked up or sent.
    flapping = false;
    await flapper;
    await down();
    await up(fault, false);
    const drainStarted = Date.now();
    nodeRed = await startRed(false, nrPort);
    const produced = ROUNDS * BURST;
    await drainAndStop(FULL ? 300_000 : 90_000, (l) => {
      const jobs = jobsByMessage();
      return (
        [...l.accepted].every((i) => l.outputs.has(i) || l.errors.has(i)) &&
        [...jobs.keys()].every((i) => l.outputs.has(i))
      );
    });
    const drainSeconds = Math.round((Date.now() - drainStarted) / 1000);
    const jobs = jobsByMessage();
    const l = readLedger(ledger);
    const sentTwice = [...jobs].filter(([, n]) => n > 1).map(([i]) => i);
    const lost = [...l.accepted].filter((i) => !jobs.has(i) && !l.errors.has(i));
    const unaccounted = [...l.accepted].filter((i) => !l.outputs.has(i) && !l.errors.has(i));
    const jobsWithoutOutput = [...jobs.keys()].filter((i) => !l.outputs.has(i));
    const figures = {
      seed: SEED,
      rounds: ROUNDS,
      messages: produced,
      flaps,
      acknowledged: l.accepted.size,
      jobs: jobs.size,
      lost: lost.length,
      sentTwice: sentTwice.length,
      refusedAtCatch: l.errors.size,
      outputs: [...l.outputs.values()].reduce((a, b) => a + b, 0),
      restoredOutputs: l.restored,
      repeatedAtFlow: [...l.outputs.values()].filter((n) => n > 1).length,
      unaccounted: unaccounted.length,
      jobsWithoutOutput: jobsWithoutOutput.length,
      lastStartAndDrainSeconds: drainSeconds,
      seconds: Math.round((Date.now() - started) / 1000),
    };
    report('crash anywhere', { ...figures, kills });
    const why = JSON.stringify({ ...figures, lost: lost.slice(0, 10), sentTwice: sentTwice.slice(0, 10) });
    assert.equal(sentTwice.length, 0, `sent twice: ${why}`);
    assert.equal(lost.length, 0, `lost: ${why}`);
    assert.equal(unaccounted.length, 0, `acknowledged but never out of the flow: ${why}`);
    assert.equal(jobsWithoutOutput.length, 0, `sent but never reported to the flow: ${why}`);
    assert.ok(l.accepted.size > 0 && jobs.size >= l.accepted.size, why);
    // Every job is one of ours, and nothing but our messages was sent.
    assert.ok(
      [...jobs.keys()].every((i) => i >= 0 && i < produced),
      why,
    );
  });
});
