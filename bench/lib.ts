/**
 * Shared helpers of the benchmarks: statistics, tables, child-process servers and the result hand-over to
 * bench/run.ts (one `BENCH_RESULT <json>` line on stdout).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

export const ROOT = join(__dirname, '..');
export const USER = 'bench';
export const PASSWORD = 'bench-password';

export const median = (xs: readonly number[]): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export const round = (x: number, digits = 2): number => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};

export type Row = Record<string, string | number | boolean | null | undefined>;

/** Prints rows as an aligned text table (columns from the first row). */
export function printTable(title: string, rows: readonly Row[]): void {
  console.log(`\n${title}`);
  if (rows.length === 0) return;
  const cols = Object.keys(rows[0]!);
  const cell = (v: Row[string]): string => (v === undefined || v === null ? '' : String(v));
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]): string =>
    vals.map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join('  ');
  console.log(line(cols));
  for (const r of rows) console.log(line(cols.map((c) => cell(r[c]))));
}

/** Hands a benchmark's figures to the runner (and shows them when run alone). */
export function emit(name: string, result: unknown): void {
  console.log(`BENCH_RESULT ${JSON.stringify({ name, result })}`);
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export const cpuMsSince = (c0: NodeJS.CpuUsage): number => {
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
};

/** A server in its own process (so it never shares an event loop with the code measured). */
export interface ChildServer {
  url: string;
  child: ChildProcess;
  /** CPU time (ms) the child process used so far. */
  cpuMs(): Promise<number>;
  /** An arbitrary request to the child (answered by its 'message' handler). */
  ask<T>(msg: Record<string, unknown>): Promise<T>;
  stop(): Promise<void>;
}

let asks = 0;

export async function startChild(
  script: string,
  config: unknown,
  execArgv: string[] = [],
): Promise<ChildServer> {
  let arg = JSON.stringify(config);
  if (arg.length > 64 * 1024) {
    // Too long for a command line (a 2.2 MB canned answer): handed over as a file.
    const file = join(mkdtempSync(join(tmpdir(), 'smsgw-bench-')), 'config.json');
    writeFileSync(file, arg);
    arg = `@${file}`;
  }
  const child = fork(join(__dirname, 'servers', script), [arg], {
    cwd: ROOT,
    execArgv: ['--require', 'tsx/cjs', ...execArgv],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    const onExit = (code: number | null): void => reject(new Error(`${script} exited with ${code}`));
    child.once('exit', onExit);
    child.once('message', (m: { ready?: string }) => {
      child.off('exit', onExit);
      if (m.ready) resolve(m.ready);
      else reject(new Error(`${script}: unexpected ${JSON.stringify(m)}`));
    });
  });
  const ask = <T>(msg: Record<string, unknown>): Promise<T> =>
    new Promise<T>((resolve) => {
      const id = ++asks;
      const on = (m: { id?: number; answer?: T }): void => {
        if (m.id !== id) return;
        child.off('message', on);
        resolve(m.answer as T);
      };
      child.on('message', on);
      child.send({ ...msg, id });
    });
  return {
    url,
    child,
    ask,
    cpuMs: () => ask<number>({ cmd: 'cpu' }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        // A disconnect lets the child exit by itself (and write a --cpu-prof profile); kill if it hangs.
        const t = setTimeout(() => child.kill(), 3000);
        child.once('exit', () => {
          clearTimeout(t);
          resolve();
        });
        if (child.connected) child.disconnect();
        else child.kill();
      }),
  };
}

export interface Measured {
  /** Completed calls per second. */
  rate: number;
  /** CPU time of this (client) process per call, µs. */
  cpuUs: number;
  /** CPU time of the server process per call, µs, and its share of one core during the window. */
  serverCpuUs: number;
  serverBusy: number;
  calls: number;
}

/** Runs `op` from `concurrency` loops for `seconds` after a short ramp-up. */
export async function measureRate(
  op: () => Promise<unknown>,
  opts: { seconds: number; concurrency: number; server?: ChildServer | undefined; warmupMs?: number },
): Promise<Measured> {
  let counting = false;
  let done = 0;
  let stop = false;
  let failed: unknown;
  const worker = async (): Promise<void> => {
    while (!stop) {
      try {
        await op();
      } catch (e) {
        failed ??= e;
        stop = true;
      }
      if (counting) done++;
    }
  };
  const workers = Array.from({ length: opts.concurrency }, worker);
  await sleep(opts.warmupMs ?? 300);
  const s0 = opts.server ? await opts.server.cpuMs() : 0;
  counting = true;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await sleep(opts.seconds * 1000);
  counting = false;
  const elapsedMs = performance.now() - t0;
  const cpuMs = cpuMsSince(cpu0);
  const calls = done;
  const s1 = opts.server ? await opts.server.cpuMs() : 0;
  stop = true;
  await Promise.all(workers);
  if (failed !== undefined) throw failed;
  return {
    rate: (calls * 1000) / elapsedMs,
    cpuUs: (cpuMs * 1000) / calls,
    serverCpuUs: ((s1 - s0) * 1000) / calls,
    serverBusy: (s1 - s0) / elapsedMs,
    calls,
  };
}
