/**
 * `npm run bench`: builds dist/, runs every benchmark in its own process (one after the other, so they do not
 * compete for the 2 cores), and writes bench/results.json and docs/performance.md with the machine, the
 * versions and the load average. BENCH_ONLY=client,decode runs a subset; BENCH_SKIP_BUILD=1 skips the build.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem, type as osType, release } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './lib';
import { renderMarkdown, type Results } from './report';

const ALL = [
  'envelope',
  'decode',
  'client',
  'nodered',
  'emulator',
  'polling',
  'footprint',
  'invoke',
  'anchor',
  'dlr-page',
  'outbox',
].filter((name) => existsSync(join(__dirname, `${name}.ts`)));
const only = process.env.BENCH_ONLY?.split(',');

function version(pkg: string): string {
  try {
    return (
      JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }
    ).version;
  } catch {
    return '?';
  }
}

function runOne(name: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--require', 'tsx/cjs', join(__dirname, `${name}.ts`)],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let result: unknown;
    let buf = '';
    child.stdout.on('data', (c: Buffer) => {
      buf += c.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.startsWith('BENCH_RESULT '))
          result = (JSON.parse(line.slice(13)) as { result: unknown }).result;
        else console.log(line);
      }
    });
    child.on('exit', (code) =>
      code === 0 && result !== undefined ? resolve(result) : reject(new Error(`${name} exited with ${code}`)),
    );
  });
}

async function main(): Promise<void> {
  const t0 = Date.now();
  if (!process.env.BENCH_SKIP_BUILD) {
    try {
      execFileSync(
        process.execPath,
        [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
        { cwd: ROOT, stdio: 'inherit' },
      );
    } catch {
      console.error('build failed: footprint measures the dist/ that is there');
    }
  }
  const file = join(ROOT, 'bench', 'results.json');
  let previous: Partial<Results> = {};
  try {
    previous = JSON.parse(readFileSync(file, 'utf8')) as Partial<Results>;
  } catch {
    /* first run */
  }
  const results: Results = {
    date: new Date().toISOString(),
    machine: {
      os: `${osType()} ${release()}`,
      cpu: cpus()[0]?.model ?? '?',
      cores: cpus().length,
      memoryGB: Math.round(totalmem() / 2 ** 30),
      loadBefore: loadavg().map((x) => Math.round(x * 100) / 100),
      loadAfter: [],
    },
    versions: {
      node: process.version,
      package: (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
      undici: version('undici'),
      'fast-xml-parser': version('fast-xml-parser'),
      xmlbuilder2: version('xmlbuilder2'),
      saxes: version('saxes'),
      soap: version('soap'),
      'strong-soap': version('strong-soap'),
      'node-red': version('node-red'),
      autocannon: version('autocannon'),
      'node-red-contrib-soap': version('node-red-contrib-soap'),
    },
    benchmarks: only ? { ...(previous.benchmarks ?? {}) } : {},
    seconds: 0,
  };
  if (only && previous.date) {
    results.partial = { rerun: only, earlier: previous.partial?.earlier ?? previous.date };
    // Notes on figures merged in by hand stay with the figures this run keeps.
    if (previous.notes) results.notes = previous.notes;
  }
  for (const name of ALL) {
    if (only && !only.includes(name)) continue;
    console.log(
      `\n=== ${name} (load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}) ===`,
    );
    try {
      results.benchmarks[name] = await runOne(name);
    } catch (e) {
      // One failed benchmark does not cost the figures of the others: it is recorded as failed.
      console.error(e);
      results.benchmarks[name] = { failed: String(e) };
    }
  }
  // The 10-minute polling case is run once by hand (npm run bench:polling-full) and kept beside the results.
  try {
    results.benchmarks.polling10min = JSON.parse(
      readFileSync(join(ROOT, 'bench', 'polling-10min.json'), 'utf8'),
    );
  } catch {
    /* not run */
  }
  results.machine.loadAfter = loadavg().map((x) => Math.round(x * 100) / 100);
  results.seconds = Math.round((Date.now() - t0) / 1000);
  writeFileSync(file, JSON.stringify(results, null, 2) + '\n');
  writeFileSync(join(ROOT, 'docs', 'performance.md'), renderMarkdown(results));
  console.log(`\nwrote bench/results.json and docs/performance.md (${results.seconds} s)`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
