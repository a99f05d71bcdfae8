/**
 * Profiling aid: our client (SOAP 1.1 SendSMS, 32 in flight) against the fixed-response stub for SECONDS.
 * Run: node --cpu-prof --cpu-prof-dir=/tmp/prof -r tsx/cjs bench/profile-client.ts   (TRANSPORT=soap12 ...)
 * PROFILE=/tmp/x.cpuprofile writes a profile of the measured window only (no start-up, no warm-up), through the
 * inspector, without --cpu-prof. VARIANT=raw profiles the raw undici baseline of bench/client.ts instead;
 * REFERENCE=0 turns the caption reference off, FLOW=1 turns flow control on (as the config node does).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { Pool } from 'undici';
import type { Transport } from '../src/client';
import { catalogue, client } from './pkg';
import { cannedResponses } from './client';
import { SEND_PARAMS, sendSmsWire, startEmulatorChild } from './fixtures';
import { PASSWORD, USER, measureRate, sleep, startChild } from './lib';

const { DEFAULT_NAMESPACES, DEFAULT_PATHS } = catalogue;
const { GatewayClient } = client;
const SECONDS = Number(process.env.SECONDS ?? 6);

async function main(): Promise<void> {
  const emu = await startEmulatorChild();
  const stub = await startChild('stub.ts', { responses: await cannedResponses(emu.url) });
  const c = new GatewayClient({
    baseUrl: stub.url,
    user: USER,
    password: PASSWORD,
    maxConnections: 32,
    transport: (process.env.TRANSPORT ?? 'soap11') as Transport,
    gatewayNamespace: DEFAULT_NAMESPACES.gateway,
    ...(process.env.REFERENCE === '0' ? { reference: false } : {}),
    ...(process.env.FLOW === '1' ? { flowControl: { maxConcurrent: 32, maxQueue: 1000 } } : {}),
  });
  const pool = new Pool(stub.url, { connections: 32 });
  const envelope = sendSmsWire();
  const raw = async (): Promise<void> => {
    const res = await pool.request({
      path: DEFAULT_PATHS.send,
      method: 'POST',
      headers: envelope.headers,
      body: envelope.body!,
    });
    await res.body.arrayBuffer();
  };
  const op = process.env.VARIANT === 'raw' ? raw : () => c.send.sendSms(SEND_PARAMS);
  // JIT warm-up outside the profiled window.
  await measureRate(op, { seconds: 2, concurrency: 32 });
  const session = process.env.PROFILE ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await sleep(50);
    await session.post('Profiler.start');
  }
  console.log(`window: ${SECONDS} s from now (pid ${process.pid})`); // perf record -p can attach here
  const m = await measureRate(op, { seconds: SECONDS, concurrency: 32, server: stub, warmupMs: 0 });
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(process.env.PROFILE!, JSON.stringify(profile));
    session.disconnect();
  }
  console.log(m);
  await Promise.all([c.close(), pool.close()]);
  await Promise.all([stub.stop(), emu.stop()]);
}

void main();
