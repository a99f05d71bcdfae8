/**
 * Benchmark 4, Node-RED flow: 20,000 messages through `smsgw-send-sms` in a real, embedded Node-RED runtime
 * (bench/embedded.ts) against the emulator (own process), vs our client alone on the same emulator.
 *   client     GatewayClient.send.sendSms, 32 calls in flight (the config node's maxConnections is 32 too)
 *   flow       32 messages in flight: each output lets the next message in
 *   flow burst all 20,000 messages handed to the node at once (what memory does under a burst)
 * Reports rates, the flow/client ratio, and peak RSS and heap above the idle level.
 * Needs dist/ (npm run build). Run: node --expose-gc -r tsx/cjs bench/nodered.ts   (MESSAGES=20000)
 */
import { performance } from 'node:perf_hooks';
import type { NodeMessage } from 'node-red';
import { Pool } from 'undici';
import { catalogue, client as ours } from './pkg';
import { runWindowed, startRuntime } from './embedded';
import { SEND_PARAMS, TEXT, sendSmsNode, sendSmsWire, startEmulatorChild } from './fixtures';
import { PASSWORD, USER, cpuMsSince, emit, printTable, round } from './lib';

const { DEFAULT_NAMESPACES } = catalogue;
const { GatewayClient } = ours;
const MESSAGES = Number(process.env.MESSAGES ?? 20_000);
const WINDOW = 32;
const gc = (globalThis as { gc?: () => void }).gc;

interface Phase {
  phase: string;
  messages: number;
  sent?: number;
  failed?: number;
  seconds: number;
  rate: number;
  cpuUsPerMsg: number;
  peakRssMB: number;
  peakHeapMB: number;
  extraRssMB: number;
  extraHeapMB: number;
}

async function phase(name: string, n: number, run: () => Promise<void>): Promise<Phase> {
  gc?.();
  const m0 = process.memoryUsage();
  let rss = m0.rss;
  let heap = m0.heapUsed;
  const probe = setInterval(() => {
    const m = process.memoryUsage();
    rss = Math.max(rss, m.rss);
    heap = Math.max(heap, m.heapUsed);
  }, 10);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await run();
  const s = (performance.now() - t0) / 1000;
  const cpu = cpuMsSince(c0);
  clearInterval(probe);
  const mb = (b: number): number => round(b / 1e6, 1);
  return {
    phase: name,
    messages: n,
    seconds: round(s),
    rate: Math.round(n / s),
    cpuUsPerMsg: Math.round((cpu * 1000) / n),
    peakRssMB: mb(rss),
    peakHeapMB: mb(heap),
    extraRssMB: mb(rss - m0.rss),
    extraHeapMB: mb(heap - m0.heapUsed),
  };
}

/** Live heap held by each call waiting for a connection: 5,000 calls started at once, full GC, measured. */
async function livePerPending(call: () => Promise<unknown>): Promise<number | null> {
  if (!gc) return null;
  gc();
  gc();
  const h0 = process.memoryUsage().heapUsed;
  const all = Array.from({ length: 5000 }, call);
  gc();
  gc();
  const bytes = (process.memoryUsage().heapUsed - h0) / 5000;
  await Promise.all(all);
  return Math.round(bytes);
}

async function main(): Promise<void> {
  const pending: Record<string, number | null> = {};
  const emu = await startEmulatorChild({ requestLogSize: 1 });
  const phases: Phase[] = [];
  try {
    const client = new GatewayClient({
      baseUrl: emu.url,
      user: USER,
      password: PASSWORD,
      maxConnections: WINDOW,
      gatewayNamespace: DEFAULT_NAMESPACES.gateway,
    });
    const clientRun = async (n: number): Promise<void> => {
      let next = 0;
      await Promise.all(
        Array.from({ length: WINDOW }, async () => {
          while (next++ < n) await client.send.sendSms(SEND_PARAMS);
        }),
      );
    };
    await clientRun(2000); // warm-up (JIT, connections) for both sides
    phases.push(await phase('client alone', MESSAGES, () => clientRun(MESSAGES)));
    pending.client = await livePerPending(() => client.send.sendSms(SEND_PARAMS));
    const wire = sendSmsWire();
    const pool = new Pool(emu.url, { connections: WINDOW });
    pending.rawUndici = await livePerPending(async () => {
      const r = await pool.request({
        path: wire.path,
        method: 'POST',
        headers: wire.headers,
        body: wire.body!,
      });
      await r.body.arrayBuffer();
    });
    await pool.close();
    await client.close();

    const rt = await startRuntime();
    const deploy = (config: Record<string, unknown>): Promise<void> =>
      rt.deploy(
        emu.url,
        [
          sendSmsNode('send', { wires: [['out']] }),
          { id: 'out', type: 'junction' },
          { id: 'catch', type: 'catch', scope: ['send'], uncaught: false, wires: [['caught']] },
          { id: 'caught', type: 'junction' },
        ],
        { maxConnections: WINDOW, gatewayNamespace: DEFAULT_NAMESPACES.gateway, ...config },
      );
    const msg = (i: number): NodeMessage => ({
      payload: TEXT,
      topic: `bench ${i}`,
    });
    const flowRun = (n: number, window: number): Promise<{ sent: number; failed: number }> =>
      runWindowed(rt, { send: 'send', out: 'out', caught: 'caught' }, n, window, msg);
    const outcome: Record<string, { sent: number; failed: number }> = {};
    const run = (name: string, window: number) => async (): Promise<void> => {
      outcome[name] = await flowRun(MESSAGES, window);
    };
    // The queue of the config node's flow control holds every msg here, so that all of them are sent.
    await deploy({ maxQueue: MESSAGES });
    await flowRun(2000, WINDOW); // warm-up
    phases.push(await phase('flow (32 in flight)', MESSAGES, run('flow (32 in flight)', WINDOW)));
    phases.push(await phase('flow burst (all at once)', MESSAGES, run('flow burst (all at once)', MESSAGES)));
    // As installed: the default queue (1000) refuses the rest of a burst at once instead of holding it.
    await deploy({});
    phases.push(
      await phase('flow burst, default queue', MESSAGES, run('flow burst, default queue', MESSAGES)),
    );
    for (const p of phases) Object.assign(p, outcome[p.phase] ?? { sent: p.messages, failed: 0 });
    await rt.stop();
  } finally {
    await emu.stop();
  }
  const [c, f] = phases as [Phase, Phase, Phase];
  const burst = phases.find((p) => p.phase === 'flow burst (all at once)')!;
  const capped = phases.find((p) => p.phase === 'flow burst, default queue')!;
  const ratios = {
    flowVsClient: round(f.rate / c.rate),
    flowCpuVsClientCpu: round(f.cpuUsPerMsg / c.cpuUsPerMsg),
    // Peak heap above idle per msg of the burst, all queued (the queue raised to hold them) and as installed:
    // the default queue (1000) holds at most that many, the rest is refused at once, so the heap is bounded.
    burstHeapBytesPerQueuedMsg: Math.round((burst.extraHeapMB * 1e6) / MESSAGES),
    defaultQueueBurstExtraHeapMB: capped.extraHeapMB,
  };
  printTable(
    `Node-RED smsgw-send-sms vs client alone, ${MESSAGES} messages, emulator in its own process`,
    phases.map((p) => ({ ...p })),
  );
  console.log(`ratios ${JSON.stringify(ratios)}  (target flowVsClient >= 0.9)`);
  console.log(`live heap per call waiting for a connection (bytes): ${JSON.stringify(pending)}`);
  emit('nodered', {
    livePerPendingCallBytes: pending,
    messages: MESSAGES,
    window: WINDOW,
    phases,
    ratios,
    targets: { 'flow >= 0.9x client': ratios.flowVsClient >= 0.9 },
  });
  process.exit(0);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
