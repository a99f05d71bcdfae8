/**
 * The regression check of the hot paths (`npm run bench:regress`, a step of .ci/run): CPU time per msg of the send
 * node (outbox off and on), the client's SendSMS and the DLR trigger's 5,000-record page, each divided by a
 * core-node flow measured in the same rounds (bench/regress/workloads.ts), compared with the committed baseline
 * (bench/regress/baseline.json). Fails when a ratio grew beyond the baseline's tolerance, naming the workload and
 * the stage that grew (client; node and gate = send node minus client; outbox = on minus off).
 * A ratio over the line is measured again (up to RETRIES times) before it fails: a burst of load elsewhere passes,
 * a slowdown in the code stays.
 *   npm run bench:regress              measure and compare
 *   npm run bench:regress -- --update  measure and write the baseline (on purpose: say why in the commit)
 * Needs dist/ (npm run build). ROUNDS (5), MESSAGES (1000).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { median, printTable, round } from '../lib';
import { cpuPerUnit, startBench, type Workload } from './workloads';

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const MESSAGES = Number(process.env.MESSAGES ?? 1000);
const RETRIES = Number(process.env.RETRIES ?? 2);
const BASELINE = join(__dirname, 'baseline.json');
const update = process.argv.includes('--update');

interface Baseline {
  /** A ratio may grow by this share (0.25: 25 %) before the check fails. */
  tolerance: number;
  measured: { date: string; commit: string; node: string; cpu: string; rounds: number; messages: number };
  /** Workload name → CPU per unit divided by its reference's. */
  ratios: Record<string, number>;
}

type Samples = Map<string, number[]>;

async function rounds(workloads: Workload[], n: number, samples: Samples): Promise<void> {
  for (let r = 0; r < n; r++) {
    // Each round in another order, so a slow spell elsewhere does not always hit the same workload.
    const order = workloads.map((_, i) => workloads[(i + r) % workloads.length]!);
    for (const w of order) {
      const list = samples.get(w.name) ?? [];
      list.push(await cpuPerUnit(w));
      samples.set(w.name, list);
    }
  }
}

/** The median over rounds of (workload / reference) in the same round. */
function ratiosOf(workloads: Workload[], samples: Samples): Record<string, number> {
  const out: Record<string, number> = {};
  for (const w of workloads) {
    if (w.reference === w.name) continue;
    const mine = samples.get(w.name)!;
    const ref = samples.get(w.reference)!;
    out[w.name] = round(median(mine.map((x, i) => x / ref[i]!)), 4);
  }
  return out;
}

/** What each stage adds, as a share of the reference (differences of the ratios). */
function stages(r: Record<string, number>): Record<string, number> {
  const client = r['client SendSMS'] ?? NaN;
  const off = r['send node, outbox off'] ?? NaN;
  const on = r['send node, outbox on'] ?? NaN;
  return {
    client: round(client, 4),
    'node and gate (send node off - client)': round(off - client, 4),
    'outbox (on - off)': round(on - off, 4),
    'DLR trigger page': round(r['DLR trigger, 5,000-record page'] ?? NaN, 4),
  };
}

const commit = (): string => {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
};

async function main(): Promise<void> {
  const bench = await startBench(MESSAGES);
  const { workloads } = bench;
  const samples: Samples = new Map();
  let ratios: Record<string, number>;
  let failed: string[] = [];
  let baseline: Baseline | undefined;
  try {
    for (const w of workloads) await w.run(); // warm-up: JIT, connections, the outbox's files
    // A baseline is the median of three times the rounds: a check compares against the middle, not an outlier.
    await rounds(workloads, update ? ROUNDS * 3 : ROUNDS, samples);
    ratios = ratiosOf(workloads, samples);
    if (!update) {
      baseline = JSON.parse(readFileSync(BASELINE, 'utf8')) as Baseline;
      const over = (r: Record<string, number>): string[] =>
        Object.keys(baseline!.ratios).filter(
          (k) => !(r[k]! <= baseline!.ratios[k]! * (1 + baseline!.tolerance)),
        );
      failed = over(ratios);
      for (let retry = 0; retry < RETRIES && failed.length > 0; retry++) {
        console.log(
          `over the line: ${failed.join(', ')}; measuring ${ROUNDS} rounds more (${retry + 1}/${RETRIES})`,
        );
        const again = workloads.filter((w) =>
          failed.some((f) => f === w.name || w.name === refOf(workloads, f)),
        );
        await rounds(again, ROUNDS, samples);
        ratios = ratiosOf(workloads, samples);
        failed = over(ratios);
      }
    }
  } finally {
    await bench.stop();
  }
  const cpu = (name: string): number => round(median(samples.get(name)!), 1);
  printTable(
    `CPU per msg (record) and ratio to the core-node flow of the same rounds: median of ${ROUNDS}+ rounds, ${MESSAGES} msgs`,
    workloads.map((w) => ({
      workload: w.name,
      'CPU µs per unit': cpu(w.name),
      'ratio to reference': w.reference === w.name ? 'reference' : ratios[w.name],
      baseline: baseline?.ratios[w.name],
      change:
        baseline?.ratios[w.name] !== undefined
          ? `${round((ratios[w.name]! / baseline.ratios[w.name]! - 1) * 100, 1)} %`
          : undefined,
    })),
  );
  const now = stages(ratios);
  const before = baseline ? stages(baseline.ratios) : undefined;
  printTable(
    'Stages (share of the core-node flow each adds)',
    Object.entries(now).map(([stage, v]) => ({
      stage,
      now: v,
      baseline: before?.[stage],
      grew: before ? round(v - before[stage]!, 4) : undefined,
    })),
  );
  if (update) {
    const next: Baseline = {
      // Fresh-clone CI runs on the 2-core machine moved single ratios by up to 17 % from one run to the next.
      tolerance: 0.25,
      measured: {
        date: new Date().toISOString().slice(0, 10),
        commit: commit(),
        node: process.version,
        cpu: `${cpus().length} x ${cpus()[0]?.model ?? '?'}`,
        rounds: ROUNDS,
        messages: MESSAGES,
      },
      ratios,
    };
    writeFileSync(BASELINE, JSON.stringify(next, null, 2) + '\n');
    console.log(`baseline written: ${BASELINE}`);
    return;
  }
  if (failed.length > 0) {
    const grown = before
      ? Object.entries(now)
          .filter(([k, v]) => v - before[k]! > 0)
          .sort((a, b) => b[1] - before[b[0]]! - (a[1] - before[a[0]]!))
          .map(([k, v]) => `${k} +${round(v - before[k]!, 4)}`)
      : [];
    console.error(
      `REGRESSION: ${failed.map((f) => `${f} ${ratios[f]} (baseline ${baseline!.ratios[f]}, tolerance ${baseline!.tolerance * 100} %)`).join('; ')}` +
        (grown.length ? `; the stage that grew most: ${grown[0]}` : ''),
    );
    process.exitCode = 1;
  } else console.log(`no regression: every ratio within ${baseline!.tolerance * 100} % of the baseline`);
}

function refOf(workloads: Workload[], name: string): string | undefined {
  return workloads.find((w) => w.name === name)?.reference;
}

main()
  .catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(() => setTimeout(() => process.exit(), 100).unref());
