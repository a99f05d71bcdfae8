/**
 * Profiling aid for the DLR page of benchmark 10 (bench/anchor.ts): `smsgw-dlr` in "poll on input" mode in the
 * embedded runtime, PAGES pages of 5,000 reports from bench/servers/dlr-pages.ts, after WARMUP pages. Prints per
 * page the time to the last record msg, the CPU, the longest event-loop delay, and the GC pauses (kind, ms) seen
 * during the page; with PROFILE=<dir> writes a CPU profile of the measured pages only (node:inspector), which
 * /tmp-side tools or Chrome DevTools can read (look for the longest busy stretches between idle samples).
 * Needs dist/. Run: node --expose-gc -r tsx/cjs bench/profile-dlr.ts   (PAGES=10, WARMUP=3, PROFILE=/tmp/prof)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import { PerformanceObserver, monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { startRuntime } from './embedded';
import { catalogue } from './pkg';
import { cpuMsSince, median, round, sleep, startChild } from './lib';

const RECORDS = 5000;
const PAGES = Number(process.env.PAGES ?? 10);
const WARMUP = Number(process.env.WARMUP ?? 3);
const PROFILE = process.env.PROFILE;

/** SPANS=1: the synchronous stretches of a page, timed by wrapping the package's own functions (dist). */
const spans: Record<string, number> = {};
const span = (name: string, ms: number): void => {
  spans[name] = Math.max(spans[name] ?? 0, ms);
};
const load = createRequire(__filename);

function instrument(): void {
  const decode = load('../dist/soap/decode') as typeof import('../src/soap/decode');
  const cursor = load(
    '../dist/nodes/polling/report-cursor',
  ) as typeof import('../src/nodes/polling/report-cursor');
  const emit = load('../dist/nodes/polling/emit') as typeof import('../src/nodes/polling/emit');
  const stateFile = load('../dist/store/state-file') as typeof import('../src/store/state-file');
  let endAt = 0;
  const create = decode.createResponseDecoder;
  (decode as { createResponseDecoder: typeof create }).createResponseDecoder = (op, opts) => {
    const d = create(op, opts);
    return {
      write(chunk) {
        const t = performance.now();
        d.write(chunk);
        span('decoder.write (one chunk)', performance.now() - t);
      },
      end() {
        endAt = performance.now();
        const v = d.end();
        span('decoder.end', performance.now() - endAt);
        return v;
      },
    };
  };
  const read = cursor.readNewReports;
  (cursor as { readNewReports: typeof read }).readNewReports = (state, r) =>
    read(state, {
      ...r,
      query: (start, limit) => {
        if (endAt) span('decoder.end -> next query (dedup, msgs built)', performance.now() - endAt);
        endAt = 0;
        return r.query(start, limit);
      },
      onPage: (fresh) => {
        const t = performance.now();
        r.onPage(fresh);
        span('onPage (msgs built)', performance.now() - t);
      },
    });
  const batches = emit.emitInBatches;
  (emit as { emitInBatches: typeof batches }).emitInBatches = (send, messages, stopped) => {
    if (endAt) span('decoder.end (last page) -> first batch', performance.now() - endAt);
    endAt = 0;
    let t = performance.now();
    let n = 0;
    return batches(
      (m) => {
        if (n++ % 250 === 0) t = performance.now();
        send(m);
        if (n % 250 === 0) span('one batch of 250 sends', performance.now() - t);
      },
      messages,
      stopped,
    );
  };
  const save = stateFile.StateFile.prototype.save;
  stateFile.StateFile.prototype.save = function (this: InstanceType<typeof stateFile.StateFile>, state) {
    const t = performance.now();
    const p = save.call(this, state);
    span('state save (sync part)', performance.now() - t);
    return p;
  };
}

const post = <T>(s: Session, method: string, params?: object): Promise<T> =>
  new Promise((resolve, reject) =>
    s.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res as T))),
  );

async function main(): Promise<void> {
  if (process.env.SPANS) instrument();
  const pages = await startChild('dlr-pages.ts', { records: RECORDS });
  const rt = await startRuntime();
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
        wires: [['out']],
      },
      { id: 'out', type: 'junction' },
    ],
    { gatewayNamespace: catalogue.DEFAULT_NAMESPACES.gateway },
  );
  const page = async (): Promise<void> => {
    await pages.ask<number>({ cmd: 'arm' });
    const out = rt.node('out');
    await new Promise<void>((resolve) => {
      let seen = 0;
      const onOut = (): void => {
        if (++seen < RECORDS) return;
        out.removeListener('input', onOut);
        resolve();
      };
      out.on('input', onOut);
      rt.node('dlr').receive({ payload: '' });
    });
    await sleep(300); // the trigger's follow-up request of a full page, and its state save
  };
  for (let i = 0; i < WARMUP; i++) await page();
  for (const k of Object.keys(spans)) delete spans[k];
  const gcs: { kind: number; ms: number; at: number }[] = [];
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      gcs.push({
        kind: (e as unknown as { detail: { kind: number } }).detail.kind,
        ms: e.duration,
        at: e.startTime,
      });
  });
  obs.observe({ entryTypes: ['gc'] });
  const session = new Session();
  if (PROFILE) {
    session.connect();
    await post(session, 'Profiler.enable');
    await post(session, 'Profiler.setSamplingInterval', { interval: Number(process.env.INTERVAL_US ?? 500) });
    await post(session, 'Profiler.start');
  }
  const rows: Record<string, number | string>[] = [];
  for (let i = 0; i < PAGES; i++) {
    const eld = monitorEventLoopDelay({ resolution: 1 });
    eld.enable();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const g0 = gcs.length;
    await page();
    const ms = performance.now() - t0 - 300;
    eld.disable();
    const pageGcs = gcs.slice(g0);
    const pageSpans = Object.fromEntries(Object.entries(spans).map(([k, v]) => [k, round(v, 1)]));
    for (const k of Object.keys(spans)) delete spans[k];
    rows.push({
      ms: round(ms, 1),
      cpuMs: round(cpuMsSince(c0), 1),
      loopMaxMs: round(eld.max / 1e6, 1),
      gcMs: round(
        pageGcs.reduce((a, g) => a + g.ms, 0),
        1,
      ),
      // kinds: 1 scavenge, 2 mark-compact, 4 incremental marking, 8 weak callbacks
      longestGc: pageGcs.length
        ? `${round(Math.max(...pageGcs.map((g) => g.ms)), 1)} (kind ${pageGcs.reduce((a, g) => (g.ms > a.ms ? g : a)).kind})`
        : '',
      ...pageSpans,
    });
  }
  if (PROFILE) {
    const { profile } = await post<{ profile: unknown }>(session, 'Profiler.stop');
    mkdirSync(PROFILE, { recursive: true });
    const file = join(PROFILE, `dlr-${Date.now()}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    console.log(`profile: ${file}`);
    session.disconnect();
  }
  obs.disconnect();
  console.table(rows);
  console.log(
    `median ms ${round(median(rows.map((r) => r.ms as number)), 1)}, CPU ms ${round(median(rows.map((r) => r.cpuMs as number)), 1)}, loop max ms ${round(median(rows.map((r) => r.loopMaxMs as number)), 1)}`,
  );
  await rt.stop().catch(() => undefined);
  await pages.stop();
  process.exit(0);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
