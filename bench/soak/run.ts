/**
 * `npm run soak -- --minutes N`: a real Node-RED with this package and the emulator under the load a
 * home-automation user puts on them for weeks, with faults, for N minutes:
 * - a tracked send every second (outbox on, delivery tracking with outputs 2 and 3),
 * - inbound SMS / DLR / HLR result triggers polling every 1-2 s, an inbound message every 2 s, an HLR check every
 *   15 s, a balance and an any-operation call every 10 s,
 * - four 30-second fault bursts (503 pages, resets, answers delayed past the timeout, answers dropped after the
 *   gateway acted, truncated answers) and one emulator restart.
 * Every 30 s it samples the Node-RED process (heap after a full GC, RSS, file descriptors, CPU) and the sizes of
 * the files in its user directory. At the end it lets everything settle and counts, per kind, what was sent,
 * made at the gateway, emitted by the flow, lost and duplicated, and the growth per 1,000 messages after warm-up.
 * Options: --minutes (25), --seed, --out FILE (JSON), --sample-s (30), --track-timeout-min (3), --keep (work dir).
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { GatewayState, startEmulator, type RunningEmulator } from '../../src/emulator';
import type { ActiveFault, FaultKind } from '../../src/emulator/wire/fault-injection';
import { deployFlows, startNodeRed, type RunningNodeRed } from '../../scripts/lib/nodered';
import { ROOT } from '../../scripts/lib/package';
import { freePort } from '../../scripts/lib/proc';
import { soakFlows } from './flows';
import { countAll, type Counts, type GatewayFacts } from './count';
import { growthPer1000, type Sample } from './samples';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '25' },
    seed: { type: 'string' },
    out: { type: 'string' },
    'sample-s': { type: 'string', default: '30' },
    'track-timeout-min': { type: 'string', default: '3' },
    keep: { type: 'boolean', default: false },
  },
});
const MINUTES = Number(values.minutes);
const SEED = Number(values.seed ?? Date.now() % 1_000_000);
const SAMPLE_MS = Number(values['sample-s']) * 1000;
const TRACK_TIMEOUT_MIN = Number(values['track-timeout-min']);
const PASSWORD = 'soak-Pa55word';
const FAULT_KINDS: readonly FaultKind[] = ['http503', 'reset', 'delay', 'commitThenDrop', 'truncate'];
/** Share of the operation requests hit by a fault during a burst. */
const BURST_SHARE = 0.3;
const BURST_MS = 30_000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const log = (s: string): void => console.log(`[soak ${new Date().toISOString().slice(11, 19)}] ${s}`);

function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function post(url: string, body: unknown): Promise<number> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

async function getJson<T>(url: string): Promise<T | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(20_000) });
    return res.ok ? ((await res.json()) as T) : undefined;
  } catch {
    return undefined;
  }
}

/** Sizes of the files Node-RED keeps in its user directory (poller state, outbox, flows), node_modules left out. */
function fileSizes(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name === 'nodes') continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out[relative(dir, p)] = statSync(p).size;
    }
  };
  walk(dir);
  return out;
}

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, 'dist', 'nodes', 'smsgw-config.js'))) throw new Error('run npm run build first');
  const work = mkdtempSync(join(tmpdir(), 'smsgw-soak-'));
  const userDir = join(work, 'userdir');
  const ledger = join(work, 'ledger.txt');
  writeFileSync(ledger, '');
  mkdirSync(join(userDir, 'node_modules', '@smsgw'), { recursive: true });
  symlinkSync(ROOT, join(userDir, 'node_modules', '@smsgw', 'node-red-sms-gateway'), 'dir');
  mkdirSync(join(userDir, 'nodes'));
  cpSync(join(__dirname, 'probe', 'soak-probe.cjs'), join(userDir, 'nodes', 'soak-probe.js'));
  cpSync(join(__dirname, 'probe', 'soak-probe.html'), join(userDir, 'nodes', 'soak-probe.html'));
  log(`seed ${SEED}, ${MINUTES} min, work dir ${work}`);

  const rnd = seeded(SEED);
  const state = new GatewayState({
    password: PASSWORD,
    balance: 1e9,
    // No duplicate detection: a send made twice is a second job, never hidden by DuplicateSMSJobFound.
    duplicateWindowMs: 0,
    maxJobs: 1_000_000,
  });
  let burst = false;
  const faultFigures: Record<string, number> = {};
  let emu: RunningEmulator | undefined;
  let port = 0;
  const up = async (): Promise<void> => {
    emu = await startEmulator({ backend: state, port, console: false, requestLogSize: 1 });
    port = emu.port;
    const original = emu.faults.take.bind(emu.faults);
    emu.faults.take = (operation: string | undefined): ActiveFault | undefined => {
      if (!burst || rnd() >= BURST_SHARE) return original(operation);
      const kind = FAULT_KINDS[Math.floor(rnd() * FAULT_KINDS.length)]!;
      faultFigures[kind] = (faultFigures[kind] ?? 0) + 1;
      return { kind, remaining: 0, ms: kind === 'delay' ? 2500 : 0, operation: undefined };
    };
  };
  await up();

  const nodeRedDir = dirname(require.resolve('node-red/package.json', { paths: [ROOT] }));
  const red: RunningNodeRed = await startNodeRed({
    nodeRedDir,
    nodeBin: process.execPath,
    userDir,
    port: await freePort(),
    freshFlows: true,
    logFile: join(work, 'node-red.log'),
    settings: {
      smsgwOutboxRetryInterval: 1000,
      smsgwDeliveryPollInterval: 2000,
      smsgwSendHlrPollInterval: 2000,
      logging: { console: { level: 'warn', metrics: false, audit: false } },
    },
  });
  await deployFlows(
    red.url,
    soakFlows({
      emulatorUrl: emu!.url,
      ledger,
      user: 'demo',
      password: PASSWORD,
      trackTimeoutMin: TRACK_TIMEOUT_MIN,
    }),
  );
  for (let i = 0; (await post(`${red.url}/soak/query`, {})) !== 200; i++) {
    if (i > 300) throw new Error('the soak flow did not start');
    await sleep(100);
  }

  const samples: Sample[] = [];
  const facts: GatewayFacts = {
    sends: 0,
    hlrSends: 0,
    inboundInjected: [],
    queries: 0,
    bursts: 0,
    restarts: 0,
  };
  const sample = async (): Promise<void> => {
    const s = await getJson<Omit<Sample, 'atS' | 'messages' | 'files'>>(`${red.url}/soak-probe/stats`);
    if (!s) return log('sample: Node-RED did not answer');
    const entry: Sample = {
      ...s,
      atS: Math.round((Date.now() - t0) / 1000),
      messages: facts.sends + facts.inboundInjected.length,
      files: fileSizes(userDir),
    };
    samples.push(entry);
    const files = Object.entries(entry.files)
      .filter(([f]) => f.startsWith('smsgw') || f.includes('state'))
      .map(([f, n]) => `${f} ${n}`)
      .join(', ');
    log(
      `heap ${(s.heapUsed / 1048576).toFixed(1)} MB, rss ${(s.rss / 1048576).toFixed(0)} MB, fds ${s.fds}, ` +
        `sends ${facts.sends}, inbound ${facts.inboundInjected.length}; ${files}`,
    );
  };

  const t0 = Date.now();
  const endAt = t0 + MINUTES * 60_000;
  await sample();
  const every = (ms: number, fn: () => Promise<void> | void): (() => Promise<void>) => {
    let running = true;
    const loop = (async () => {
      let next = Date.now() + ms;
      while (running && Date.now() < endAt) {
        await sleep(Math.max(0, next - Date.now()));
        next += ms;
        if (!running || Date.now() >= endAt) break;
        await fn();
      }
    })();
    return async () => {
      running = false;
      await loop;
    };
  };
  const stops = [
    every(1000, async () => {
      const n = facts.sends++;
      const status = await post(`${red.url}/soak/send`, { n });
      if (status !== 200) log(`send ${n}: the flow answered ${status}`);
    }),
    every(2000, () => {
      const n = facts.inboundInjected.length;
      facts.inboundInjected.push(
        state.injectInbound({ from: `+49170999000${n % 10}`, text: `soak-in-${n}` }).id,
      );
    }),
    every(15_000, async () => {
      const n = facts.hlrSends++;
      await post(`${red.url}/soak/hlr`, { n, number: `+4917012345${String(n % 100).padStart(3, '0')}` });
    }),
    every(10_000, async () => {
      facts.queries++;
      await post(`${red.url}/soak/query`, {});
    }),
    every(SAMPLE_MS, sample),
  ];
  // Four bursts, evenly spread; the restart between the second and the third.
  const runMs = MINUTES * 60_000;
  const scenario = (async () => {
    for (let k = 0; k < 4; k++) {
      const at = t0 + ((k + 0.5) * runMs) / 4.5;
      await sleep(Math.max(0, at - Date.now()));
      if (Date.now() >= endAt) break;
      log(`fault burst ${k + 1} (30 s)`);
      burst = true;
      facts.bursts++;
      await sleep(Math.min(BURST_MS, Math.max(0, endAt - Date.now())));
      burst = false;
      if (k === 1) {
        await sleep(Math.min(runMs / 9, 60_000) / 2);
        log('emulator restart (down 3 s)');
        const e = emu;
        emu = undefined;
        await e?.close();
        await sleep(3000);
        await up();
        facts.restarts++;
      }
    }
  })();
  await sleep(Math.max(0, endAt - Date.now()));
  await Promise.all(stops.map((s) => s()));
  await scenario;
  burst = false;
  log(
    `load over: ${facts.sends} sends, ${facts.inboundInjected.length} inbound, ${facts.hlrSends} HLR; settling`,
  );

  // Settle: the outbox drains, every job finishes, every tracked send reaches output 2 or 3, every inbound message
  // and HLR result is collected; bounded by the tracking timeout and two minutes.
  const settleBy = Date.now() + TRACK_TIMEOUT_MIN * 60_000 + 120_000;
  let counts: Counts = countAll(state, ledger, facts);
  while (Date.now() < settleBy) {
    state.finishJobs();
    counts = countAll(state, ledger, facts);
    if (counts.settled) break;
    await sleep(2000);
  }
  await sample();
  const outbox = await getJson<{ entries: unknown[] }>(`${red.url}/smsgw-config/cfg/outbox`);
  await red.proc.stop();
  await emu?.close();

  const growth = growthPer1000(samples);
  const result = {
    seed: SEED,
    minutes: MINUTES,
    when: new Date(t0).toISOString(),
    node: process.version,
    faults: faultFigures,
    facts: { ...facts, inboundInjected: facts.inboundInjected.length },
    counts,
    outboxLeft: outbox?.entries.length,
    growth,
    samples,
  };
  const { samples: _s, ...summary } = result;
  console.log(JSON.stringify(summary, null, 2));
  if (values.out) writeFileSync(values.out, JSON.stringify(result, null, 2) + '\n');
  if (values.keep || !counts.clean) log(`kept for inspection: ${work}`);
  else rmSync(work, { recursive: true, force: true });
  process.exitCode = counts.clean ? 0 : 1;
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(2);
});
