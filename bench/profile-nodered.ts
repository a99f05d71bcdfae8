/**
 * Profiling aid for benchmark 4: the client alone, then `smsgw-send-sms` in the embedded runtime, each for
 * MESSAGES msgs with 32 in flight against the emulator (own process), alternating ROUNDS times so both see
 * the same machine. Prints rate, CPU µs/msg of this process and of the emulator, and the mean latency.
 * Run: node --cpu-prof --cpu-prof-dir=/tmp/prof -r tsx/cjs bench/profile-nodered.ts   (ONLY=flow to profile
 * the flow alone; OUTBOX=1 turns the durable outbox on)
 */
import { performance } from 'node:perf_hooks';
import type { NodeMessage } from 'node-red';
import { catalogue, client as ours } from './pkg';
import { startRuntime } from './embedded';
import { SEND_PARAMS, sendSmsNode, startEmulatorChild } from './fixtures';
import { PASSWORD, USER, cpuMsSince, median, round } from './lib';

const MESSAGES = Number(process.env.MESSAGES ?? 10_000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const ONLY = process.env.ONLY;
const WINDOW = 32;

interface Figures {
  rate: number;
  cpuUs: number;
  emuCpuUs: number;
  latencyMs: number;
}

async function main(): Promise<void> {
  const emu = await startEmulatorChild({ requestLogSize: 1 });
  const client = new ours.GatewayClient({
    baseUrl: emu.url,
    user: USER,
    password: PASSWORD,
    maxConnections: WINDOW,
    gatewayNamespace: catalogue.DEFAULT_NAMESPACES.gateway,
  });
  const rt = await startRuntime();
  await rt.deploy(emu.url, [sendSmsNode('send', { wires: [['out']] }), { id: 'out', type: 'junction' }], {
    maxConnections: WINDOW,
    maxQueue: MESSAGES,
    gatewayNamespace: catalogue.DEFAULT_NAMESPACES.gateway,
    ...(process.env.OUTBOX ? { outbox: true } : {}),
  });

  const measure = async (run: (lat: number[]) => Promise<void>): Promise<Figures> => {
    const lat: number[] = [];
    const e0 = await emu.cpuMs();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await run(lat);
    const s = (performance.now() - t0) / 1000;
    const cpu = cpuMsSince(c0);
    const e1 = await emu.cpuMs();
    return {
      rate: Math.round(MESSAGES / s),
      cpuUs: Math.round((cpu * 1000) / MESSAGES),
      emuCpuUs: Math.round(((e1 - e0) * 1000) / MESSAGES),
      latencyMs: round(lat.reduce((a, b) => a + b, 0) / lat.length, 2),
    };
  };
  const clientRun = (n: number) => async (lat: number[]) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: WINDOW }, async () => {
        while (next++ < n) {
          const t = performance.now();
          // SIGNAL=1: a signal per call, as the nodes pass one (to abort on close)
          await (process.env.SIGNAL
            ? client.send.sendSms(SEND_PARAMS, { signal: new AbortController().signal })
            : client.send.sendSms(SEND_PARAMS));
          lat.push(performance.now() - t);
        }
      }),
    );
  };
  const flowRun = (n: number) => (lat: number[]) =>
    new Promise<void>((resolve) => {
      const sendNode = rt.node('send');
      const out = rt.node('out');
      let started = 0;
      let ok = 0;
      const go = (): void => {
        const i = started++;
        const msg: NodeMessage & { t0: number } = { payload: 'Benchmark message', topic: `b ${i}`, t0: 0 };
        msg.t0 = performance.now();
        sendNode.receive(msg);
      };
      const onOut = (m: NodeMessage): void => {
        lat.push(performance.now() - (m as { t0: number }).t0);
        if (++ok === n) {
          out.removeListener('input', onOut);
          resolve();
        } else if (started < n) go();
      };
      out.on('input', onOut);
      while (started < Math.min(WINDOW, n)) go();
    });

  if (ONLY !== 'flow') await clientRun(2000)([]);
  if (ONLY !== 'client') await flowRun(2000)([]);
  const rows: Record<string, Figures[]> = { client: [], flow: [] };
  for (let r = 0; r < ROUNDS; r++) {
    if (ONLY !== 'flow') rows.client!.push(await measure(clientRun(MESSAGES)));
    if (ONLY !== 'client') rows.flow!.push(await measure(flowRun(MESSAGES)));
    console.log(JSON.stringify({ round: r, client: rows.client!.at(-1), flow: rows.flow!.at(-1) }));
  }
  const med = (fs: Figures[], k: keyof Figures): number => median(fs.map((f) => f[k]));
  for (const [name, fs] of Object.entries(rows)) {
    if (fs.length === 0) continue;
    console.log(
      `${name.padEnd(6)} median rate ${med(fs, 'rate')}/s  cpu ${med(fs, 'cpuUs')} us/msg  emulator ${med(fs, 'emuCpuUs')} us/msg  latency ${med(fs, 'latencyMs')} ms`,
    );
  }
  if (rows.client!.length && rows.flow!.length) {
    const ratios = rows.flow!.map((f, i) => f.rate / rows.client![i]!.rate);
    console.log(
      `flow/client rate ratio per round ${ratios.map((r) => round(r)).join(' ')} median ${round(median(ratios))}`,
    );
  }
  await client.close();
  await rt.stop();
  await emu.stop();
  process.exit(0);
}

void main();
