/**
 * Where the send node's CPU goes, per function and per file of dist/: runs the regression check's send node
 * workload (outbox off, then on) under the V8 CPU profiler and prints the heaviest self times.
 * Needs dist/ (npm run build). Run: node --expose-gc -r tsx/cjs bench/profile-send.ts   (RUNS, MESSAGES)
 */
import { Session } from 'node:inspector/promises';
import { cpuPerUnit, startBench } from './regress/workloads';

const RUNS = Number(process.env.RUNS ?? 8);
const MESSAGES = Number(process.env.MESSAGES ?? 1000);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

async function main(): Promise<void> {
  const bench = await startBench(MESSAGES);
  const session = new Session();
  session.connect();
  try {
    for (const name of ['send node, outbox off', 'send node, outbox on']) {
      const w = bench.workloads.find((x) => x.name === name)!;
      await w.run(); // warm-up
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 100 });
      await session.post('Profiler.start');
      let cpu = 0;
      for (let i = 0; i < RUNS; i++) cpu += await cpuPerUnit(w);
      const { profile } = (await session.post('Profiler.stop')) as unknown as {
        profile: { nodes: ProfileNode[] };
      };
      const total = profile.nodes.reduce((s, n) => s + (n.hitCount ?? 0), 0);
      const byFn = new Map<string, number>();
      const byFile = new Map<string, number>();
      for (const n of profile.nodes) {
        const url = n.callFrame.url.replace(/^.*\/(dist|node_modules)\//, '$1/');
        const fn = `${n.callFrame.functionName || '(anonymous)'} ${url}:${n.callFrame.lineNumber + 1}`;
        byFn.set(fn, (byFn.get(fn) ?? 0) + (n.hitCount ?? 0));
        const file = url.startsWith('node_modules/')
          ? url
              .split('/')
              .slice(0, url.split('/')[1]!.startsWith('@') ? 3 : 2)
              .join('/')
          : url || `(${n.callFrame.functionName || 'native'})`;
        byFile.set(file, (byFile.get(file) ?? 0) + (n.hitCount ?? 0));
      }
      const top = (m: Map<string, number>, k: number): string =>
        [...m.entries()]
          .sort((a, b) => b[1] - a[1])
          .slice(0, k)
          .map(([f, h]) => `  ${((100 * h) / total).toFixed(1).padStart(5)} %  ${f}`)
          .join('\n');
      console.log(`\n== ${name}: ${(cpu / RUNS).toFixed(1)} µs CPU per msg; self time by file or package:`);
      console.log(top(byFile, 25));
      console.log(`-- by function:`);
      console.log(top(byFn, 30));
    }
  } finally {
    session.disconnect();
    await bench.stop();
  }
}

main()
  .catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(() => setTimeout(() => process.exit(), 100).unref());
