/**
 * Benchmark 7, footprint:
 *  - time to `require` the package's Node-RED node modules (nodes/*.js → dist/), in fresh processes, median;
 *    beside `undici` alone (our largest dependency) and the `soap` package (what users would pick instead);
 *  - installed size of the production dependencies (the package.json `dependencies` closure in node_modules)
 *    and of the package's own files, beside the `soap` package's closure;
 *  - memory of an idle deployed flow with one config node and every node type, above the same Node-RED
 *    runtime with an empty tab (own process each, after a full GC).
 * Needs dist/ (npm run build). Run: npx tsx bench/footprint.ts
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT, emit, median, printTable, round } from './lib';

const RUNS = Number(process.env.RUNS ?? 7);

function requireMs(code: string): number {
  const script = `const t0 = process.hrtime.bigint(); ${code}; process.stdout.write(String(Number(process.hrtime.bigint() - t0) / 1e6));`;
  return Number(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' }));
}

function dirSize(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isSymbolicLink()) continue;
    total += e.isDirectory() ? dirSize(p) : lstatSync(p).size;
  }
  return total;
}

/** The installed directories of `names` and everything they depend on (node resolution from `from`). */
function closure(
  names: readonly string[],
  from: string,
  seen = new Map<string, string>(),
): Map<string, string> {
  for (const name of names) {
    let dir = from;
    let found: string | undefined;
    for (;;) {
      const cand = join(dir, 'node_modules', name);
      if (existsSync(join(cand, 'package.json'))) {
        found = cand;
        break;
      }
      const up = dirname(dir);
      if (up === dir) break;
      dir = up;
    }
    if (!found || seen.has(found)) continue;
    seen.set(found, name);
    const pkg = JSON.parse(readFileSync(join(found, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    closure(Object.keys(pkg.dependencies ?? {}), found, seen);
  }
  return seen;
}

function memoryOf(flow: 'empty' | 'every'): { rss: number; heap: number } {
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', '--require', 'tsx/cjs', join(__dirname, 'servers', 'idle-flow.ts'), flow],
    { cwd: ROOT, encoding: 'utf8' },
  );
  return JSON.parse(out.trim().split('\n').pop()!) as { rss: number; heap: number };
}

function main(): void {
  const nodeFiles = Object.values(
    (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        'node-red': { nodes: Record<string, string> };
      }
    )['node-red'].nodes,
  );
  const ours = nodeFiles.map((f) => `require('./${f}')`).join(';');
  const req: Record<string, number[]> = { 'our 11 node modules': [], 'undici alone': [], 'soap package': [] };
  const codes: Record<string, string> = {
    'our 11 node modules': ours,
    'undici alone': "require('undici')",
    'soap package': "require('soap')",
  };
  requireMs(ours); // warm the file-system cache
  for (let i = 0; i < RUNS; i++) for (const [k, c] of Object.entries(codes)) req[k]!.push(requireMs(c));
  const requireRows = Object.entries(req).map(([what, xs]) => ({
    what,
    'median ms': round(median(xs), 1),
    'min ms': round(Math.min(...xs), 1),
  }));

  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const size = (names: string[]) => {
    const dirs = closure(names, ROOT);
    return { packages: dirs.size, bytes: [...dirs.keys()].reduce((a, d) => a + dirSize(d), 0) };
  };
  const prod = size(Object.keys(pkg.dependencies));
  const soap = size(['soap']);
  let ownBytes: number;
  try {
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    ) as { unpackedSize: number }[];
    ownBytes = packed[0]!.unpackedSize;
  } catch {
    ownBytes = NaN;
  }
  const sizeRows = [
    { what: 'our production dependencies', packages: prod.packages, MB: round(prod.bytes / 1e6) },
    { what: 'our package files (npm pack)', packages: 1, MB: round(ownBytes / 1e6) },
    { what: 'soap package + its dependencies', packages: soap.packages, MB: round(soap.bytes / 1e6) },
  ];

  const empty = [memoryOf('empty'), memoryOf('empty'), memoryOf('empty')];
  const every = [memoryOf('every'), memoryOf('every'), memoryOf('every')];
  const med = (xs: { rss: number; heap: number }[], k: 'rss' | 'heap') => median(xs.map((x) => x[k]));
  const memRows = [
    {
      flow: 'empty tab (baseline)',
      'RSS MB': round(med(empty, 'rss') / 1e6, 1),
      'heap MB': round(med(empty, 'heap') / 1e6, 1),
    },
    {
      flow: 'config + every node type',
      'RSS MB': round(med(every, 'rss') / 1e6, 1),
      'heap MB': round(med(every, 'heap') / 1e6, 1),
    },
  ];
  const extra = {
    rssMB: round((med(every, 'rss') - med(empty, 'rss')) / 1e6, 1),
    heapMB: round((med(every, 'heap') - med(empty, 'heap')) / 1e6, 1),
  };
  printTable(`Require time, fresh process each, median of ${RUNS}`, requireRows);
  printTable('Installed size', sizeRows);
  printTable('Idle deployed flow (own process, after full GC, median of 3)', memRows);
  console.log(`extra for our flow: ${JSON.stringify(extra)}`);
  const oursMs = requireRows[0]!['median ms'];
  emit('footprint', {
    require: requireRows,
    size: sizeRows,
    memory: memRows,
    extraMemory: extra,
    ratios: {
      requireVsUndici: round(oursMs / requireRows[1]!['median ms']),
      requireVsSoap: round(oursMs / requireRows[2]!['median ms']),
      prodDepsVsSoap: round(prod.bytes / soap.bytes),
    },
    targets: { 'require <= 150 ms': oursMs <= 150 },
  });
}

main();
