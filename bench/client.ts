/**
 * Client throughput: sends per second with 32 calls in flight against the emulator on loopback (run in a child
 * process so that server and client do not share an event loop).
 *   raw    undici Pool POST of a prebuilt SOAP 1.1 SendSMS envelope, body read but not parsed (the limit)
 *   client GatewayClient.send.sendSms (validation, envelope building, streaming decode, status mapping)
 *   soap   the `soap` npm package's client built from the emulator's WSDL
 * plus the client over SOAP 1.2, HTTP GET, HTTP POST and the older service's SendText.
 * Run: npx tsx bench/client.ts   (SECONDS=3 CONCURRENCY=32 to change the defaults)
 * Prints a table and merges `client` into bench/results.json.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createClientAsync, type Client as SoapClient } from 'soap';
import { Pool } from 'undici';
import { GatewayClient, type Transport } from '../src/client';

const ROOT = join(__dirname, '..');
const SECONDS = Number(process.env.SECONDS ?? 3);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 32);
const WARMUP_MS = 300;
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const USER = 'bench';
const PASSWORD = 'bench-password';

async function startEmulatorChild(): Promise<{ url: string; child: ChildProcess }> {
  const code = `require('./src/emulator').startEmulator({ user: '${USER}', password: '${PASSWORD}', balance: 1e12,
    duplicateWindowMs: 0, requestLogSize: 1 }).then((e) => console.log('URL ' + e.url));`;
  const child = spawn(process.execPath, ['-r', 'tsx/cjs', '-e', code], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /URL (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (c) => reject(new Error(`emulator exited with ${c}`)));
  });
  return { url, child };
}

/** Runs `op` with `CONCURRENCY` workers for `seconds` after a short ramp-up; returns completed calls per second. */
interface Measured {
  /** Completed calls per second. */
  rate: number;
  /** CPU time of this (client) process per call, µs: what the client costs, whatever the server's speed. */
  cpuUs: number;
}

async function measure(op: () => Promise<unknown>, seconds: number): Promise<Measured> {
  let counting = false;
  let done = 0;
  let stop = false;
  const worker = async (): Promise<void> => {
    while (!stop) {
      await op();
      if (counting) done++;
    }
  };
  const workers = Array.from({ length: CONCURRENCY }, worker);
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  counting = true;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  counting = false;
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const calls = done;
  stop = true;
  await Promise.all(workers);
  return { rate: calls / elapsed, cpuUs: (cpu.user + cpu.system) / calls };
}

const sendParams = (i: number) => ({
  Caption: `bench ${i}`,
  Sender: 'Bench',
  Recipient: ['+4917012345678'],
  SMSText: 'Benchmark message, nothing to see here.',
  SmsTyp: 'Standard' as const,
  SendDate: null,
});

async function main(): Promise<void> {
  const { url, child } = await startEmulatorChild();
  const results: Record<string, number> = {};
  const cpu: Record<string, number> = {};
  const clients: GatewayClient[] = [];
  const client = (transport: Transport): GatewayClient => {
    const c = new GatewayClient({
      baseUrl: url,
      user: USER,
      password: PASSWORD,
      transport,
      maxConnections: CONCURRENCY,
    });
    clients.push(c);
    return c;
  };
  const variants: [string, () => Promise<unknown>][] = [];
  const closers: (() => Promise<void>)[] = [];
  try {
    // --- raw: the prebuilt envelope our client would send, posted and read without parsing.
    const ns = (await (await fetch(`${url}/gateway/Send.asmx?WSDL`)).text()).match(
      /targetNamespace="([^"]+)"/,
    )![1]!;
    const envelope =
      '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" ' +
      'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body>' +
      `<SendSMS xmlns="${ns}"><User>${USER}</User><Password>${PASSWORD}</Password><Caption>bench</Caption>` +
      '<Sender>Bench</Sender><Recipient><string>+4917012345678</string></Recipient>' +
      '<SMSText>Benchmark message, nothing to see here.</SMSText><SmsTyp>Standard</SmsTyp>' +
      '<SendDate>0001-01-01T00:00:00</SendDate></SendSMS></soap:Body></soap:Envelope>';
    const pool = new Pool(url, { connections: CONCURRENCY });
    closers.push(() => pool.close());
    const rawHeaders = { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${ns}SendSMS"` };
    const probe = await pool.request({
      path: '/gateway/Send.asmx',
      method: 'POST',
      headers: rawHeaders,
      body: envelope,
    });
    const probeText = await probe.body.text();
    if (probe.statusCode !== 200 || !probeText.includes('<Status>Ok</Status>'))
      throw new Error(`raw probe: ${probeText}`);
    variants.push([
      'raw_soap11',
      async () => {
        const res = await pool.request({
          path: '/gateway/Send.asmx',
          method: 'POST',
          headers: rawHeaders,
          body: envelope,
        });
        await res.body.arrayBuffer();
      },
    ]);

    // --- our client, every transport
    let i = 0;
    for (const transport of ['soap11', 'soap12', 'get', 'post'] as const) {
      const c = client(transport);
      const probeJob = await c.send.sendSms(sendParams(0));
      if (!(probeJob.JobId > 0)) throw new Error('client probe failed');
      variants.push([`client_${transport}`, () => c.send.sendSms(sendParams(i++))]);
    }
    const legacy = client('soap11');
    const legacyParams = {
      Caption: 'bench',
      Sender: 'Bench',
      Recipient: '+4917012345678',
      SMSText: 'Benchmark',
      SmsTyp: '1',
      SendDate: '',
    };
    if (!(await legacy.legacy.sendText(legacyParams)).ok) throw new Error('legacy probe failed');
    variants.push(['client_legacy_sendText_soap11', () => legacy.legacy.sendText(legacyParams)]);

    // --- node-soap through the emulator's WSDL
    const soapClient: SoapClient = await createClientAsync(`${url}/gateway/Send.asmx?WSDL`);
    const soapArgs = {
      User: USER,
      Password: PASSWORD,
      Caption: 'bench',
      Sender: 'Bench',
      Recipient: { string: ['+4917012345678'] },
      SMSText: 'Benchmark message, nothing to see here.',
      SmsTyp: 'Standard',
      SendDate: '0001-01-01T00:00:00',
    };
    type SoapSend = (a: unknown) => Promise<[{ SendSMSResult: { Value: { Status: string } } }]>;
    const sendSms = (soapClient as unknown as Record<string, SoapSend>).SendSMSAsync!.bind(soapClient);
    const [first] = await sendSms(soapArgs);
    if (first.SendSMSResult.Value.Status !== 'Ok') throw new Error(`soap probe: ${JSON.stringify(first)}`);
    variants.push(['soap_soap11', () => sendSms(soapArgs)]);

    // Warm every path on both sides (JIT), then measure in interleaved rounds and keep each variant's best.
    for (const [, op] of variants) await measure(op, 1);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, op] of variants) {
        const m = await measure(op, SECONDS);
        results[name] = Math.max(results[name] ?? 0, m.rate);
        cpu[name] = Math.min(cpu[name] ?? Infinity, m.cpuUs);
      }
    }
  } finally {
    await Promise.all([...clients.map((c) => c.close()), ...closers.map((c) => c())]);
    child.kill();
  }

  const ratioRaw = results.client_soap11! / results.raw_soap11!;
  const ratioSoap = results.client_soap11! / results.soap_soap11!;
  const cpuRatioSoap = cpu.soap_soap11! / cpu.client_soap11!;
  const cpuRatioRaw = cpu.raw_soap11! / cpu.client_soap11!;
  console.log(
    `SendSMS, ${CONCURRENCY} in flight, best of ${ROUNDS} rounds of ${SECONDS}s after warm-up, emulator on loopback (child process)\n`,
  );
  const w = Math.max(...Object.keys(results).map((k) => k.length), 30);
  console.log(`${'variant'.padEnd(w)}  ${'calls/s'.padStart(8)}  ${'client CPU µs/call'.padStart(18)}`);
  for (const k of Object.keys(results)) {
    console.log(`${k.padEnd(w)}  ${results[k]!.toFixed(0).padStart(8)}  ${cpu[k]!.toFixed(0).padStart(18)}`);
  }
  console.log(`\nclient_soap11 / raw_soap11 throughput   ${ratioRaw.toFixed(2)}x (target ≥ 0.7x)`);
  console.log(`client_soap11 / soap_soap11 throughput  ${ratioSoap.toFixed(2)}x (target ≥ 5x)`);
  console.log(`CPU per call: soap / client             ${cpuRatioSoap.toFixed(2)}x`);
  console.log(`CPU per call: raw / client              ${cpuRatioRaw.toFixed(2)}x`);

  const file = join(ROOT, 'bench', 'results.json');
  const all = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  all.client = {
    unit: 'calls/s',
    concurrency: CONCURRENCY,
    seconds: SECONDS,
    rounds: ROUNDS,
    node: process.version,
    date: new Date().toISOString(),
    results: Object.fromEntries(Object.entries(results).map(([k, v]) => [k, Math.round(v)])),
    clientCpuUsPerCall: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, Math.round(v)])),
    ratios: {
      clientVsRaw: Number(ratioRaw.toFixed(3)),
      clientVsSoap: Number(ratioSoap.toFixed(3)),
      soapCpuVsClientCpu: Number(cpuRatioSoap.toFixed(3)),
      rawCpuVsClientCpu: Number(cpuRatioRaw.toFixed(3)),
    },
    targets: { clientVsRaw: 0.7, clientVsSoap: 5 },
  };
  writeFileSync(file, JSON.stringify(all, null, 2) + '\n');
  console.log(`\nwrote ${file}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
