/**
 * Benchmark 6, polling cost: a deployed flow with the three polling triggers (inbound, DLR, HLR results) on an
 * interval, idle (nothing to fetch): CPU time of the Node-RED process and requests the emulator (own process)
 * saw, against the same runtime with the config node only (the baseline) over the same time.
 * Default: 1 s interval for 15 s (CPU per poll is what scales: at 10 s for 10 minutes there are 60 polls per
 * trigger). The full version, once: npm run bench:polling-full (writes bench/polling-10min.json, which the
 * runner adds to the report).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { emit, PASSWORD, ROOT, printTable, round, sleep, startChild, USER, cpuMsSince } from './lib';
import { pollers, startRuntime } from './embedded';

const INTERVAL = Number(process.env.POLL_INTERVAL ?? 1);
const SECONDS = Number(process.env.POLL_SECONDS ?? 15);

async function main(): Promise<void> {
  const emu = await startChild('emulator.ts', { user: USER, password: PASSWORD, console: false });
  const rt = await startRuntime();
  const total = async (): Promise<number> =>
    Object.values(await emu.ask<Record<string, number>>({ cmd: 'requests' })).reduce((a, b) => a + b, 0);
  const rows = [];
  try {
    for (const [name, nodes] of [
      ['config node only (baseline)', []],
      ['3 polling triggers', pollers(INTERVAL)],
    ] as const) {
      await rt.deploy(emu.url, [...nodes]);
      await sleep(2000); // start-up work and the first poll right after deploy settle
      (globalThis as { gc?: () => void }).gc?.();
      const r0 = await total();
      const c0 = process.cpuUsage();
      await sleep(SECONDS * 1000);
      const cpu = cpuMsSince(c0);
      const requests = (await total()) - r0;
      rows.push({ flow: name, seconds: SECONDS, 'CPU ms': round(cpu, 1), requests });
    }
  } finally {
    await rt.stop();
    await emu.stop();
  }
  const [base, polls] = rows as [(typeof rows)[0], (typeof rows)[0]];
  const intervals = SECONDS / INTERVAL;
  const extraCpu = polls['CPU ms'] - base['CPU ms'];
  const perPoll = extraCpu / Math.max(1, polls.requests);
  const result = {
    intervalS: INTERVAL,
    seconds: SECONDS,
    rows,
    requestsPerTriggerPerInterval: round(polls.requests / 3 / intervals),
    extraCpuMs: round(extraCpu, 1),
    cpuMsPerPoll: round(perPoll),
    cpuShareOfOneCore: round(extraCpu / (SECONDS * 1000), 4),
    // Scaled to the case: three triggers every 10 s for 10 minutes = 180 polls.
    scaledTo10sFor10min: { polls: 180, cpuMs: round(perPoll * 180, 1) },
  };
  printTable(`Polling: 3 triggers every ${INTERVAL} s, idle for ${SECONDS} s, vs config node only`, rows);
  console.log(JSON.stringify(result));
  const out = {
    ...result,
    targets: { '<= 1 request per trigger per interval': result.requestsPerTriggerPerInterval <= 1.0001 },
  };
  const save = process.argv.indexOf('--save');
  if (save > 0) writeFileSync(join(ROOT, process.argv[save + 1]!), JSON.stringify(out, null, 2) + '\n');
  emit('polling', out);
  process.exit(0);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
