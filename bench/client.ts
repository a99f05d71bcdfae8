/**
 * Benchmark 1, client throughput: SendSMS with 32 calls in flight, on loopback, against
 *   - a fixed-response stub server (own process; answers what the emulator answered, nothing parsed): the
 *     client's own overhead, as the baseline measured it;
 *   - the emulator (own process): the whole round trip.
 * Variants: raw undici POST of a prebuilt envelope, body read but not parsed (the limit); Node's global fetch
 * of the same envelope; our GatewayClient over SOAP 1.1, SOAP 1.2, HTTP GET, HTTP POST and the older service's
 * SendText (RPC); the `soap` package and `strong-soap` built from the emulator's WSDL.
 * Rates are medians of interleaved rounds; client CPU per call (process.cpuUsage) does not depend on the
 * server's speed. Run alone: npx tsx bench/client.ts   (SECONDS, ROUNDS, CONCURRENCY, TARGETS=stub,emulator)
 */
import { promisify } from 'node:util';
import { createClientAsync } from 'soap';
import { soap as strongSoap } from 'strong-soap';
import { Pool, request } from 'undici';
import type { Transport } from '../src/client';
import { catalogue, client, text, validate } from './pkg';
import {
  LEGACY_PARAMS,
  RECIPIENT,
  SEND_PARAMS,
  TEXT,
  sendSmsWire,
  sendTextWire,
  startEmulatorChild,
} from './fixtures';
import {
  PASSWORD,
  USER,
  emit,
  measureRate,
  median,
  printTable,
  round,
  startChild,
  type ChildServer,
  type Measured,
} from './lib';

const SECONDS = Number(process.env.SECONDS ?? 1.5);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 32);
const TARGETS = (process.env.TARGETS ?? 'stub,emulator').split(',');
const { DEFAULT_NAMESPACES, DEFAULT_PATHS } = catalogue;
const SEND_PATH = DEFAULT_PATHS.send;
const { GatewayClient } = client;

const kindOf = (headers: Record<string, string>): string => {
  const ct = headers['content-type'] ?? headers['Content-Type'] ?? '';
  return ct.startsWith('application/soap+xml') ? 'soap12' : ct.startsWith('text/xml') ? 'soap11' : 'form';
};

/** What the emulator answers to each variant's request: the stub's fixed responses. */
export async function cannedResponses(
  emulatorUrl: string,
): Promise<Record<string, { type: string; body: string }>> {
  const out: Record<string, { type: string; body: string }> = {};
  const wires = [
    ...(['soap11', 'soap12', 'get', 'post'] as const).map((t) => sendSmsWire(t)),
    sendTextWire(),
  ];
  for (const w of wires) {
    const res = await request(emulatorUrl + w.path, {
      method: w.method,
      headers: w.headers,
      body: w.body ?? null,
    });
    const body = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`canned ${w.method} ${w.path}: ${res.statusCode} ${body}`);
    out[`${w.method} ${w.path.split('?')[0]} ${kindOf(w.headers)}`] = {
      type: String(res.headers['content-type']),
      body,
    };
  }
  return out;
}

type Variant = [name: string, op: () => Promise<unknown>];

const VARIANT_NO_REFERENCE = 'ours soap11, reference off';
const VARIANT_FLOW = 'ours soap11 + flow control';

/**
 * CPU µs of validateParams for the benchmark's SendSMS parameters with the client's default limits (recipients,
 * text segments): the validation every typed call runs.
 */
function validationUs(): number {
  const op = catalogue.findOperation('send', 'SendSMS')!;
  const params = { User: USER, Password: PASSWORD, ...SEND_PARAMS };
  const limits = { maxRecipients: 1000, segments: text.DEFAULT_SEGMENT_LIMITS };
  const n = 200_000;
  const runs: number[] = [];
  for (let r = 0; r < 5; r++) {
    const c0 = process.cpuUsage();
    for (let i = 0; i < n; i++) validate.validateParams(op, params, limits);
    const c = process.cpuUsage(c0);
    runs.push((c.user + c.system) / n);
  }
  return round(median(runs), 2);
}

async function variantsFor(
  url: string,
  wsdlBase: string,
  closers: (() => Promise<void>)[],
  defaults: boolean,
): Promise<Variant[]> {
  const ns = DEFAULT_NAMESPACES.gateway;
  const variants: Variant[] = [];
  const envelope = sendSmsWire();
  const pool = new Pool(url, { connections: CONCURRENCY });
  closers.push(() => pool.close());
  const raw = async (): Promise<string> => {
    const res = await pool.request({
      path: SEND_PATH,
      method: 'POST',
      headers: envelope.headers,
      body: envelope.body!,
    });
    const buf = Buffer.from(await res.body.arrayBuffer());
    if (res.statusCode !== 200) throw new Error(`raw: ${res.statusCode}`);
    return buf.toString('latin1', 0, 0);
  };
  variants.push(['raw undici (limit)', raw]);
  variants.push([
    'global fetch',
    async () => {
      const res = await fetch(url + SEND_PATH, {
        method: 'POST',
        headers: envelope.headers,
        body: envelope.body!,
      });
      await res.arrayBuffer();
    },
  ]);

  for (const transport of ['soap11', 'soap12', 'get', 'post'] as const satisfies readonly Transport[]) {
    const c = new GatewayClient({
      baseUrl: url,
      user: USER,
      password: PASSWORD,
      transport,
      maxConnections: CONCURRENCY,
      gatewayNamespace: ns,
      legacyNamespace: DEFAULT_NAMESPACES.legacy,
    });
    closers.push(() => c.close());
    const probe = await c.send.sendSms(SEND_PARAMS);
    if (!(probe.JobId > 0)) throw new Error(`client ${transport} probe: ${JSON.stringify(probe)}`);
    variants.push([`ours ${transport}`, () => c.send.sendSms(SEND_PARAMS)]);
  }
  if (defaults) {
    // The cost of each default of the typed send, one at a time (validation is measured apart: it cannot be off).
    const variant = async (name: string, extra: Record<string, unknown>): Promise<void> => {
      const c = new GatewayClient({
        baseUrl: url,
        user: USER,
        password: PASSWORD,
        maxConnections: CONCURRENCY,
        gatewayNamespace: ns,
        ...extra,
      });
      closers.push(() => c.close());
      if (!((await c.send.sendSms(SEND_PARAMS)).JobId > 0)) throw new Error(`${name} probe failed`);
      variants.push([name, () => c.send.sendSms(SEND_PARAMS)]);
    };
    await variant(VARIANT_NO_REFERENCE, { reference: false });
    // What the config node sets up: in flight = connections, a queue of 1000.
    await variant(VARIANT_FLOW, { flowControl: { maxConcurrent: CONCURRENCY, maxQueue: 1000 } });
  }
  const legacy = new GatewayClient({
    baseUrl: url,
    user: USER,
    password: PASSWORD,
    maxConnections: CONCURRENCY,
    legacyNamespace: DEFAULT_NAMESPACES.legacy,
  });
  closers.push(() => legacy.close());
  if (!(await legacy.legacy.sendText(LEGACY_PARAMS)).ok) throw new Error('legacy probe failed');
  variants.push(['ours legacy SendText', () => legacy.legacy.sendText(LEGACY_PARAMS)]);

  const soapArgs = {
    User: USER,
    Password: PASSWORD,
    Caption: 'bench',
    Sender: 'Bench',
    Recipient: { string: [RECIPIENT] },
    SMSText: TEXT,
    SmsTyp: 'Standard',
    SendDate: '0001-01-01T00:00:00',
  };
  const soapClient = await createClientAsync(`${wsdlBase}${SEND_PATH}?WSDL`);
  soapClient.setEndpoint(url + SEND_PATH);
  type SoapSend = (a: unknown) => Promise<[{ SendSMSResult: { Value: { Status: string } } }]>;
  const soapSend = (soapClient as unknown as Record<string, SoapSend>).SendSMSAsync!.bind(soapClient);
  const [first] = await soapSend(soapArgs);
  if (first.SendSMSResult.Value.Status !== 'Ok') throw new Error(`soap probe: ${JSON.stringify(first)}`);
  variants.push(['soap package', () => soapSend(soapArgs)]);

  type StrongClient = { setEndpoint(u: string): void } & Record<
    string,
    (a: unknown, cb: (err: unknown, result: { SendSMSResult: { Value: { Status: string } } }) => void) => void
  >;
  const createStrong = promisify(
    (u: string, o: object, cb: (err: unknown, c: StrongClient) => void): void =>
      void strongSoap.createClient(u, o, cb as never),
  );
  const strong = await createStrong(`${wsdlBase}${SEND_PATH}?WSDL`, {});
  strong.setEndpoint(url + SEND_PATH);
  const strongSend = (a: unknown): Promise<{ SendSMSResult: { Value: { Status: string } } }> =>
    new Promise((resolve, reject) =>
      strong.SendSMS!(a, (err, result) => (err ? reject(err) : resolve(result))),
    );
  const sFirst = await strongSend(soapArgs);
  if (sFirst.SendSMSResult.Value.Status !== 'Ok')
    throw new Error(`strong-soap probe: ${JSON.stringify(sFirst)}`);
  variants.push(['strong-soap', () => strongSend(soapArgs)]);
  return variants;
}

interface TargetResult {
  target: string;
  rows: {
    variant: string;
    rate: number;
    clientCpuUs: number;
    serverCpuUs: number;
    serverBusy: number;
    vsRaw: number;
    cpuVsOurs: number;
  }[];
}

async function runTarget(target: string, server: ChildServer, wsdlBase: string): Promise<TargetResult> {
  const closers: (() => Promise<void>)[] = [];
  try {
    const variants = await variantsFor(server.url, wsdlBase, closers, target === 'stub');
    const runs = new Map<string, Measured[]>(variants.map(([n]) => [n, []]));
    for (const [, op] of variants) await measureRate(op, { seconds: 0.7, concurrency: CONCURRENCY }); // JIT warm-up
    for (let r = 0; r < ROUNDS; r++) {
      // Interleaved rounds, each starting one variant later: load from other processes on the shared machine
      // hits every variant alike, and no variant always pays for the garbage its predecessor left.
      for (let i = 0; i < variants.length; i++) {
        const [name, op] = variants[(i + r) % variants.length]!;
        runs.get(name)!.push(await measureRate(op, { seconds: SECONDS, concurrency: CONCURRENCY, server }));
      }
    }
    const med = (name: string, k: keyof Measured): number => median(runs.get(name)!.map((m) => m[k]));
    const rawRate = med('raw undici (limit)', 'rate');
    const oursCpu = med('ours soap11', 'cpuUs');
    return {
      target,
      rows: variants.map(([name]) => ({
        variant: name,
        rate: Math.round(med(name, 'rate')),
        clientCpuUs: Math.round(med(name, 'cpuUs')),
        serverCpuUs: Math.round(med(name, 'serverCpuUs')),
        serverBusy: round(med(name, 'serverBusy')),
        vsRaw: round(med(name, 'rate') / rawRate),
        cpuVsOurs: round(med(name, 'cpuUs') / oursCpu),
      })),
    };
  } finally {
    await Promise.all(closers.map((c) => c()));
  }
}

async function main(): Promise<void> {
  const emulator = await startEmulatorChild({ requestLogSize: 1 });
  const stub = await startChild('stub.ts', { responses: await cannedResponses(emulator.url) });
  const results: TargetResult[] = [];
  try {
    if (TARGETS.includes('stub')) results.push(await runTarget('stub', stub, emulator.url));
    if (TARGETS.includes('emulator')) results.push(await runTarget('emulator', emulator, emulator.url));
  } finally {
    await Promise.all([stub.stop(), emulator.stop()]);
  }
  const ratios: Record<string, number> = {};
  for (const t of results) {
    const get = (v: string) => t.rows.find((r) => r.variant === v)!;
    const ours = get('ours soap11');
    printTable(
      `Client throughput vs ${t.target}: SendSMS, ${CONCURRENCY} in flight, median of ${ROUNDS} rounds of ${SECONDS} s`,
      t.rows.map((r) => ({
        variant: r.variant,
        'calls/s': r.rate,
        'x raw': r.vsRaw,
        'client CPU µs/call': r.clientCpuUs,
        'x ours CPU': r.cpuVsOurs,
        'server CPU µs/call': r.serverCpuUs,
        'server busy': r.serverBusy,
      })),
    );
    ratios[`${t.target}.oursVsRaw`] = round(ours.rate / get('raw undici (limit)').rate);
    ratios[`${t.target}.oursVsSoap`] = round(ours.rate / get('soap package').rate);
    ratios[`${t.target}.oursVsStrongSoap`] = round(ours.rate / get('strong-soap').rate);
    ratios[`${t.target}.soapCpuVsOurs`] = round(get('soap package').clientCpuUs / ours.clientCpuUs);
    ratios[`${t.target}.rawCpuVsOurs`] = round(get('raw undici (limit)').clientCpuUs / ours.clientCpuUs);
  }
  // The cost of each default on the stub: client CPU µs per call it adds, and what turning it off gives.
  const onStub = results.find((t) => t.target === 'stub');
  let defaults: Record<string, number> | undefined;
  if (onStub) {
    const get = (v: string) => onStub.rows.find((r) => r.variant === v)!;
    const ours = get('ours soap11');
    const raw = get('raw undici (limit)');
    const noRef = get(VARIANT_NO_REFERENCE);
    const flow = get(VARIANT_FLOW);
    defaults = {
      referenceCpuUs: ours.clientCpuUs - noRef.clientCpuUs,
      referenceOffVsRaw: round(noRef.rate / raw.rate),
      flowControlCpuUs: flow.clientCpuUs - ours.clientCpuUs,
      withFlowControlVsRaw: round(flow.rate / raw.rate),
      validationCpuUs: validationUs(),
      oursCpuUs: ours.clientCpuUs,
      rawCpuUs: raw.clientCpuUs,
    };
    console.log(`cost of the defaults (client CPU µs per call): ${JSON.stringify(defaults)}`);
  }
  console.log(`\nratios: ${JSON.stringify(ratios)}`);
  emit('client', {
    concurrency: CONCURRENCY,
    seconds: SECONDS,
    rounds: ROUNDS,
    targets: results,
    ratios,
    defaults,
  });
}

if (require.main === module) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
