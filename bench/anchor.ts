/**
 * Benchmark 9, the anchor: what a Node-RED user builds without this package, beside our nodes in the same
 * embedded Node-RED runtime (bench/embedded.ts), all in one process and one run.
 *   send  20,000 msgs, 32 in flight, into
 *         - ours: `smsgw-send-sms` with the config node's defaults (caption reference on, flow control);
 *         - core nodes: template (the SendSMS SOAP 1.1 envelope, Caption and SMSText from the msg) → http request
 *           (POST, keep-alive) → xml → change (msg.payload = the JobId);
 *         - node-red-contrib-soap 0.0.3 (`soap request`; it builds a soap client from the WSDL for every msg, so
 *           it gets SOAP_MESSAGES msgs only);
 *         against the fixed-response stub (bench/servers/stub.ts) and the emulator (each in its own process).
 *   dlr   one 5,000-record QueryReceivedDLR page (2.2 MB) from bench/servers/dlr-pages.ts, from the trigger msg
 *         to the 5,000th record msg:
 *         - ours: `smsgw-dlr` in "poll on input" mode (one msg per report);
 *         - core nodes: template → http request → xml → function (one msg per report, values typed as ours).
 *         The event loop's delay is measured during each (perf_hooks.monitorEventLoopDelay, 1 ms resolution).
 * Figures: msgs/s and CPU µs per msg of the Node-RED process, rounds interleaved, medians.
 * Needs dist/ (npm run build). Run: node --expose-gc -r tsx/cjs bench/anchor.ts   (MESSAGES, ROUNDS, SOAP_MESSAGES)
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { NodeMessage } from 'node-red';
import { request as undiciRequest } from 'undici';
import { catalogue } from './pkg';
import { cannedResponses } from './client';
import { coreDlrFlow, coreSendFlow } from './core-flows';
import { startRuntime, type FlowNode, type Runtime } from './embedded';
import { RECIPIENT, TEXT, sendSmsNode, startEmulatorChild } from './fixtures';
import { PASSWORD, USER, cpuMsSince, emit, median, printTable, round, sleep, startChild } from './lib';
import type { ChildServer } from './lib';

const { DEFAULT_NAMESPACES, DEFAULT_PATHS } = catalogue;
const NS = DEFAULT_NAMESPACES.gateway;
const MESSAGES = Number(process.env.MESSAGES ?? 20_000);
const SOAP_MESSAGES = Number(process.env.SOAP_MESSAGES ?? 400);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const DLR_ROUNDS = Number(process.env.DLR_ROUNDS ?? 5);
const RECORDS = 5000;
const WINDOW = 32;
/** The servers keep idle sockets this long: the core flow's keep-alive agent must not race their closing. */
const KEEP_ALIVE_MS = 120_000;
/** Parts to run (profiling): stub, emulator, dlr. */
const ONLY = (process.env.ONLY ?? 'stub,emulator,dlr').split(',');
/** The DLR flows to run (profiling one): ours, core. */
const DLR_FLOWS = (process.env.DLR_FLOWS ?? 'ours,core').split(',');
const gc = (globalThis as { gc?: () => void }).gc;

/** node-red-contrib-soap 0.0.3: a soap-config with the WSDL's URL and a `soap request` node per operation. */
function contribSoapFlow(wsdlUrl: string, out: string): FlowNode[] {
  return [
    { id: 'csoap-cfg', type: 'soap-config', wsdl: wsdlUrl, auth: 0 },
    { id: 'csoap', type: 'soap request', wsdl: 'csoap-cfg', method: 'SendSMS', wires: [[out]] },
  ];
}

const soapArgs = (i: number): Record<string, unknown> => ({
  User: USER,
  Password: PASSWORD,
  Caption: `bench ${i}`,
  Sender: 'Bench',
  Recipient: { string: [RECIPIENT] },
  SMSText: TEXT,
  SmsTyp: 'Standard',
  SendDate: '0001-01-01T00:00:00',
});

/** Errors of any node of the tab: a benchmark of failures would measure nothing. */
const catchAll: FlowNode[] = [
  { id: 'catch', type: 'catch', uncaught: false, wires: [['caught']] },
  { id: 'caught', type: 'junction' },
];

interface Run {
  seconds: number;
  rate: number;
  cpuUsPerMsg: number;
  serverCpuUsPerMsg: number;
  /** Longest event-loop delay seen (ms) and its 99th percentile. */
  eventLoopMaxMs: number;
  eventLoopP99Ms: number;
}

/**
 * Hands `n` msgs to node `input`, `window` at a time (each msg out of `output` lets the next in) and resolves
 * when `outputs` msgs came out; a msg caught by the Catch node fails the run.
 */
function pump(
  rt: Runtime,
  input: string,
  output: string,
  n: number,
  window: number,
  outputs: number,
  make: (i: number) => NodeMessage,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const inNode = rt.node(input);
    const out = rt.node(output);
    const caught = rt.node('caught');
    let started = 0;
    let seen = 0;
    let last = -1;
    const finish = (err?: Error): void => {
      out.removeListener('input', onOut);
      caught.removeListener('input', onCaught);
      clearInterval(stall);
      if (err) reject(err);
      else resolve();
    };
    const stall = setInterval(() => {
      if (seen !== last) last = seen;
      else finish(new Error(`${input}: stalled after ${seen} of ${outputs} msgs`));
    }, 20_000);
    const onOut = (): void => {
      if (++seen === outputs) return finish();
      if (started < n) inNode.receive(make(started++));
    };
    const onCaught = (m: NodeMessage & { error?: { message?: string } }): void =>
      finish(new Error(`${input}: ${m.error?.message ?? 'error'}`));
    out.on('input', onOut);
    caught.on('input', onCaught);
    while (started < Math.min(window, n)) inNode.receive(make(started++));
  });
}

/**
 * `collect`: a full GC first (the send phases, so one phase's garbage is not the next one's). Not before a DLR
 * page: a forced full GC shrinks the young generation, and the page's decode then ran at a third of its speed
 * (bench/dlr-page.ts), which no flow sees.
 */
async function measure(
  server: ChildServer,
  msgs: number,
  run: () => Promise<void>,
  collect = true,
): Promise<Run> {
  if (collect) gc?.();
  const eld = monitorEventLoopDelay({ resolution: 1 });
  const s0 = await server.cpuMs();
  eld.enable();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await run();
  const s = (performance.now() - t0) / 1000;
  const cpu = cpuMsSince(c0);
  eld.disable();
  const s1 = await server.cpuMs();
  return {
    seconds: round(s, 3),
    rate: Math.round(msgs / s),
    cpuUsPerMsg: round((cpu * 1000) / msgs, 1),
    serverCpuUsPerMsg: round(((s1 - s0) * 1000) / msgs, 1),
    eventLoopMaxMs: round(eld.max / 1e6, 1),
    eventLoopP99Ms: round(eld.percentile(99) / 1e6, 1),
  };
}

type Row = Record<string, string | number>;

const medianRow = (name: string, runs: Run[], extra: Row = {}): Row => ({
  flow: name,
  ...extra,
  'msgs/s': Math.round(median(runs.map((r) => r.rate))),
  'CPU µs/msg': round(median(runs.map((r) => r.cpuUsPerMsg)), 1),
  'server CPU µs/msg': round(median(runs.map((r) => r.serverCpuUsPerMsg)), 1),
  'event loop max ms': round(median(runs.map((r) => r.eventLoopMaxMs)), 1),
  'event loop max ms (worst run)': round(Math.max(...runs.map((r) => r.eventLoopMaxMs)), 1),
});

interface SendTarget {
  target: string;
  messages: number;
  rows: Row[];
  ratios: { rateOursVsCore: number; cpuCoreVsOurs: number; rateOursVsContribSoap?: number };
  contribSoap: string;
}

async function sendTarget(
  rt: Runtime,
  target: string,
  server: ChildServer,
  wsdlUrl: string,
  soapOk: boolean,
): Promise<SendTarget> {
  const nodes: FlowNode[] = [
    sendSmsNode('ours', { wires: [['ours-out']] }),
    { id: 'ours-out', type: 'junction' },
    ...coreSendFlow(server.url, 'core-out'),
    { id: 'core-out', type: 'junction' },
    ...(soapOk ? contribSoapFlow(wsdlUrl, 'csoap-out') : []),
    ...(soapOk ? [{ id: 'csoap-out', type: 'junction' }] : []),
    ...catchAll,
  ];
  await rt.deploy(server.url, nodes, { maxConnections: WINDOW, gatewayNamespace: NS });
  const msg = (i: number): NodeMessage => ({ payload: TEXT, topic: `bench ${i}` });
  const ours = (n: number) => () => pump(rt, 'ours', 'ours-out', n, WINDOW, n, msg);
  const core = (n: number) => () => pump(rt, 'core-tpl', 'core-out', n, WINDOW, n, msg);
  const csoap = (n: number) => () =>
    pump(rt, 'csoap', 'csoap-out', n, WINDOW, n, (i) => ({ payload: soapArgs(i) }));
  // Warm-up (JIT, connections), then interleaved rounds so load from elsewhere hits both alike.
  await ours(2000)();
  await core(2000)();
  const runs: Record<string, Run[]> = { ours: [], core: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? (['core', 'ours'] as const) : (['ours', 'core'] as const);
    for (const k of order)
      runs[k]!.push(await measure(server, MESSAGES, k === 'ours' ? ours(MESSAGES) : core(MESSAGES)));
    console.log(
      `  ${target} round ${r}: ${JSON.stringify({ ours: runs.ours!.at(-1), core: runs.core!.at(-1) })}`,
    );
  }
  let contribSoap = 'not installed';
  const rows = [
    medianRow('ours: smsgw-send-sms', runs.ours!, { msgs: MESSAGES }),
    medianRow('core nodes: template, http request, xml, change', runs.core!, { msgs: MESSAGES }),
  ];
  if (soapOk) {
    try {
      await csoap(20)();
      const soapRun = await measure(server, SOAP_MESSAGES, csoap(SOAP_MESSAGES));
      rows.push(medianRow('node-red-contrib-soap 0.0.3', [soapRun], { msgs: SOAP_MESSAGES }));
      contribSoap = 'ran';
    } catch (e) {
      contribSoap = `failed: ${(e as Error).message}`;
    }
  }
  const o = rows[0]!;
  const c = rows[1]!;
  const ratios: SendTarget['ratios'] = {
    rateOursVsCore: round((o['msgs/s'] as number) / (c['msgs/s'] as number)),
    cpuCoreVsOurs: round((c['CPU µs/msg'] as number) / (o['CPU µs/msg'] as number)),
  };
  if (rows[2]) ratios.rateOursVsContribSoap = round((o['msgs/s'] as number) / (rows[2]['msgs/s'] as number));
  return { target, messages: MESSAGES, rows, ratios, contribSoap };
}

export interface DlrResult {
  records: number;
  bytes: number;
  rows: Row[];
  ratios: {
    speedupVsCore: number;
    cpuCoreVsOurs: number;
    oursEventLoopMaxMs: number;
    coreEventLoopMaxMs: number;
  };
}

async function dlrPage(rt: Runtime, pages: ChildServer): Promise<DlrResult> {
  await rt.deploy(
    pages.url,
    [
      {
        id: 'dlr',
        type: 'smsgw-dlr',
        gateway: 'cfg',
        inputs: 1,
        finalOnly: false,
        lookback: 60,
        wires: [['dlr-out']],
      },
      { id: 'dlr-out', type: 'junction' },
      ...coreDlrFlow(pages.url, 'dcore-out', RECORDS),
      { id: 'dcore-out', type: 'junction' },
      ...catchAll,
    ],
    { gatewayNamespace: NS },
  );
  let bytes = 0;
  const page = (input: string, output: string) => async (): Promise<void> => {
    bytes = await pages.ask<number>({ cmd: 'arm' });
    const since = new Date(Date.now() - 3_600_000).toISOString();
    await pump(rt, input, output, 1, 1, RECORDS, () => ({ payload: since }));
  };
  const settle = (): Promise<void> => sleep(300); // the trigger's follow-up request of a full page
  await page('dlr', 'dlr-out')();
  await settle();
  await page('dcore-tpl', 'dcore-out')();
  const runs: Record<string, Run[]> = { ours: [], core: [] };
  for (let r = 0; r < DLR_ROUNDS; r++) {
    const order = r % 2 ? (['core', 'ours'] as const) : (['ours', 'core'] as const);
    for (const k of order) {
      if (!DLR_FLOWS.includes(k)) continue;
      await settle();
      runs[k]!.push(
        await measure(
          pages,
          RECORDS,
          k === 'ours' ? page('dlr', 'dlr-out') : page('dcore-tpl', 'dcore-out'),
          false,
        ),
      );
    }
  }
  const ms = (rs: Run[]): number => round(median(rs.map((r) => r.seconds * 1000)), 1);
  const cpu = (rs: Run[]): number => round(median(rs.map((r) => (r.cpuUsPerMsg * RECORDS) / 1000)), 1);
  const row = (name: string, rs: Run[]): Row => ({
    flow: name,
    'ms per page': ms(rs),
    'CPU ms per page': cpu(rs),
    'event loop max ms': round(median(rs.map((r) => r.eventLoopMaxMs)), 1),
    'event loop max ms (worst run)': round(Math.max(...rs.map((r) => r.eventLoopMaxMs)), 1),
    'event loop p99 ms': round(median(rs.map((r) => r.eventLoopP99Ms)), 1),
  });
  const rows = [
    row('ours: smsgw-dlr (poll on input)', runs.ours!),
    row('core nodes: template, http request, xml, function', runs.core!),
  ];
  return {
    records: RECORDS,
    bytes,
    rows,
    ratios: {
      speedupVsCore: round(ms(runs.core!) / ms(runs.ours!)),
      cpuCoreVsOurs: round(cpu(runs.core!) / cpu(runs.ours!)),
      oursEventLoopMaxMs: rows[0]!['event loop max ms'] as number,
      coreEventLoopMaxMs: rows[1]!['event loop max ms'] as number,
    },
  };
}

/** The emulator's WSDL with its address pointing at `{{self}}` (the stub fills in its own origin). */
async function wsdlFor(emulatorUrl: string): Promise<string> {
  const res = await undiciRequest(`${emulatorUrl}${DEFAULT_PATHS.send}?WSDL`, {
    headers: { host: 'self.invalid' },
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`WSDL: ${res.statusCode}`);
  return text.replaceAll('http://self.invalid', '{{self}}');
}

async function main(): Promise<void> {
  const emu = await startEmulatorChild({ requestLogSize: 1, keepAliveMs: KEEP_ALIVE_MS });
  const canned = await cannedResponses(emu.url);
  const stub = await startChild('stub.ts', {
    keepAliveMs: KEEP_ALIVE_MS,
    responses: {
      ...canned,
      [`GET ${DEFAULT_PATHS.send} form`]: { type: 'text/xml; charset=utf-8', body: await wsdlFor(emu.url) },
    },
  });
  const pages = await startChild('dlr-pages.ts', { records: RECORDS });
  let soapOk = true;
  try {
    require.resolve('node-red-contrib-soap/package.json');
  } catch {
    soapOk = false;
  }
  const rt = await startRuntime(soapOk ? ['node-red-contrib-soap'] : []);
  const send: SendTarget[] = [];
  let dlr: DlrResult | undefined;
  try {
    if (ONLY.includes('stub'))
      send.push(await sendTarget(rt, 'stub', stub, `${stub.url}${DEFAULT_PATHS.send}?WSDL`, soapOk));
    if (ONLY.includes('emulator'))
      send.push(await sendTarget(rt, 'emulator', emu, `${emu.url}${DEFAULT_PATHS.send}?WSDL`, soapOk));
    if (ONLY.includes('dlr')) dlr = await dlrPage(rt, pages);
  } finally {
    await rt.stop().catch(() => undefined);
    await Promise.all([emu.stop(), stub.stop(), pages.stop()]);
  }
  for (const t of send) {
    printTable(`Anchor, SendSMS vs ${t.target}: ${WINDOW} in flight, median of ${ROUNDS} rounds`, t.rows);
    console.log(`ratios ${JSON.stringify(t.ratios)}  contrib-soap: ${t.contribSoap}`);
  }
  if (dlr) {
    printTable(
      `Anchor, one ${RECORDS}-record QueryReceivedDLR page (${(dlr.bytes / 1e6).toFixed(2)} MB), median of ${DLR_ROUNDS}`,
      dlr.rows,
    );
    console.log(`ratios ${JSON.stringify(dlr.ratios)}`);
  }
  const all = send.map((t) => t.ratios);
  emit('anchor', {
    window: WINDOW,
    rounds: ROUNDS,
    dlrRounds: DLR_ROUNDS,
    soapMessages: SOAP_MESSAGES,
    send,
    dlr,
    targets: {
      'ours >= 3x core-node msgs/s': all.every((r) => r.rateOursVsCore >= 3),
      'ours <= 1/3 core-node CPU per msg': all.every((r) => r.cpuCoreVsOurs >= 3),
      'DLR page >= 5x faster than core nodes': dlr ? dlr.ratios.speedupVsCore >= 5 : undefined,
      'DLR page: no event-loop block over 20 ms (ours)': dlr
        ? dlr.ratios.oursEventLoopMaxMs <= 20
        : undefined,
    },
  });
  process.exit(0);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
