/**
 * Benchmark 9, the write-ahead outbox: SendSMS through `smsgw-send-sms` in an embedded
 * Node-RED (bench/embedded.ts) against the emulator (own process), with the config's outbox off and on, side
 * by side in one flow (two config nodes, two send nodes), rounds interleaved. Reports msgs/s and CPU per msg of
 * each, the ratio on/off (target >= 0.8), and the journal's flushes (fdatasync) and bytes per message; a burst
 * of every message at once with the outbox on; and what one change costs with 10,000 messages held: an append
 * to the journal versus rewriting the whole JSON file (the version 1 outbox).
 * The journal lives in the runtime's user directory under the OS temp dir: on this machine ext4, real flushes.
 * Part of `npm run bench`; alone: BENCH_ONLY=outbox npm run bench (writes results.json and performance.md), or
 * node --expose-gc -r tsx/cjs bench/outbox.ts after npm run build (MESSAGES=10000 ROUNDS=3 are the defaults).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { NodeMessage } from 'node-red';
import type { Outbox, OutboxEntry } from '../src/reliability';
import type { SmsgwConfigNode } from '../src/nodes/config/config-node';
import { runWindowed, startRuntime, type FlowNode, type Runtime } from './embedded';
import { SEND_PARAMS, TEXT, sendSmsNode, startEmulatorChild } from './fixtures';
import { atomicFile, catalogue, reliability } from './pkg';
import { cpuMsSince, emit, median, printTable, round } from './lib';

const { DEFAULT_NAMESPACES } = catalogue;
const MESSAGES = Number(process.env.MESSAGES ?? 10_000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const WINDOW = 32;
const HELD = 10_000;

type Variant = 'off' | 'on';

export interface OutboxRow {
  variant: string;
  messages: number;
  seconds: number;
  rate: number;
  cpuUsPerMsg: number;
  syncsPerMsg?: number;
  recordsPerMsg?: number;
  bytesPerMsg?: number;
}

/** One send node per variant, each with its output and Catch junctions. */
function nodes(): FlowNode[] {
  const out: FlowNode[] = [];
  for (const [variant, cfg] of [
    ['off', 'cfg'],
    ['on', 'cfg2'],
  ] as const) {
    out.push(
      sendSmsNode(`send-${variant}`, { gateway: cfg, wires: [[`out-${variant}`]] }),
      { id: `out-${variant}`, type: 'junction' },
      { id: `catch-${variant}`, type: 'catch', scope: [`send-${variant}`], wires: [[`caught-${variant}`]] },
      { id: `caught-${variant}`, type: 'junction' },
    );
  }
  return out;
}

async function outboxOf(rt: Runtime): Promise<Outbox> {
  const box = await (rt.node('cfg2') as unknown as SmsgwConfigNode).reliability?.outbox();
  if (!box) throw new Error('the outbox of cfg2 is not open');
  return box;
}

async function measure(rt: Runtime, variant: Variant, n: number, window: number): Promise<OutboxRow> {
  const msg = (i: number): NodeMessage => ({ payload: TEXT, topic: `bench ${variant} ${i}` });
  const box = variant === 'on' ? await outboxOf(rt) : undefined;
  const s0 = box?.stats.store;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await runWindowed(
    rt,
    { send: `send-${variant}`, out: `out-${variant}`, caught: `caught-${variant}` },
    n,
    window,
    msg,
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuMsSince(c0);
  if (r.failed > 0) throw new Error(`${r.failed} of ${n} failed (outbox ${variant})`);
  const m: OutboxRow = {
    variant: `outbox ${variant}${window >= n ? ', burst' : ''}`,
    messages: n,
    seconds: round(seconds),
    rate: Math.round(n / seconds),
    cpuUsPerMsg: Math.round((cpu * 1000) / n),
  };
  if (box && s0) {
    // The removes of the last messages are flushed a moment after their outputs.
    await new Promise((r) => setTimeout(r, 50));
    const s1 = box.stats.store;
    m.syncsPerMsg = round((s1.syncs - s0.syncs) / n, 4);
    m.recordsPerMsg = round((s1.records - s0.records) / n, 2);
    m.bytesPerMsg = Math.round((s1.bytes - s0.bytes) / n);
  }
  return m;
}

/** What one change costs with HELD messages held: the whole file rewritten (version 1) vs one journal line. */
export interface OutboxStorage {
  held: number;
  rewriteWholeFileMs: number;
  appendOneLineMs: number;
  appendInGroupOf100PerChangeMs: number;
  rewriteVsAppend: number;
}

async function storage(): Promise<OutboxStorage> {
  const dir = mkdtempSync(join(tmpdir(), 'smsgw-bench-journal-'));
  try {
    const entries: OutboxEntry[] = Array.from({ length: HELD }, (_, i) => ({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      reference: `ref${String(i).padStart(7, '0')}`,
      service: 'send',
      operation: 'SendSMS',
      params: { ...SEND_PARAMS, Caption: `bench ${i}` },
      createdAt: new Date().toISOString(),
      attempts: 1,
      maybeSent: false,
      inFlight: false,
      lastError: 'connect ECONNREFUSED 127.0.0.1:8080',
    }));
    const v1 = join(dir, 'v1.json');
    const rewrite: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      entries[i]!.attempts++;
      await atomicFile.writeFileAtomic(v1, JSON.stringify({ version: 1, entries }));
      rewrite.push(performance.now() - t0);
    }
    const store = new reliability.JournalStore({ file: join(dir, 'journal.jsonl'), compactAfter: 1_000_000 });
    await store.load();
    await Promise.all(entries.map((e) => store.add(e)));
    const append: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t0 = performance.now();
      entries[i]!.attempts++;
      await store.update(entries[i]!);
      append.push(performance.now() - t0);
    }
    // 100 changes given at once (a burst): one write and one flush for all of them.
    const t0 = performance.now();
    await Promise.all(entries.slice(0, 100).map((e) => store.update(e)));
    const groupPerChange = (performance.now() - t0) / 100;
    await store.close();
    return {
      held: HELD,
      rewriteWholeFileMs: round(median(rewrite), 2),
      appendOneLineMs: round(median(append), 3),
      appendInGroupOf100PerChangeMs: round(groupPerChange, 4),
      rewriteVsAppend: round(median(rewrite) / median(append), 1),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const emu = await startEmulatorChild({ requestLogSize: 1 });
  const rows: OutboxRow[] = [];
  let burst: OutboxRow | undefined;
  try {
    const rt = await startRuntime();
    const settings = {
      maxConnections: WINDOW,
      gatewayNamespace: DEFAULT_NAMESPACES.gateway,
      maxQueue: MESSAGES,
    };
    await rt.deploy(emu.url, nodes(), settings, { cfg2: { ...settings, outbox: true } });
    await measure(rt, 'off', 2000, WINDOW); // warm-up (JIT, connections, the journal's first snapshot)
    await measure(rt, 'on', 2000, WINDOW);
    for (let r = 0; r < ROUNDS; r++) {
      const order: Variant[] = r % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
      for (const v of order) rows.push(await measure(rt, v, MESSAGES, WINDOW));
    }
    burst = await measure(rt, 'on', MESSAGES, MESSAGES);
    await rt.stop();
  } finally {
    await emu.stop();
  }
  const of = (v: Variant): OutboxRow[] => rows.filter((r) => r.variant === `outbox ${v}`);
  const med = (v: Variant, k: keyof OutboxRow): number => median(of(v).map((r) => Number(r[k])));
  const summary: OutboxRow[] = (['off', 'on'] as const).map((v) => ({
    variant: `outbox ${v} (median of ${ROUNDS})`,
    messages: MESSAGES,
    seconds: round(med(v, 'seconds')),
    rate: Math.round(med(v, 'rate')),
    cpuUsPerMsg: Math.round(med(v, 'cpuUsPerMsg')),
    ...(v === 'on'
      ? {
          syncsPerMsg: round(med(v, 'syncsPerMsg'), 4),
          recordsPerMsg: round(med(v, 'recordsPerMsg'), 2),
          bytesPerMsg: Math.round(med(v, 'bytesPerMsg')),
        }
      : {}),
  }));
  const disk = await storage();
  const ratios = {
    onVsOff: round(med('on', 'rate') / med('off', 'rate')),
    cpuOnVsOff: round(med('on', 'cpuUsPerMsg') / med('off', 'cpuUsPerMsg')),
    syncsPerMsg: round(med('on', 'syncsPerMsg'), 4),
    burstSyncsPerMsg: burst?.syncsPerMsg ?? null,
  };
  printTable(
    `smsgw-send-sms, outbox off vs on, ${MESSAGES} messages, ${WINDOW} in flight, emulator in its own process`,
    [...rows, ...summary, ...(burst ? [burst] : [])] as unknown as Record<string, number | string>[],
  );
  printTable(`one change with ${HELD} messages held`, [{ ...disk }]);
  console.log(`ratios ${JSON.stringify(ratios)}  (target onVsOff >= 0.8)`);
  emit('outbox', {
    messages: MESSAGES,
    window: WINDOW,
    rounds: ROUNDS,
    rows: [...summary, ...(burst ? [burst] : [])],
    eachRound: rows,
    storage: disk,
    ratios,
    targets: { 'outbox on >= 0.8x off': ratios.onVsOff >= 0.8 },
  });
  process.exit(0);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
