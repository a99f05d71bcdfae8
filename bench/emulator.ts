/**
 * Benchmark 5, emulator: SOAP 1.1 SendSMS requests per second with autocannon (32 connections) against the
 * emulator vs a bare node:http server answering the emulator's own response body (the limit). Both servers run
 * in their own process; rounds are interleaved and medians reported, with the server's CPU per request.
 * Run: npx tsx bench/emulator.ts   (SECONDS=3 ROUNDS=3)
 */
import autocannon from 'autocannon';
import { request } from 'undici';
import { sendSmsWire, startEmulatorChild } from './fixtures';
import { emit, median, printTable, round, startChild, type ChildServer } from './lib';

const SECONDS = Number(process.env.SECONDS ?? 3);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const CONNECTIONS = 32;

const wire = sendSmsWire();

async function load(
  server: ChildServer,
  seconds: number,
): Promise<{ rps: number; cpuUs: number; errors: number }> {
  const c0 = await server.cpuMs();
  const r = await autocannon({
    url: server.url + wire.path,
    method: 'POST',
    headers: wire.headers,
    body: wire.body!,
    connections: CONNECTIONS,
    duration: seconds,
  });
  const c1 = await server.cpuMs();
  const ok = r.requests.total - r.non2xx - r.errors;
  return {
    rps: ok / seconds,
    cpuUs: ((c1 - c0) * 1000) / Math.max(1, r.requests.total),
    errors: r.non2xx + r.errors,
  };
}

async function main(): Promise<void> {
  const emu = await startEmulatorChild();
  const probe = await request(emu.url + wire.path, {
    method: 'POST',
    headers: wire.headers,
    body: wire.body!,
  });
  const body = await probe.body.text();
  if (probe.statusCode !== 200) throw new Error(`emulator probe ${probe.statusCode}: ${body}`);
  const bare = await startChild('bare.ts', { body, type: String(probe.headers['content-type']) });
  const runs: Record<string, { rps: number; cpuUs: number; errors: number }[]> = {
    emulator: [],
    'bare node:http': [],
  };
  try {
    await load(emu, 1);
    await load(bare, 1);
    for (let r = 0; r < ROUNDS; r++) {
      runs['bare node:http']!.push(await load(bare, SECONDS));
      runs.emulator!.push(await load(emu, SECONDS));
    }
  } finally {
    await Promise.all([emu.stop(), bare.stop()]);
  }
  const rows = Object.entries(runs).map(([server, rs]) => ({
    server,
    'req/s': Math.round(median(rs.map((x) => x.rps))),
    'server CPU µs/req': Math.round(median(rs.map((x) => x.cpuUs))),
    errors: rs.reduce((a, x) => a + x.errors, 0),
  }));
  const ratio = round(rows[0]!['req/s'] / rows[1]!['req/s']);
  const cpuRatio = round(rows[0]!['server CPU µs/req'] / rows[1]!['server CPU µs/req']);
  printTable(
    `Emulator vs bare node:http, SOAP 1.1 SendSMS, autocannon ${CONNECTIONS} connections, median of ${ROUNDS} x ${SECONDS} s`,
    rows,
  );
  console.log(`emulator / bare: ${ratio}x req/s (target >= 0.6x); CPU per request ${cpuRatio}x`);
  emit('emulator', {
    connections: CONNECTIONS,
    seconds: SECONDS,
    rounds: ROUNDS,
    rows,
    ratios: { emulatorVsBare: ratio, cpuPerRequestVsBare: cpuRatio },
    targets: { 'emulator >= 0.6x bare': ratio >= 0.6 },
  });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
