/**
 * Benchmark 10, one 5,000-record QueryReceivedDLR page (~2.2 MB) end to end: request out, answer in over loopback,
 * decoded into records. The fixed-response stub (own process) serves the page and the Information WSDL.
 *   bare transport   undici Pool.request, body read to the end, nothing parsed (the limit);
 *   transport+decode undici's body chunks fed to our streaming decoder (ours without the client around it);
 *   ours             GatewayClient.information.queryReceivedDlr (what the smsgw-dlr trigger calls);
 *   soap package     QueryReceivedDLRAsync of a `soap` client built from the WSDL.
 * One call at a time, rounds interleaved; wall and CPU time per call, medians, and the chunks undici handed over.
 * Needs dist/. Run: node --expose-gc -r tsx/cjs bench/dlr-page.ts   (ROUNDS=15, ONLY=ours to profile one variant)
 */
import { performance } from 'node:perf_hooks';
import { createClientAsync } from 'soap';
import { Pool, request } from 'undici';
import { catalogue, client, decode } from './pkg';
import { dlrResponse, startEmulatorChild } from './fixtures';
import { PASSWORD, USER, cpuMsSince, emit, median, printTable, round, startChild } from './lib';

const { DEFAULT_NAMESPACES, DEFAULT_PATHS, findOperation } = catalogue;
const NS = DEFAULT_NAMESPACES.gateway;
const PATH = DEFAULT_PATHS.information;
const RECORDS = 5000;
const ROUNDS = Number(process.env.ROUNDS ?? 15);
const ONLY = process.env.ONLY?.split(',');

interface Call {
  ms: number;
  cpuMs: number;
}

async function main(): Promise<void> {
  const page = dlrResponse(RECORDS);
  const emu = await startEmulatorChild();
  const wsdlRes = await request(`${emu.url}${PATH}?WSDL`);
  const wsdl = await wsdlRes.body.text();
  await emu.stop();
  const stub = await startChild('stub.ts', {
    responses: {
      [`POST ${PATH} soap11`]: { type: 'text/xml; charset=utf-8', body: page },
      [`GET ${PATH} form`]: { type: 'text/xml; charset=utf-8', body: wsdl },
    },
  });
  const op = findOperation('information', 'QueryReceivedDLR')!;
  const start = new Date(Date.UTC(2026, 10, 22));
  const ours = new client.GatewayClient({
    baseUrl: stub.url,
    user: USER,
    password: PASSWORD,
    gatewayNamespace: NS,
  });
  const wire = {
    method: 'POST' as const,
    path: PATH,
    headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${NS}QueryReceivedDLR"` },
    body:
      '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>' +
      `<QueryReceivedDLR xmlns="${NS}"><User>${USER}</User><Password>${PASSWORD}</Password>` +
      `<StartDate>${start.toISOString()}</StartDate><Limit>${RECORDS}</Limit></QueryReceivedDLR></soap:Body></soap:Envelope>`,
  };
  const pool = new Pool(stub.url, { connections: 1 });
  const chunkSizes: number[] = [];
  const soapClient = await createClientAsync(`${stub.url}${PATH}?WSDL`);
  soapClient.setEndpoint(stub.url + PATH);
  type SoapQuery = (a: unknown) => Promise<[{ QueryReceivedDLRResult: { Value: { SMSReport: unknown[] } } }]>;
  const soapQuery = (soapClient as unknown as Record<string, SoapQuery>).QueryReceivedDLRAsync!.bind(
    soapClient,
  );

  const variants: Record<string, () => Promise<number>> = {
    'bare transport': async () => {
      const res = await pool.request(wire);
      const buf = await res.body.arrayBuffer();
      return buf.byteLength > 0 ? RECORDS : 0;
    },
    'transport+decode': async () => {
      const res = await pool.request(wire);
      const d = decode.createResponseDecoder(op, { transport: 'soap11' });
      for await (const chunk of res.body) {
        chunkSizes.push((chunk as Buffer).length);
        d.write(chunk as Buffer);
      }
      return (d.end() as { Value: unknown[] }).Value.length;
    },
    ours: async () => (await ours.information.queryReceivedDlr({ StartDate: start, Limit: RECORDS })).length,
    'soap package': async () => {
      const [r] = await soapQuery({
        User: USER,
        Password: PASSWORD,
        StartDate: start.toISOString(),
        Limit: RECORDS,
      });
      return r.QueryReceivedDLRResult.Value.SMSReport.length;
    },
  };
  const names = Object.keys(variants).filter((n) => !ONLY || ONLY.includes(n));
  for (const n of names) {
    const count = await variants[n]!(); // warm-up and check
    if (count !== RECORDS) throw new Error(`${n}: ${count} records`);
  }
  const runs: Record<string, Call[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + r) % names.length]!;
      // No forced GC between calls: it shrinks the young generation and the next decode runs ~3x slower.
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await variants[name]!();
      runs[name]!.push({ ms: performance.now() - t0, cpuMs: cpuMsSince(c0) });
    }
  }
  await Promise.all([ours.close(), pool.close()]);
  await stub.stop();
  const rows = names.map((name) => ({
    variant: name,
    'best ms': round(Math.min(...runs[name]!.map((c) => c.ms))),
    'median ms': round(median(runs[name]!.map((c) => c.ms))),
    'median CPU ms': round(median(runs[name]!.map((c) => c.cpuMs))),
  }));
  const get = (n: string) => rows.find((r) => r.variant === n);
  const o = get('ours');
  const ratios: Record<string, number> = {};
  if (o && get('soap package')) {
    ratios.speedupVsSoap = round(get('soap package')!['median ms'] / o['median ms']);
    ratios.cpuSoapVsOurs = round(get('soap package')!['median CPU ms'] / o['median CPU ms']);
  }
  if (o && get('bare transport'))
    ratios.oursVsBareTransport = round(o['median ms'] / get('bare transport')!['median ms']);
  if (o && get('transport+decode'))
    ratios.oursVsTransportDecode = round(o['median ms'] / get('transport+decode')!['median ms']);
  const chunks = {
    count: chunkSizes.length ? Math.round(chunkSizes.length / (ROUNDS + 1)) : 0,
    medianBytes: Math.round(median(chunkSizes)),
  };
  printTable(
    `One ${RECORDS}-record QueryReceivedDLR page (${(page.length / 1e6).toFixed(2)} MB) end to end, median of ${ROUNDS}`,
    rows,
  );
  console.log(`ratios ${JSON.stringify(ratios)}; undici chunks per answer ${JSON.stringify(chunks)}`);
  emit('dlr-page', {
    records: RECORDS,
    bytes: Buffer.byteLength(page),
    rounds: ROUNDS,
    rows,
    chunks,
    ratios,
    targets: {
      'ours >= 8x soap package, end to end':
        ratios.speedupVsSoap === undefined ? undefined : ratios.speedupVsSoap >= 8,
    },
  });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
