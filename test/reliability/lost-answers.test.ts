/**
 * (5) Inbound messages and HLR results whose collecting read lost its answer. QueryReceivedNewSMS,
 * GetNewRecivedSMS2 and QueryNewHLRJobs mark what they return as collected; bursts of faults hit every read of the
 * pollers (the collecting reads and the reads that recover without collecting): answers dropped after the gateway
 * acted, truncated answers, resets, 503s and delays beyond the client's timeout. Messages arrive and HLR jobs
 * finish all along. Every record must reach the flow once: none lost, none twice; the recoveries are logged.
 */
import assert from 'node:assert/strict';
import type { Node, NodeMessage } from 'node-red';
import { GatewayClient } from '../../src/client';
import type { ActiveFault, FaultKind } from '../../src/emulator/wire/fault-injection';
import {
  flowWith,
  helper,
  loadFlow,
  sleep,
  startEnv,
  stopEnv,
  waitFor,
  type Env,
  type FlowNode,
} from '../nodes/helpers';
import { CAPTION_MATCH, FULL, report, seeded } from './helpers';

const INBOUND = FULL ? 600 : 120;
const HLR_JOBS = FULL ? 120 : 30;
const BURSTS = FULL ? 8 : 3;
const KINDS: readonly FaultKind[] = ['commitThenDrop', 'truncate', 'reset', 'http503', 'delay'];
/** The pollers' reads: collecting and recovering. */
const POLL_OPS = new Set([
  'QueryReceivedNewSMS',
  'GetNewRecivedSMS2',
  'QueryNewHLRJobs',
  'QueryReceivedSMSByJobCaption',
  'GetRecivedSMS2',
  'QueryJobs',
  'QueryHLRJobsByJobID',
]);

/** Faults on a share of the pollers' reads while `on` is true; counted by kind and operation. */
function faultBursts(
  env: Env,
  seed: number,
): { on: boolean; byKind: Record<string, number>; collecting: number; restore(): void } {
  const rnd = seeded(seed);
  const take = env.emu.faults.take;
  const original = take.bind(env.emu.faults);
  const state = {
    on: false,
    byKind: {} as Record<string, number>,
    collecting: 0,
    restore: () => {
      env.emu.faults.take = take;
    },
  };
  env.emu.faults.take = (operation: string | undefined): ActiveFault | undefined => {
    if (!state.on || !operation || !POLL_OPS.has(operation) || rnd() >= 0.4) return original(operation);
    const kind = KINDS[Math.floor(rnd() * KINDS.length)]!;
    state.byKind[kind] = (state.byKind[kind] ?? 0) + 1;
    if (/New/.test(operation) && (kind === 'commitThenDrop' || kind === 'truncate')) state.collecting += 1;
    return { kind, remaining: 0, ms: kind === 'delay' ? 700 : 0, operation: undefined };
  };
  return state;
}

/** Log lines (node.log) of a node, as the test helper's spy saw them. */
function logs(id: string): string[] {
  const node = helper.getNode(id) as unknown as { log: { args: unknown[][]; thisValues: unknown[] } };
  return node.log.args.filter((_a, i) => node.log.thisValues[i] === node).map((a) => String(a[0]));
}

describe('reliability (5): a collecting read whose answer was lost: recovered, each record once', () => {
  // A fresh gateway for each service: a recovery must not meet the other run's messages.
  let env: Env;
  let client: GatewayClient;
  beforeEach(async () => {
    env = await startEnv();
    env.emu.control.setCaptionMatch(CAPTION_MATCH);
    env.emu.control.setBalance('demo', 10_000_000);
    client = new GatewayClient({ baseUrl: env.emu.url, user: 'demo', password: 'demo-password' });
  });
  afterEach(async () => {
    await client.close();
    await stopEnv(env);
  });

  for (const service of ['gateway', 'legacy'] as const) {
    it(`${INBOUND} inbound messages${service === 'gateway' ? ` and ${HLR_JOBS} HLR results` : ''} through ${BURSTS} fault bursts (${service} service)`, async function () {
      this.timeout(FULL ? 240_000 : 90_000);
      const started = Date.now();
      const faults = faultBursts(env, service === 'gateway' ? 23 : 32);
      const inboundSeen = new Map<string, number>();
      const hlrSeen = new Map<number, number>();
      const injected: string[] = [];
      const hlrJobs: number[] = [];
      const triggers = service === 'gateway' ? ['pin', 'phlr'] : ['pin'];
      const flow: FlowNode[] = flowWith(
        env.emu.url,
        [
          { id: 'pin', type: 'smsgw-inbound', gateway: 'cfg', interval: 60, inputs: 1, wires: [['out']] },
          {
            id: 'phlr',
            type: 'smsgw-hlr-results',
            gateway: 'cfg',
            interval: 60,
            inputs: 1,
            wires: [['out2']],
          },
        ].filter((n) => triggers.includes(n.id)),
        // Delays beyond the timeout: the client gives up on them (and the emulator drops them unperformed).
        { service, timeout: 0.4 },
      );
      await loadFlow(flow);
      (helper.getNode('out') as Node).on('input', (m: NodeMessage) => {
        const text = String(m.payload);
        inboundSeen.set(text, (inboundSeen.get(text) ?? 0) + 1);
      });
      (helper.getNode('out2') as Node).on('input', (m: NodeMessage) => {
        const id = (m.payload as { Id: number }).Id;
        hlrSeen.set(id, (hlrSeen.get(id) ?? 0) + 1);
      });
      const driver = setInterval(() => {
        for (const id of triggers) (helper.getNode(id) as Node | null)?.receive({ payload: 'poll' });
      }, 25);
      const tag = service === 'gateway' ? 't' : 'l';
      const inject = (n: number): void => {
        for (let i = 0; i < n && injected.length < INBOUND; i++) {
          const text = `${tag}${injected.length}`;
          env.emu.control.injectInbound({ from: `+49170${String(injected.length).padStart(7, '0')}`, text });
          injected.push(text);
        }
      };
      const sendHlr = async (n: number): Promise<void> => {
        if (service !== 'gateway') return;
        for (let i = 0; i < n && hlrJobs.length < HLR_JOBS; i++) {
          const r = await client.send.sendHlr({
            Caption: 'hlr',
            Recipient: `+49172${String(hlrJobs.length).padStart(7, '0')}`,
          });
          hlrJobs.push(r.JobId);
        }
        env.emu.control.finishJobs();
      };
      try {
        const steps = BURSTS * 10;
        for (let step = 0; step < steps; step++) {
          // Bursts: five steps of faults, five without.
          faults.on = Math.floor(step / 5) % 2 === 0;
          inject(Math.ceil(INBOUND / steps));
          await sendHlr(Math.ceil(HLR_JOBS / steps));
          await sleep(120);
        }
        faults.on = false;
        await waitFor(
          () => inboundSeen.size >= INBOUND && (service !== 'gateway' || hlrSeen.size >= hlrJobs.length),
          30_000,
        ).catch(() => undefined);
        await sleep(300);
      } finally {
        clearInterval(driver);
        faults.restore();
      }
      const hlrIds = (
        env.emu.control.snapshot() as { accounts: { hlr: { id: number; jobId: number }[] }[] }
      ).accounts
        .flatMap((a) => a.hlr)
        .filter((h) => hlrJobs.includes(h.jobId))
        .map((h) => h.id);
      // The config node owns the reader: it logs the recoveries.
      const recoveryLines = logs('cfg').filter((l) => /recover/i.test(l));
      const figures = {
        inbound: INBOUND,
        inboundEmitted: inboundSeen.size,
        inboundLost: injected.filter((t) => !inboundSeen.has(t)).length,
        inboundForeign: [...inboundSeen.keys()].filter((t) => !injected.includes(t)).length,
        inboundTwice: [...inboundSeen.values()].filter((n) => n > 1).length,
        hlr: hlrIds.length,
        hlrLost: hlrIds.filter((id) => !hlrSeen.has(id)).length,
        hlrTwice: [...hlrSeen.values()].filter((n) => n > 1).length,
        faults: faults.byKind,
        collectingReadsLost: faults.collecting,
        recoveries: recoveryLines.length,
        seconds: Math.round((Date.now() - started) / 100) / 10,
      };
      report(`lost answers (${service})`, figures);
      assert.ok(faults.collecting > 0, `the bursts hit collecting reads: ${JSON.stringify(figures)}`);
      assert.equal(figures.inboundLost, 0, JSON.stringify(figures));
      assert.equal(figures.inboundTwice, 0, JSON.stringify(figures));
      assert.equal(figures.inboundForeign, 0, JSON.stringify(figures));
      assert.equal(figures.hlrLost, 0, JSON.stringify(figures));
      assert.equal(figures.hlrTwice, 0, JSON.stringify(figures));
      assert.ok(figures.recoveries > 0, `recoveries logged: ${JSON.stringify(figures)}`);
    });
  }
});
