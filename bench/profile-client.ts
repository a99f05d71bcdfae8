/**
 * Profiling aid: our client (SOAP 1.1 SendSMS, 32 in flight) against the fixed-response stub for SECONDS.
 * Run: node --cpu-prof --cpu-prof-dir=/tmp/prof -r tsx/cjs bench/profile-client.ts   (TRANSPORT=soap12 ...)
 */
import type { Transport } from '../src/client';
import { catalogue, client } from './pkg';
import { cannedResponses } from './client';
import { SEND_PARAMS, startEmulatorChild } from './fixtures';
import { PASSWORD, USER, measureRate, startChild } from './lib';

const { DEFAULT_NAMESPACES } = catalogue;
const { GatewayClient } = client;

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
  });
  const p = { ...SEND_PARAMS, SMSText: 'Benchmark message' };
  console.log(
    await measureRate(() => c.send.sendSms(p), {
      seconds: Number(process.env.SECONDS ?? 6),
      concurrency: 32,
      server: stub,
    }),
  );
  await c.close();
  await Promise.all([stub.stop(), emu.stop()]);
}

void main();
