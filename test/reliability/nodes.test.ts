/**
 * The delivery guarantees at node level, through the Node-RED test helper: the durable outbox across a
 * gateway outage and a Node-RED restart, and a flood of messages against the config node's flow control.
 * `npm test` runs a smaller variant; `npm run test:reliability` the full sizes with figures.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Node, NodeMessage } from 'node-red';
import { GatewayState, startEmulator, type RunningEmulator } from '../../src/emulator';
import { readJournal, type OutboxEntry } from '../../src/reliability';
import { DEMO, flowWith, helper, loadFlow, waitFor } from '../nodes/helpers';
import { sendSmsNode } from '../nodes/send-sms-node';
import { FULL, jobsPerMessage, report, CAPTION_MATCH } from './helpers';

/** Counts msgs arriving at a helper node without keeping them. */
function counter(id: string, onMsg?: (msg: NodeMessage & Record<string, unknown>) => void): { n: number } {
  const c = { n: 0 };
  (helper.getNode(id) as Node).on('input', (msg: NodeMessage) => {
    c.n++;
    onMsg?.(msg as NodeMessage & Record<string, unknown>);
  });
  return c;
}

/** The test helper's sinon spies keep every call's arguments (every msg): forgotten now and then. */
const forgetSpyCalls = (): void =>
  (helper as unknown as { _sandbox: { resetHistory(): void } })._sandbox.resetHistory();

/** Entries the outbox journal holds, as a process opening it would see them. */
const journal = (file: string): OutboxEntry[] => {
  try {
    return readJournal(readFileSync(file, 'utf8')).entries;
  } catch {
    return [];
  }
};
const outboxEntries = (file: string): number => journal(file).length;

describe('reliability: send nodes', function () {
  this.timeout(180_000);
  let state: GatewayState;
  let emu: RunningEmulator | undefined;
  let port = 0;
  let userDir: string;

  const up = async (): Promise<void> => {
    emu = await startEmulator({ backend: state, port, console: false });
    port = emu.port;
  };
  const down = async (): Promise<void> => {
    await emu?.close();
    emu = undefined;
  };

  beforeEach(async () => {
    state = new GatewayState({
      captionMatch: CAPTION_MATCH,
      password: DEMO.password,
      balance: 1e9,
      timing: { processingMs: 0, deliveryMs: 0 },
      duplicateWindowMs: 0,
    });
    port = 0;
    await up();
    userDir = mkdtempSync(path.join(tmpdir(), 'smsgw-rel-nodes-'));
    helper.settings({ userDir, smsgwOutboxRetryInterval: 50 } as Record<string, unknown>);
    await new Promise<void>((resolve) => helper.startServer(() => resolve()));
  });
  afterEach(async () => {
    await helper.unload();
    await new Promise<void>((resolve) => helper.stopServer(() => resolve()));
    await down();
    rmSync(userDir, { recursive: true, force: true });
    helper.settings({});
  });

  it('durable outbox: gateway away (answers lost, then down), Node-RED restarted, back: every message sent exactly once', async () => {
    const direct = FULL ? 40 : 5;
    const lost = FULL ? 20 : 4;
    const refused = FULL ? 200 : 15;
    const total = direct + lost + refused;
    const started = Date.now();
    const url = `http://127.0.0.1:${port}`;
    const flow = flowWith(url, [sendSmsNode()], { outbox: true });
    const file = path.join(userDir, 'smsgw-outbox', 'cfg.jsonl');
    await loadFlow(flow);
    const outs = counter('out');
    let i = 0;
    const inject = (): void => {
      (helper.getNode('n1') as Node).receive({ payload: `message ${i}`, topic: `r${i}` } as NodeMessage);
      i++;
    };

    // 1. Gateway up: sent at once.
    for (let k = 0; k < direct; k++) inject();
    await waitFor(() => outs.n === direct, 20_000);

    // 2. The gateway creates the jobs but every answer is lost and it cannot be asked about them.
    emu!.faults.add({ kind: 'commitThenDrop', operation: 'SendSMS', count: lost });
    emu!.faults.add({ kind: 'http503', operation: 'QueryJobInfoByJobCaption', count: 1_000_000 });
    for (let k = 0; k < lost; k++) inject();
    // Kept once the client gave up on finding them: marked "may have been sent", looked up before a resend.
    await waitFor(() => journal(file).filter((e) => e.maybeSent).length === lost, 60_000);
    assert.deepEqual(
      jobsPerMessage(emu!, 'r', total).slice(direct, direct + lost),
      new Array<number>(lost).fill(1),
      'the gateway has those jobs',
    );

    // 3. Gateway down: connection refused.
    await down();
    for (let k = 0; k < refused; k++) inject();
    await waitFor(() => outboxEntries(file) === lost + refused, 60_000);
    const text = readFileSync(file, 'utf8');
    assert.ok(!text.includes(DEMO.password) && !/"password"/i.test(text), 'no credentials in the file');

    // 4. Node-RED restarts (same user directory) while the gateway is still down, then the gateway is back.
    await helper.unload();
    await loadFlow(flow);
    // What the node accepted before the restart comes out of it afterwards (restored), once each.
    const restored = new Map<string, number>();
    counter('out', (msg) => {
      const p = msg.payload as { restored?: boolean; caption?: string };
      if (p.restored === true) restored.set(String(p.caption), (restored.get(String(p.caption)) ?? 0) + 1);
    });
    await up();
    await waitFor(() => outboxEntries(file) === 0, 120_000);
    await waitFor(() => restored.size === lost + refused, 20_000);

    const counts = jobsPerMessage(emu!, 'r', total);
    const missing = counts.filter((c) => c === 0).length;
    const duplicates = counts.filter((c) => c > 1).length;
    const figures = {
      messages: total,
      sentDirectly: direct,
      answersLost: lost,
      whileDown: refused,
      jobs: state.jobs().length,
      missing,
      duplicates,
      restoredOutputs: restored.size,
      seconds: Math.round((Date.now() - started) / 100) / 10,
    };
    report('outbox across an outage and a restart (nodes)', figures);
    assert.equal(missing, 0, JSON.stringify(figures));
    assert.equal(duplicates, 0, JSON.stringify(figures));
    assert.ok(
      [...restored.values()].every((n) => n === 1),
      'each restored output once',
    );
  });

  it('a flood into a send node at full speed with 200/s: bounded memory, every msg sent or refused (QUEUE_FULL)', async () => {
    const total = FULL ? 100_000 : 5_000;
    const queue = 1000;
    await loadFlow(flowWith(emu!.url, [sendSmsNode()], { rate: 200, maxQueue: queue }));
    const codes: Record<string, number> = {};
    const outs = counter('out');
    const caught = counter('caught', (msg) => {
      const code = (msg.error as { code?: string } | undefined)?.code ?? 'none';
      codes[code] = (codes[code] ?? 0) + 1;
    });
    const node = helper.getNode('n1') as Node;
    const heap0 = process.memoryUsage().heapUsed;
    let peak = heap0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().heapUsed);
      forgetSpyCalls();
    }, 50);
    const started = Date.now();
    try {
      for (let k = 0; k < total; k += 1000) {
        for (let j = k; j < Math.min(total, k + 1000); j++)
          node.receive({ payload: `flood ${j}`, topic: `f${j}` } as NodeMessage);
        await new Promise((r) => setImmediate(r));
      }
      await waitFor(() => outs.n + caught.n === total, 120_000);
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    const jobs = state.jobs().filter((j) => j.caption.startsWith('f')).length;
    const figures = {
      messages: total,
      sent: outs.n,
      queueFull: codes.QUEUE_FULL ?? 0,
      otherErrors: caught.n - (codes.QUEUE_FULL ?? 0),
      jobs,
      peakHeapMB: Math.round(peak / 1e6),
      heapGrowthMB: Math.round((peak - heap0) / 1e6),
      seconds: Math.round((Date.now() - started) / 100) / 10,
    };
    report('flood into a send node (200/s, queue 1000)', figures);
    assert.equal(outs.n + caught.n, total, 'no msg lost');
    assert.equal(figures.otherErrors, 0, JSON.stringify(codes));
    assert.ok(
      figures.queueFull > 0,
      'the queue was smaller than the burst: QUEUE_FULL reached the Catch node',
    );
    assert.equal(jobs, outs.n, 'every msg that came out is one job');
    // Bounded: at most the queue, the running ones and a burst's worth beyond the first were sent.
    assert.ok(outs.n >= queue, `sent ${outs.n}`);
  });
});
