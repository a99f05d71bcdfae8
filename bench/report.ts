/**
 * Renders bench/results.json as docs/performance.md: the current figures only. The history of the runs and the
 * profiles are written by hand in bench/analysis.md.
 */
import type { DlrResult } from './anchor';
import type { DecodeFigures, InvokeRow } from './invoke';
import type { OutboxRow, OutboxStorage } from './outbox';

export interface Results {
  date: string;
  machine: {
    os: string;
    cpu: string;
    cores: number;
    memoryGB: number;
    loadBefore: number[];
    loadAfter: number[];
  };
  versions: Record<string, string>;
  benchmarks: Record<string, unknown>;
  seconds: number;
  /** Set when BENCH_ONLY re-ran some benchmarks: the others are those of the run of `earlier`. */
  partial?: { rerun: string[]; earlier: string };
  /**
   * Figures taken from runs of single benchmark files by hand (not through bench/run.ts), each saying which, when,
   * under what load and how they were merged in. A run of bench/run.ts drops them with the figures they describe.
   */
  notes?: string[];
}

type Row = Record<string, unknown>;

function table(rows: readonly Row[]): string {
  if (rows.length === 0) return '';
  const cols = Object.keys(rows[0]!);
  const cell = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
  return [
    `| ${cols.join(' | ')} |`,
    `| ${cols.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`,
    ...rows.map((r) => `| ${cols.map((c) => cell(r[c])).join(' | ')} |`),
  ].join('\n');
}

interface Target {
  benchmark: string;
  figure: string;
  measured: string | number;
  target: string;
  met: string;
}

const yes = (ok: boolean | undefined): string => (ok === undefined ? 'n/a' : ok ? 'yes' : '**no**');

/** What the benchmarks emit (bench/*.ts `emit`), as far as the report reads it. */
interface Benchmarks {
  client: {
    concurrency: number;
    rounds: number;
    seconds: number;
    ratios: Record<string, number>;
    targets: { target: string; rows: Row[] }[];
    defaults?: {
      referenceCpuUs: number;
      referenceOffVsRaw: number;
      flowControlCpuUs: number;
      withFlowControlVsRaw: number;
      validationCpuUs: number;
      oursCpuUs: number;
      rawCpuUs: number;
    };
  };
  anchor: {
    window: number;
    rounds: number;
    dlrRounds: number;
    soapMessages: number;
    send: {
      target: string;
      messages: number;
      rows: Row[];
      ratios: { rateOursVsCore: number; cpuCoreVsOurs: number; rateOursVsContribSoap?: number };
      contribSoap: string;
    }[];
    dlr?: DlrResult;
  };
  'dlr-page': {
    records: number;
    bytes: number;
    rounds: number;
    rows: Row[];
    chunks: { count: number; medianBytes: number };
    ratios: Record<string, number>;
  };
  decode: {
    chunkBytes: number;
    cases: {
      case: string;
      records: number;
      bytes: number;
      rows: Row[];
      ratios: Record<string, number> & { peakHeapPerBodyByte: number | null };
    }[];
  };
  envelope: {
    envelopes: number;
    recipients: number;
    rounds: number;
    oursMs: number;
    plainTemplateMs: number;
    ratio: number;
    usPerEnvelope: number;
  };
  nodered: {
    phases: Row[];
    ratios: {
      flowVsClient: number;
      flowCpuVsClientCpu: number;
      burstHeapBytesPerQueuedMsg?: number;
      defaultQueueBurstExtraHeapMB?: number;
    };
    livePerPendingCallBytes?: Record<string, number | null>;
  };
  emulator: { rows: Row[]; ratios: { emulatorVsBare: number } };
  polling: {
    rows: Row[];
    intervalS: number;
    seconds: number;
    requestsPerTriggerPerInterval: number;
    extraCpuMs: number;
    cpuMsPerPoll: number;
    cpuShareOfOneCore: number;
    scaledTo10sFor10min: { polls: number; cpuMs: number };
  };
  invoke: { concurrency: number; rounds: number; seconds: number; rows: InvokeRow[]; decode: DecodeFigures };
  outbox: {
    messages: number;
    window: number;
    rounds: number;
    rows: OutboxRow[];
    storage: OutboxStorage;
    ratios: { onVsOff: number; cpuOnVsOff: number; syncsPerMsg: number; burstSyncsPerMsg: number | null };
  };
  footprint: {
    require: { what: string; 'median ms': number }[];
    size: Row[];
    memory: Row[];
    extraMemory: { rssMB: number; heapMB: number };
  };
}

function summary(b: Partial<Benchmarks>): Target[] {
  const out: Target[] = [];
  const c = b.client;
  if (c) {
    const r = c.ratios;
    for (const t of ['stub', 'emulator']) {
      if (r[`${t}.oursVsRaw`] === undefined) continue;
      const limit = t === 'stub' ? 0.85 : 0.75;
      out.push({
        benchmark: `1 client (${t})`,
        figure: 'ours SOAP 1.1 / raw undici, calls/s (defaults: reference on)',
        measured: r[`${t}.oursVsRaw`]!,
        target: `>= ${limit}`,
        met: yes(r[`${t}.oursVsRaw`]! >= limit),
      });
      // On a loaded machine every variant gets a share of the cores and calls/s stop measuring the client; the
      // CPU per call does not depend on the share (on the quiet machine the two ratios agree: bench/analysis.md).
      if (t === 'stub' && r['stub.rawCpuVsOurs'] !== undefined) {
        out.push({
          benchmark: '1 client (stub)',
          figure: 'raw undici / ours, client CPU per call (what calls/s follow on a quiet machine)',
          measured: r['stub.rawCpuVsOurs'],
          target: `(>= ${limit})`,
          met: yes(r['stub.rawCpuVsOurs'] >= limit),
        });
      }
      out.push({
        benchmark: `1 client (${t})`,
        figure: 'ours / soap package, calls/s',
        measured: r[`${t}.oursVsSoap`]!,
        target: '>= 5',
        met: yes(r[`${t}.oursVsSoap`]! >= 5),
      });
      out.push({
        benchmark: `1 client (${t})`,
        figure: 'ours / strong-soap, calls/s',
        measured: r[`${t}.oursVsStrongSoap`]!,
        target: '(>= 5)',
        met: yes(r[`${t}.oursVsStrongSoap`]! >= 5),
      });
      out.push({
        benchmark: `1 client (${t})`,
        figure: 'soap package / ours, client CPU per call',
        measured: r[`${t}.soapCpuVsOurs`]!,
        target: '(>= 5)',
        met: yes(r[`${t}.soapCpuVsOurs`]! >= 5),
      });
    }
  }
  const d = c?.defaults;
  if (d) {
    out.push({
      benchmark: '1 client (stub)',
      figure: 'reference off / raw undici, calls/s',
      measured: d.referenceOffVsRaw,
      target: '(cost of the default)',
      met: 'n/a',
    });
    out.push({
      benchmark: '1 client (stub)',
      figure: 'with flow control / raw undici, calls/s',
      measured: d.withFlowControlVsRaw,
      target: '(cost of the default)',
      met: 'n/a',
    });
  }
  for (const k of b.decode?.cases ?? []) {
    const r = k.ratios;
    const name = `2 decode ${k.case.split(' ')[0]}`;
    out.push({
      benchmark: name,
      figure: 'soap / ours, CPU',
      measured: r.speedupVsSoapCpu!,
      target: '>= 5',
      met: yes(r.speedupVsSoapCpu! >= 5),
    });
    out.push({
      benchmark: name,
      figure: 'ours / bare tokenizer (our scanner), CPU',
      measured: r.ratioToBareTokenizerCpu!,
      target: '<= 2',
      met: yes(r.ratioToBareTokenizerCpu! <= 2),
    });
    if (r.stringOnlyVsSoapCpu !== undefined) {
      out.push({
        benchmark: name,
        figure: 'XML layer only: soap (string) / ours (string), CPU',
        measured: r.stringOnlyVsSoapCpu,
        target: '(>= 5)',
        met: yes(r.stringOnlyVsSoapCpu >= 5),
      });
      out.push({
        benchmark: name,
        figure: 'XML layer only: ours (string) / bare tokenizer, CPU',
        measured: r.stringOnlyToBareTokenizerCpu!,
        target: '(<= 2)',
        met: yes(r.stringOnlyToBareTokenizerCpu! <= 2),
      });
    }
    out.push({
      benchmark: name,
      figure: 'longest event-loop block, CPU ms',
      measured: r.maxBlockCpuMs!,
      target: '<= 20',
      met: yes(r.maxBlockCpuMs! <= 20),
    });
    out.push({
      benchmark: name,
      figure: 'peak live heap / body size',
      measured: r.peakHeapPerBodyByte ?? 'n/a',
      target: '<= 4',
      met: yes(r.peakHeapPerBodyByte === null ? undefined : r.peakHeapPerBodyByte <= 4),
    });
  }
  if (b.envelope)
    out.push({
      benchmark: '3 envelope',
      figure: 'ours / plain template',
      measured: b.envelope.ratio,
      target: '<= 2',
      met: yes(b.envelope.ratio <= 2),
    });
  if (b.nodered)
    out.push({
      benchmark: '4 Node-RED',
      figure: 'flow / client alone, msgs/s',
      measured: b.nodered.ratios.flowVsClient,
      target: '>= 0.9',
      met: yes(b.nodered.ratios.flowVsClient >= 0.9),
    });
  if (b.nodered?.ratios.burstHeapBytesPerQueuedMsg !== undefined)
    out.push({
      benchmark: '4 Node-RED',
      figure: 'burst: peak heap per queued msg, bytes',
      measured: b.nodered.ratios.burstHeapBytesPerQueuedMsg,
      target: '(reported; queue bounded at 1000)',
      met: 'n/a',
    });
  if (b.emulator)
    out.push({
      benchmark: '5 emulator',
      figure: 'emulator / bare node:http, req/s',
      measured: b.emulator.ratios.emulatorVsBare,
      target: '>= 0.6',
      met: yes(b.emulator.ratios.emulatorVsBare >= 0.6),
    });
  if (b.polling)
    out.push({
      benchmark: '6 polling',
      figure: 'requests per trigger per interval',
      measured: b.polling.requestsPerTriggerPerInterval,
      target: '<= 1',
      met: yes(b.polling.requestsPerTriggerPerInterval <= 1.0001),
    });
  if (b.footprint)
    out.push({
      benchmark: '7 footprint',
      figure: 'require of the 11 node modules, ms',
      measured: b.footprint.require[0]!['median ms'],
      target: '<= 150',
      met: yes(b.footprint.require[0]!['median ms'] <= 150),
    });
  for (const t of b.anchor?.send ?? []) {
    out.push({
      benchmark: `10 anchor (${t.target})`,
      figure: 'ours / core-node flow, msgs/s',
      measured: t.ratios.rateOursVsCore,
      target: '>= 3',
      met: yes(t.ratios.rateOursVsCore >= 3),
    });
    out.push({
      benchmark: `10 anchor (${t.target})`,
      figure: 'core-node flow / ours, CPU per msg',
      measured: t.ratios.cpuCoreVsOurs,
      target: '>= 3',
      met: yes(t.ratios.cpuCoreVsOurs >= 3),
    });
    if (t.ratios.rateOursVsContribSoap !== undefined)
      out.push({
        benchmark: `10 anchor (${t.target})`,
        figure: 'ours / node-red-contrib-soap 0.0.3, msgs/s',
        measured: t.ratios.rateOursVsContribSoap,
        target: '(reported)',
        met: 'n/a',
      });
  }
  const ad = b.anchor?.dlr;
  if (ad) {
    out.push({
      benchmark: '10 anchor DLR page',
      figure: 'core-node flow / ours, time to the last record msg',
      measured: ad.ratios.speedupVsCore,
      target: '>= 5',
      met: yes(ad.ratios.speedupVsCore >= 5),
    });
    out.push({
      benchmark: '10 anchor DLR page',
      figure: 'ours: longest event-loop delay, ms',
      measured: ad.ratios.oursEventLoopMaxMs,
      target: '<= 20',
      met: yes(ad.ratios.oursEventLoopMaxMs <= 20),
    });
    out.push({
      benchmark: '10 anchor DLR page',
      figure: 'core-node flow: longest event-loop delay, ms',
      measured: ad.ratios.coreEventLoopMaxMs,
      target: '(reported)',
      met: 'n/a',
    });
  }
  const dp = b['dlr-page'];
  if (dp?.ratios.speedupVsSoap !== undefined) {
    out.push({
      benchmark: '11 DLR page end to end',
      figure: 'soap package / ours, ms per page',
      measured: dp.ratios.speedupVsSoap,
      target: '>= 8',
      met: yes(dp.ratios.speedupVsSoap >= 8),
    });
    out.push({
      benchmark: '11 DLR page end to end',
      figure: 'ours / bare transport, ms per page',
      measured: dp.ratios.oursVsBareTransport!,
      target: '(reported)',
      met: 'n/a',
    });
  }
  const inv = b.invoke;
  if (inv) {
    // Expected slower (the generic path trades speed for reach): figures without a target.
    const soap11 = inv.rows.find((r) => r.transport === 'soap11');
    if (soap11) {
      out.push({
        benchmark: '8 invoke()',
        figure: 'invoke() / typed SOAP 1.1 SendSMS, calls/s (stub)',
        measured: soap11.rateRatio,
        target: '(slower)',
        met: 'n/a',
      });
      out.push({
        benchmark: '8 invoke()',
        figure: 'invoke() / typed, client CPU per call',
        measured: soap11.cpuRatio,
        target: '(slower)',
        met: 'n/a',
      });
    }
    out.push({
      benchmark: '8 invoke()',
      figure: 'invoke() / typed, decode QueryReceivedDLR 5,000, CPU',
      measured: inv.decode.ratio,
      target: '(slower)',
      met: 'n/a',
    });
  }
  const ob = b.outbox;
  if (ob) {
    out.push({
      benchmark: '9 outbox',
      figure: 'send node, outbox on / off, msgs/s',
      measured: ob.ratios.onVsOff,
      target: '>= 0.8',
      met: yes(ob.ratios.onVsOff >= 0.8),
    });
    out.push({
      benchmark: '9 outbox',
      figure: 'outbox flushes (fdatasync) per message, 32 in flight',
      measured: ob.ratios.syncsPerMsg,
      target: '(reported)',
      met: 'n/a',
    });
  }
  return out;
}

/** The rows of benchmark 8's throughput table (printed by bench/invoke.ts, written here). */
export const invokeTableRows = (rows: readonly InvokeRow[]): Record<string, string | number>[] =>
  rows.map((r) => ({
    transport: r.transport,
    'typed calls/s': r.typedRate,
    'invoke calls/s': r.invokeRate,
    'invoke / typed': r.rateRatio,
    'typed CPU µs/call': r.typedCpuUs,
    'invoke CPU µs/call': r.invokeCpuUs,
    'CPU invoke / typed': r.cpuRatio,
  }));

const failedOf = (v: unknown): string | undefined =>
  v && typeof v === 'object' && 'failed' in v ? String((v as { failed: unknown }).failed) : undefined;

export function renderMarkdown(res: Results): string {
  const failed = Object.entries(res.benchmarks).filter(([, v]) => failedOf(v) !== undefined);
  const b = Object.fromEntries(
    Object.entries(res.benchmarks).filter(([, v]) => failedOf(v) === undefined),
  ) as Partial<Benchmarks>;
  const s: string[] = [];
  s.push('# Performance', '');
  s.push(
    'What a user of this package may expect of its speed, memory and cost per message, in one table: each figure',
    'measured against a baseline in the same run (raw undici, a flow of core nodes, the soap package, bare',
    'node:http), with the target it is held to. The sections after the table give each benchmark in detail. Earlier',
    'runs, the profiles behind the figures and the choice of the XML parser are in',
    '[bench/analysis.md](../bench/analysis.md).',
    '',
  );
  s.push('## What to expect', '', table(summary(b) as unknown as Row[]), '');
  for (const [name, v] of failed) s.push(`Benchmark ${name} failed in this run: ${failedOf(v)}.`, '');
  s.push('## How it is measured, and how to rerun it', '');
  s.push(
    'Generated by `npm run bench` (bench/run.ts; figures also in bench/results.json). Every figure is set against a',
    'baseline measured in the same run, because the machine is shared and noisy: read the ratios, not the absolute',
    'numbers. Rates are medians of interleaved rounds; CPU figures come from `process.cpuUsage()`.',
    '',
    'Rerun: `npm run bench` (about 5 minutes; every benchmark), or one of them with `BENCH_ONLY=<name> npm run bench`',
    '(`client`, `decode`, `envelope`, `nodered`, `emulator`, `polling`, `footprint`, `invoke`, `outbox`, `anchor`,',
    '`dlr-page`): the others keep their figures from the run that made them, and the page says which run that was.',
    'Run it on a quiet machine for figures to compare with the table; on a busy one only the ratios mean anything.',
    '',
  );
  const m = res.machine;
  s.push(
    `This page: run ${res.date} in ${res.seconds} s on ${m.os}, ${m.cores} × ${m.cpu}, ${m.memoryGB} GB; load average before ${m.loadBefore.join(' / ')}, after ${m.loadAfter.join(' / ')}.` +
      (res.partial
        ? ` That run re-ran ${res.partial.rerun.join(', ')}; the other figures are from the run of ${res.partial.earlier}.`
        : ''),
    '',
  );
  for (const note of res.notes ?? []) s.push(note, '');
  s.push(
    '## The regression check (CI)',
    '',
    'A change that makes the hot paths slower fails CI the day it lands: `npm run bench:regress` (a step of',
    '`.ci/run`, about 2 minutes) measures the CPU time per msg of the send node with the outbox off and on, of the',
    "client's SendSMS and per record of the DLR trigger's 5,000-record page, each divided by a flow of core nodes",
    'doing the same job in the same rounds (load elsewhere slows both alike), and compares these ratios with',
    '[bench/regress/baseline.json](../bench/regress/baseline.json). A ratio more than 25 % above the baseline is',
    'measured again (twice at most); if it stays there the check fails, naming the workload and the stage that grew',
    "most (client; node and gate = the send node's ratio minus the client's; outbox = on minus off).",
    '',
    'To accept a new cost on purpose (a feature that must do more per msg), or after an improvement, measure a new',
    'baseline on a machine of the CI kind and commit it with the reason in the commit message:',
    '`npm run build && npm run bench:regress -- --update` (it takes the median of 15 rounds).',
    '',
    'Counting instructions with callgrind instead was tried: it does not depend on load, but under it the workloads',
    'took 9 minutes, and the counts of the send node with the outbox on and of the DLR page changed by a third',
    "between two runs (how many messages share one fdatasync, and whether the trigger's follow-up request falls",
    'inside the counted run, depend on timing), so it would not be steadier than the ratios.',
    '',
  );
  s.push(
    `Versions: ${Object.entries(res.versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
    '',
  );
  if (b.client) {
    s.push('## 1. Client throughput', '');
    s.push(
      `SendSMS, ${b.client.concurrency} calls in flight, median of ${b.client.rounds} rounds of ${b.client.seconds} s. "stub" is a fixed-response server in its own process (answers the emulator's bytes, parses nothing): it shows the client's own cost. "emulator" is the full round trip; its "server busy" column says how close the server was to one full core.`,
      '',
    );
    for (const t of b.client.targets) {
      s.push(`### Against the ${t.target}`, '');
      s.push(
        table(
          t.rows.map((r) => ({
            variant: r.variant,
            'calls/s': r.rate,
            'x raw': r.vsRaw,
            'client CPU µs/call': r.clientCpuUs,
            'x ours CPU': r.cpuVsOurs,
            'server CPU µs/call': r.serverCpuUs,
            'server busy': r.serverBusy,
          })),
        ),
        '',
      );
    }
  }
  const cd = b.client?.defaults;
  if (cd) {
    s.push('### The cost of each default (stub, client CPU µs per call)', '');
    s.push(
      table([
        {
          default: 'caption reference (on)',
          'µs/call': cd.referenceCpuUs,
          'off: x raw calls/s': cd.referenceOffVsRaw,
        },
        {
          default: 'flow control (off in the client; the config node turns it on)',
          'µs/call': cd.flowControlCpuUs,
          'on: x raw calls/s': cd.withFlowControlVsRaw,
        },
        { default: 'validation (always on; measured alone)', 'µs/call': cd.validationCpuUs },
      ]),
      '',
    );
    s.push(
      `Ours with the defaults: ${cd.oursCpuUs} µs of client CPU per call; raw undici ${cd.rawCpuUs} µs. Differences of CPU per call between rows carry the noise of single rows (±10 µs on this machine).`,
      '',
    );
  }
  if (b.decode) {
    s.push('## 2. Decoding', '');
    for (const k of b.decode.cases) {
      s.push(
        `### ${k.case}: ${k.records} records, ${(k.bytes / 1e6).toFixed(2)} MB in ${b.decode.chunkBytes / 1024} KiB chunks`,
        '',
      );
      s.push(table(k.rows), '');
    }
  }
  if (b.envelope) {
    const e = b.envelope;
    s.push('## 3. Envelope building', '');
    s.push(
      table([
        { builder: 'buildRequest (ours)', 'median ms': e.oursMs, 'µs/envelope': e.usPerEnvelope },
        {
          builder: 'plain template + escaping',
          'median ms': e.plainTemplateMs,
          'µs/envelope': Math.round((e.plainTemplateMs * 1000 * 100) / e.envelopes) / 100,
        },
      ]),
      '',
    );
    s.push(
      `${e.envelopes} SendSMS envelopes with ${e.recipients} recipients, median of ${e.rounds} rounds: ratio ${e.ratio}.`,
      '',
    );
  }
  if (b.nodered) {
    s.push('## 4. Node-RED flow', '');
    s.push(table(b.nodered.phases), '');
    const nr = b.nodered.ratios;
    s.push(
      `Flow / client: ${nr.flowVsClient} (msgs/s), CPU per message ${nr.flowCpuVsClientCpu}x the client's.` +
        (nr.burstHeapBytesPerQueuedMsg !== undefined
          ? ` A burst with every msg queued holds ${nr.burstHeapBytesPerQueuedMsg} bytes of heap per queued msg at its peak; as installed the queue (1000) bounds it: the rest of a burst is refused at once (peak ${nr.defaultQueueBurstExtraHeapMB} MB above idle, most of it the refused msgs and their errors on their way to Catch).`
          : ''),
      '',
    );
  }
  if (b.emulator) {
    s.push('## 5. Emulator', '', table(b.emulator.rows), '');
  }
  if (b.polling) {
    const p = b.polling;
    s.push('## 6. Polling cost', '', table(p.rows), '');
    s.push(
      `Interval ${p.intervalS} s for ${p.seconds} s: ${p.requestsPerTriggerPerInterval} requests per trigger per interval, ${p.cpuMsPerPoll} ms CPU per poll, ${(p.cpuShareOfOneCore * 100).toFixed(2)} % of one core. Scaled to 3 triggers every 10 s for 10 minutes (${p.scaledTo10sFor10min.polls} polls): about ${p.scaledTo10sFor10min.cpuMs} ms of CPU.`,
      '',
    );
  }
  const long = (res.benchmarks as { polling10min?: Benchmarks['polling'] }).polling10min;
  if (long) {
    s.push(
      `### The issue's case: every ${long.intervalS} s for ${long.seconds / 60} minutes (run once, bench/polling-10min.json)`,
      '',
    );
    s.push(table(long.rows), '');
    s.push(
      `${long.requestsPerTriggerPerInterval} requests per trigger per interval; ${long.extraCpuMs} ms CPU above the baseline in total, ${long.cpuMsPerPoll} ms per poll, ${(long.cpuShareOfOneCore * 100).toFixed(3)} % of one core.`,
      '',
    );
  }
  if (b.footprint) {
    const f = b.footprint;
    s.push('## 7. Footprint', '', table(f.require), '', table(f.size), '', table(f.memory), '');
    s.push(
      `Our idle flow adds ${f.extraMemory.rssMB} MB RSS and ${f.extraMemory.heapMB} MB heap to the runtime.`,
      '',
    );
  }
  if (b.invoke) {
    const v = b.invoke;
    const d = v.decode;
    s.push('## 8. The generic path: `client.invoke()`', '');
    s.push(
      `SendSMS through \`invoke()\` (xmlbuilder2 + fast-xml-parser) and through the typed method (precompiled envelope + the scanner), on one client per transport against the stub of benchmark 1, ${v.concurrency} calls in flight, median of ${v.rounds} interleaved rounds of ${v.seconds} s. The typed send runs without its reference and safe retries, so both do one request.`,
      '',
    );
    s.push(table(invokeTableRows(v.rows)), '');
    s.push(
      table([
        {
          decoder: 'typed (scanner, streamed in 64 KiB chunks)',
          ms: d.typedMs,
          'longest block ms': d.typedMaxBlockMs,
        },
        {
          decoder: 'invoke() (fast-xml-parser, whole answer)',
          ms: d.invokeMs,
          'longest block ms': d.invokeMaxBlockMs,
        },
      ]),
      '',
    );
    s.push(
      `The ${d.records}-record QueryReceivedDLR answer (${(d.bytes / 1e6).toFixed(2)} MB): invoke() takes ${d.ratio}x the typed decoder's time, in one block of the event loop at the answer's end.`,
      '',
    );
  }
  if (b.outbox) {
    const o = b.outbox;
    s.push('## 9. The write-ahead outbox', '');
    s.push(
      `\`smsgw-send-sms\` in one embedded Node-RED against the emulator (own process), two config nodes side by side, the outbox off and on (each message flushed to the journal before its first attempt), ${o.messages} messages with ${o.window} in flight per run, ${o.rounds} interleaved rounds; then a burst of every message at once with the outbox on. Flushes are the journal's fdatasync calls (group commit), records its lines (an add and a remove per message).`,
      '',
    );
    s.push(table(o.rows as unknown as Row[]), '');
    s.push(
      `Outbox on / off: **${o.ratios.onVsOff}x** the messages per second, ${o.ratios.cpuOnVsOff}x the CPU per message; ${o.ratios.syncsPerMsg} flushes per message with ${o.window} in flight${o.ratios.burstSyncsPerMsg !== null ? `, ${o.ratios.burstSyncsPerMsg} in the burst` : ''}.`,
      '',
    );
    s.push(table([o.storage as unknown as Row]), '');
    s.push(
      `One change with ${o.storage.held} messages held: rewriting the whole JSON file (the version 1 outbox) vs appending one journal line: ${o.storage.rewriteVsAppend}x.`,
      '',
    );
  }
  if (b.anchor) {
    const a = b.anchor;
    s.push('## 10. The anchor: what a Node-RED user builds without this package', '');
    s.push(
      `The same embedded Node-RED runtime runs our \`smsgw-send-sms\` (config node defaults: caption reference on, flow control) beside the flow a user builds from core nodes: template (the SendSMS SOAP 1.1 envelope) → http request (POST, keep-alive) → xml → change (msg.payload = JobId); and node-red-contrib-soap 0.0.3, which installs and runs on Node-RED 4.1 but builds a soap client from the WSDL for every msg (so it runs ${a.soapMessages} msgs, and an error in it is thrown inside a callback, which ends the Node-RED process). ${a.window} msgs in flight, median of ${a.rounds} interleaved rounds; CPU is the Node-RED process's per msg.`,
      '',
    );
    for (const t of a.send) {
      s.push(`### SendSMS against the ${t.target}`, '', table(t.rows), '');
    }
    if (a.dlr) {
      s.push(
        `### One ${a.dlr.records}-record QueryReceivedDLR page (${(a.dlr.bytes / 1e6).toFixed(2)} MB)`,
        '',
        `From the trigger msg to the ${a.dlr.records}th record msg, median of ${a.dlrRounds}: \`smsgw-dlr\` in "poll on input" mode (one msg per report, de-duplicated by Id, cursor saved) against template → http request → xml → function (one msg per report, values typed as ours, no de-duplication). The event loop's delay is perf_hooks.monitorEventLoopDelay at 1 ms resolution: on a loaded machine it also counts time the process was not scheduled.`,
        '',
        table(a.dlr.rows),
        '',
      );
    }
  }
  const page = b['dlr-page'];
  if (page) {
    s.push('## 11. A DLR page end to end', '');
    s.push(
      `One ${page.records}-record QueryReceivedDLR answer (${(page.bytes / 1e6).toFixed(2)} MB) from the stub, one call at a time, median of ${page.rounds} interleaved rounds. undici hands the body over in ${page.chunks.count} chunks of ${page.chunks.medianBytes} bytes (median).`,
      '',
      table(page.rows),
      '',
    );
  }
  // The history of the runs and the profiles stay in bench/analysis.md (hand-written): this page is the current
  // figures only.
  return s.join('\n');
}
