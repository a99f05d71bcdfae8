/**
 * How the Redis client was chosen (docs/scaling.md): ioredis against node-redis (@redis/client) on the commands
 * the coordination sends, against one local redis-server. Not part of `npm run bench` (it installs both clients
 * into a temporary directory with npm first): `npx tsx bench/redis-clients.ts [rounds]`.
 *
 * Per command: round trips per second one at a time (what a lease renewal or a record's drop waits for) and with
 * 100 in flight; then the time to require each library, and its install size and package count.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedisServer } from '../test/scaling/redis-server';

const ROUNDS = Number(process.argv[2] ?? 3);

/** Runs in a child process per client and round: prints one JSON line. */
const CHILD = `
const which = process.argv[1], port = Number(process.argv[2]), dir = process.argv[3];
const SCRIPT = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0";
(async () => {
  const t0 = performance.now();
  let cmd, close;
  if (which === 'ioredis') {
    const Redis = require(dir + '/node_modules/ioredis');
    const loadMs = performance.now() - t0;
    const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
    await r.connect();
    const sha = await r.script('LOAD', SCRIPT);
    cmd = { 'SET NX PX': (i) => r.set('k' + (i % 100), 't', 'PX', 15000, 'NX'), 'EVALSHA (renew)': () => r.evalsha(sha, 1, 'lease', 'tok', 15000),
      GET: () => r.get('lease'), HSET: (i) => r.hset('h', 'f' + (i % 1000), 'x'.repeat(200)) };
    close = () => r.quit(); globalThis.loadMs = loadMs;
  } else {
    const { createClient } = require(dir + '/node_modules/@redis/client');
    const loadMs = performance.now() - t0;
    const r = createClient({ socket: { port, host: '127.0.0.1' } });
    await r.connect();
    const sha = await r.scriptLoad(SCRIPT);
    cmd = { 'SET NX PX': (i) => r.set('k' + (i % 100), 't', { PX: 15000, NX: true }), 'EVALSHA (renew)': () => r.evalSha(sha, { keys: ['lease'], arguments: ['tok', '15000'] }),
      GET: () => r.get('lease'), HSET: (i) => r.hSet('h', 'f' + (i % 1000), 'x'.repeat(200)) };
    close = () => r.close(); globalThis.loadMs = loadMs;
  }
  const out = { which, loadMs: Math.round(globalThis.loadMs) };
  for (const [name, fn] of Object.entries(cmd)) {
    for (let i = 0; i < 2000; i++) await fn(i);
    let n = 20000, t = performance.now();
    for (let i = 0; i < n; i++) await fn(i);
    const seq = n / ((performance.now() - t) / 1000);
    n = 100000; t = performance.now(); let next = 0;
    await Promise.all(Array.from({ length: 100 }, async () => { while (next < n) { next++; await fn(next); } }));
    out[name] = [Math.round(seq), Math.round(n / ((performance.now() - t) / 1000))];
  }
  await close();
  console.log(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
`;

function duKb(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const s = statSync(p);
    total += s.isDirectory() ? duKb(p) : Math.ceil(s.size / 1024);
  }
  return total;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const dirs: Record<string, string> = {};
  for (const [which, pkg] of [
    ['ioredis', 'ioredis'],
    ['node-redis', '@redis/client'],
  ] as const) {
    const dir = mkdtempSync(join(tmpdir(), `smsgw-${which}-`));
    writeFileSync(join(dir, 'package.json'), '{"private":true}');
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--silent', pkg], { cwd: dir });
    dirs[which] = dir;
  }
  const redis = await startRedisServer();
  const runs: Record<string, Record<string, unknown>[]> = { ioredis: [], 'node-redis': [] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const which of Object.keys(dirs)) {
        const r = spawnSync(process.execPath, ['-e', CHILD, which, String(redis.port), dirs[which]!], {
          encoding: 'utf8',
        });
        if (r.status !== 0) throw new Error(r.stderr);
        runs[which]!.push(JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, unknown>);
      }
    }
  } finally {
    await redis.close();
  }
  for (const which of Object.keys(dirs)) {
    const modules = join(dirs[which]!, 'node_modules');
    const packages = readdirSync(modules)
      .filter((n) => !n.startsWith('.'))
      .flatMap((n) => (n.startsWith('@') ? readdirSync(join(modules, n)).map((m) => `${n}/${m}`) : [n]));
    const rs = runs[which]!;
    const cmds = Object.keys(rs[0]!).filter((k) => Array.isArray(rs[0]![k]));
    console.log(`${which}: install ${(duKb(modules) / 1024).toFixed(1)} MB, ${packages.length} packages`);
    console.log(`  require: median ${median(rs.map((r) => r.loadMs as number))} ms`);
    for (const c of cmds) {
      const seq = median(rs.map((r) => (r[c] as number[])[0]!));
      const par = median(rs.map((r) => (r[c] as number[])[1]!));
      console.log(`  ${c}: ${seq} round trips/s one at a time, ${par}/s with 100 in flight`);
    }
    rmSync(dirs[which]!, { recursive: true, force: true });
  }
}

void main();
