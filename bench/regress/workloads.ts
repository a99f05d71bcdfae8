/**
 * The hot paths the regression check measures, each beside the reference workload it is divided by, in one
 * embedded Node-RED (bench/embedded.ts): the send node with the outbox off and on and the client's SendSMS against
 * the core-node SendSMS flow (template, http request, xml, change), one 5,000-record delivery-report page through
 * the DLR trigger against the core-node DLR flow. The servers (a fixed-response stub, the DLR page source) run in
 * their own processes: only our side is measured.
 *
 * CPU time of this process per msg (or record), in interleaved rounds: load from elsewhere on the machine slows a
 * workload and its reference alike, so their ratio holds where a time or a rate would not.
 */
import type { NodeMessage } from 'node-red';
import { cannedResponses } from '../client';
import { coreDlrFlow, coreSendFlow } from '../core-flows';
import { runWindowed, startRuntime, type FlowNode, type Runtime } from '../embedded';
import { SEND_PARAMS, TEXT, sendSmsNode, startEmulatorChild } from '../fixtures';
import { PASSWORD, USER, cpuMsSince, sleep, startChild } from '../lib';
import { catalogue, client } from '../pkg';

const NS = catalogue.DEFAULT_NAMESPACES.gateway;
const WINDOW = 32;
export const RECORDS = 5000;

export interface Workload {
  name: string;
  /** The workload it is divided by. */
  reference: string;
  /** msgs or records per run. */
  units: number;
  run(): Promise<void>;
}

export interface Bench {
  workloads: Workload[];
  stop(): Promise<void>;
}

const catchAll: FlowNode[] = [
  { id: 'catch', type: 'catch', uncaught: false, wires: [['caught']] },
  { id: 'caught', type: 'junction' },
];

let batch = 0;

/** n msgs into `input`, WINDOW at a time; a msg at the Catch node fails the run. */
async function windowed(rt: Runtime, input: string, out: string, n: number): Promise<void> {
  const b = batch++;
  const msg = (k: number): NodeMessage => ({ payload: TEXT, topic: `regress ${b}-${k}` });
  const r = await runWindowed(rt, { send: input, out, caught: 'caught' }, n, WINDOW, msg);
  if (r.failed > 0 || r.sent !== n) throw new Error(`${input}: ${r.failed} of ${n} failed`);
}

/** One trigger msg into `input`, resolved when `records` msgs came out of `out`. */
function page(rt: Runtime, input: string, out: string, records: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const outNode = rt.node(out);
    const caught = rt.node('caught');
    let seen = 0;
    const done = (err?: Error): void => {
      outNode.removeListener('input', onOut);
      caught.removeListener('input', onCaught);
      if (err) reject(err);
      else resolve();
    };
    const onOut = (): void => {
      if (++seen === records) done();
    };
    const onCaught = (m: NodeMessage & { error?: { message?: string } }): void =>
      done(new Error(`${input}: ${m.error?.message ?? 'error'}`));
    outNode.on('input', onOut);
    caught.on('input', onCaught);
    rt.node(input).receive({ payload: new Date(Date.now() - 3_600_000).toISOString() });
  });
}

/** Starts the servers and Node-RED with both flows deployed (send and DLR on one tab). */
export async function startBench(messages: number): Promise<Bench> {
  const emu = await startEmulatorChild({ requestLogSize: 1 });
  const canned = await cannedResponses(emu.url);
  await emu.stop();
  const stub = await startChild('stub.ts', { keepAliveMs: 120_000, responses: canned });
  const pages = await startChild('dlr-pages.ts', { records: RECORDS });
  const rt = await startRuntime();
  // "cfg": the stub, outbox off; "cfg2": the stub, outbox on; "cfg3": the DLR page source.
  await rt.deploy(
    stub.url,
    [
      sendSmsNode('send-off', { wires: [['off-out']] }),
      { id: 'off-out', type: 'junction' },
      sendSmsNode('send-on', { gateway: 'cfg2', wires: [['on-out']] }),
      { id: 'on-out', type: 'junction' },
      ...coreSendFlow(stub.url, 'core-out'),
      { id: 'core-out', type: 'junction' },
      {
        id: 'dlr',
        type: 'smsgw-dlr',
        gateway: 'cfg3',
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
    { maxConnections: WINDOW, gatewayNamespace: NS },
    {
      cfg2: { maxConnections: WINDOW, gatewayNamespace: NS, outbox: true },
      cfg3: { baseUrl: pages.url, gatewayNamespace: NS },
    },
  );
  const gw = new client.GatewayClient({
    baseUrl: stub.url,
    user: USER,
    password: PASSWORD,
    maxConnections: WINDOW,
    gatewayNamespace: NS,
  });
  const calls = async (): Promise<void> => {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < messages) {
        next++;
        const r = await gw.send.sendSms(SEND_PARAMS);
        if (!(r.JobId > 0)) throw new Error(`client: ${JSON.stringify(r)}`);
      }
    };
    await Promise.all(Array.from({ length: WINDOW }, worker));
  };
  const dlrPage = (input: string, out: string) => async (): Promise<void> => {
    await pages.ask<number>({ cmd: 'arm' });
    await page(rt, input, out, RECORDS);
  };
  const core = 'core send flow';
  const coreDlr = 'core DLR flow';
  const workloads: Workload[] = [
    {
      name: core,
      reference: core,
      units: messages,
      run: () => windowed(rt, 'core-tpl', 'core-out', messages),
    },
    {
      name: 'send node, outbox off',
      reference: core,
      units: messages,
      run: () => windowed(rt, 'send-off', 'off-out', messages),
    },
    {
      name: 'send node, outbox on',
      reference: core,
      units: messages,
      run: () => windowed(rt, 'send-on', 'on-out', messages),
    },
    { name: 'client SendSMS', reference: core, units: messages, run: calls },
    { name: coreDlr, reference: coreDlr, units: RECORDS, run: dlrPage('dcore-tpl', 'dcore-out') },
    {
      name: 'DLR trigger, 5,000-record page',
      reference: coreDlr,
      units: RECORDS,
      run: dlrPage('dlr', 'dlr-out'),
    },
  ];
  return {
    workloads,
    async stop() {
      await gw.close();
      await rt.stop().catch(() => undefined);
      await Promise.all([stub.stop(), pages.stop()]);
    },
  };
}

/** CPU µs per unit of one run of `w` (a full GC first where --expose-gc allows). */
export async function cpuPerUnit(w: Workload): Promise<number> {
  (globalThis as { gc?: () => void }).gc?.();
  await sleep(20); // the last run's follow-ups (an empty DLR page, outbox removes) end before the clock starts
  const c0 = process.cpuUsage();
  await w.run();
  return (cpuMsSince(c0) * 1000) / w.units;
}
