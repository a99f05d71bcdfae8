/**
 * (4) Inbound messages and delivery reports arriving while the polling nodes are stopped, started and
 * redeployed: each emitted exactly once. Messages are injected and jobs finished through the emulator's
 * control API before, during and between restarts (helper unload/load with the same userDir) and "modified
 * nodes" redeploys; some restarts hit a QueryReceivedNewSMS read in flight whose answer a proxy holds back
 * (collected on the server, kept as pending by the stopping node). Every msg leaving the pollers is counted
 * by record Id.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Node, NodeMessage } from 'node-red';
import { GatewayClient } from '../../src/client';
import {
  flowWith,
  helper,
  loadFlow,
  sleep,
  startEnv,
  stopEnv,
  type Env,
  type FlowNode,
} from '../nodes/helpers';
import { CAPTION_MATCH, FULL, seeded } from './helpers';

const INBOUND = FULL ? 1000 : 200;
const JOBS = FULL ? 300 : 60;
const RECIPIENTS = 4; // reports = JOBS × 4
const ROUNDS = FULL ? 12 : 5;

/** Forwards to the emulator; holds back the answers of the next `hold` QueryReceivedNewSMS reads by `ms`. */
function slowAnswerProxy(target: string): {
  server: Server;
  url: Promise<string>;
  hold(n: number, ms: number): void;
} {
  let held = 0;
  let delayMs = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const slow = held > 0 && body.includes('QueryReceivedNewSMS');
      if (slow) held -= 1;
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        // fetch sets Content-Length itself; passing ours on fails once any undici 7 is loaded (nodejs/undici#5500).
        if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers[k] = v;
      void fetch(target + (req.url ?? '/'), {
        method: req.method ?? 'POST',
        headers,
        ...(req.method === 'GET' ? {} : { body }),
      })
        .then(async (r) => {
          const answer = Buffer.from(await r.arrayBuffer());
          if (slow) await sleep(delayMs); // performed (collected) on the server; the answer is late
          if (res.destroyed) return;
          res.writeHead(r.status, { 'Content-Type': r.headers.get('content-type') ?? 'text/xml' });
          res.end(answer);
        })
        .catch(() => res.destroy());
    });
  });
  const url = new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
  return {
    server,
    url,
    hold(n, ms) {
      held = n;
      delayMs = ms;
    },
  };
}

describe('reliability (4): polling triggers across restarts and redeploys emit each record exactly once', () => {
  let env: Env;
  let client: GatewayClient;
  let proxy: ReturnType<typeof slowAnswerProxy>;
  let proxyUrl: string;
  before(async () => {
    env = await startEnv();
    env.emu.control.setCaptionMatch(CAPTION_MATCH);
    proxy = slowAnswerProxy(env.emu.url);
    proxyUrl = await proxy.url;
    env.emu.control.setBalance('demo', 10_000_000);
    client = new GatewayClient({
      baseUrl: env.emu.url,
      user: 'demo',
      password: 'demo-password',
      maxRecipients: 100,
    });
  });
  after(async () => {
    await client.close();
    proxy.server.closeAllConnections();
    await new Promise<void>((r) => proxy.server.close(() => r()));
    await stopEnv(env);
  });

  it(`${INBOUND} inbound messages and ${JOBS * RECIPIENTS} delivery reports over ${ROUNDS} restarts/redeploys`, async function () {
    this.timeout(FULL ? 300_000 : 60_000);
    const started = Date.now();
    const random = seeded(4);
    const inboundCount = new Map<number, number>();
    const reportCount = new Map<number, number>();
    const injected: number[] = [];
    const reportIds = new Set<number>();
    const jobIds = new Set<number>();
    let restarts = 0;
    let redeploys = 0;
    let readsInFlightAtStop = 0;

    const nodes = (name: string): FlowNode[] => [
      { id: 'pin', type: 'smsgw-inbound', name, gateway: 'cfg', interval: 60, inputs: 1, wires: [['out']] },
      { id: 'pdlr', type: 'smsgw-dlr', name, gateway: 'cfg', interval: 60, inputs: 1, wires: [['out2']] },
    ];
    let flow = flowWith(proxyUrl, nodes('v0'));

    const listen = (): void => {
      (helper.getNode('out') as Node).on('input', (m: NodeMessage) => {
        const id = (m as { sms: { Id: number } }).sms.Id;
        inboundCount.set(id, (inboundCount.get(id) ?? 0) + 1);
      });
      (helper.getNode('out2') as Node).on('input', (m: NodeMessage) => {
        const id = (m.payload as { Id: number }).Id;
        reportCount.set(id, (reportCount.get(id) ?? 0) + 1);
      });
    };
    // Polls are triggered by input msgs every 20 ms, so they run into every stop and start.
    let live = false;
    const driver = setInterval(() => {
      if (!live) return;
      for (const id of ['pin', 'pdlr']) (helper.getNode(id) as Node | null)?.receive({ payload: 'poll' });
    }, 20);

    const inject = (n: number): void => {
      for (let i = 0; i < n && injected.length < INBOUND; i++) {
        const k = injected.length;
        injected.push(
          env.emu.control.injectInbound({ from: `+49170${String(k).padStart(7, '0')}`, text: `m${k}` }).id,
        );
      }
    };
    const sendJobs = async (n: number): Promise<void> => {
      for (let i = 0; i < n && jobIds.size < JOBS; i++) {
        const base = jobIds.size * RECIPIENTS;
        const r = await client.send.sendSms({
          Caption: 'restart',
          Sender: '',
          Recipient: Array.from(
            { length: RECIPIENTS },
            (_, j) => `+49171${String(base + j).padStart(7, '0')}`,
          ),
          SMSText: 'x',
          SmsTyp: 'Standard',
          SendDate: null,
        });
        jobIds.add(r.JobId);
      }
      env.emu.control.finishJobs();
    };

    await loadFlow(flow);
    listen();
    live = true;
    const perRound = Math.ceil(INBOUND / ROUNDS);
    const jobsPerRound = Math.ceil(JOBS / ROUNDS);
    try {
      for (let round = 0; round < ROUNDS; round++) {
        inject(Math.floor(perRound / 2));
        await sendJobs(Math.floor(jobsPerRound / 2));
        await sleep(40 + random() * 120);
        if (round % 3 === 2) {
          // A "modified nodes" redeploy: only the pollers restart; the helpers (and their counters) stay.
          flow = flowWith(proxyUrl, nodes(`v${round}`));
          await helper.setFlows(flow, 'nodes', { cfg: { user: 'demo', password: 'demo-password' } });
          redeploys += 1;
        } else {
          if (round % 2 === 0) {
            // Stop while a QueryReceivedNewSMS is in flight: the server has collected what it returns.
            proxy.hold(1, 400);
            inject(Math.ceil(perRound / 4)); // what the held read returns
            await sleep(100);
            readsInFlightAtStop += 1;
          }
          live = false;
          await helper.unload();
          // Arrivals while Node-RED is down.
          inject(Math.ceil(perRound / 2));
          await sendJobs(Math.ceil(jobsPerRound / 2));
          await loadFlow(flow);
          listen();
          live = true;
          restarts += 1;
        }
        inject(perRound);
        await sendJobs(jobsPerRound);
      }
      inject(INBOUND);
      await sendJobs(JOBS);
      const snap = env.emu.control.snapshot() as {
        accounts: { jobs: { id: number; reports?: { id: number }[] }[] }[];
      };
      for (const job of snap.accounts.flatMap((a) => a.jobs))
        if (jobIds.has(job.id)) for (const r of job.reports ?? []) reportIds.add(r.id);
      const end = Date.now() + (FULL ? 60_000 : 20_000);
      while (
        Date.now() < end &&
        (inboundCount.size < injected.length || [...reportIds].some((id) => !reportCount.has(id)))
      )
        await sleep(50);
      await sleep(300); // late duplicates would show now
    } finally {
      clearInterval(driver);
      live = false;
    }

    const dupIn = [...inboundCount.values()].filter((c) => c > 1).length;
    const missIn = injected.filter((id) => !inboundCount.has(id)).length;
    const dupRep = [...reportIds].filter((id) => (reportCount.get(id) ?? 0) > 1).length;
    const missRep = [...reportIds].filter((id) => !reportCount.has(id)).length;
    const strayRep = [...reportCount.keys()].filter((id) => !reportIds.has(id)).length;
    if (process.env.SMSGW_FIGURES === '1' || !FULL) {
      console.log(
        `      (4) ${restarts} restarts (${readsInFlightAtStop} with a read in flight), ${redeploys} redeploys; ` +
          `inbound: ${injected.length} injected, ${inboundCount.size} emitted, ${dupIn} duplicated, ${missIn} missing; ` +
          `reports: ${reportIds.size} produced, ${reportCount.size} emitted, ${dupRep} duplicated, ${missRep} missing; ` +
          `${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
    }
    assert.equal(injected.length, INBOUND);
    assert.equal(reportIds.size, JOBS * RECIPIENTS);
    assert.deepEqual([missIn, dupIn], [0, 0], 'inbound: each exactly once');
    assert.deepEqual([missRep, dupRep, strayRep], [0, 0, 0], 'reports: each exactly once');
  });
});
