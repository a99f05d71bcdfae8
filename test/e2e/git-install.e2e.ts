/**
 * `npm install <git url>` as a user installing straight from the repository: npm clones it, installs its
 * dependencies, runs `prepare` (the build: dist/ and the palette icons placed beside the node files), packs and
 * installs the result. The repository here is the working tree (tracked and new files, as a commit of them would
 * be) served as git+file://, so nothing leaves the machine but npm's registry look-ups (answered from its cache
 * where it can).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { getNodeSets, startNodeRed, type RunningNodeRed } from '../../scripts/lib/nodered';
import { npmCommand, PKG, ROOT } from '../../scripts/lib/package';
import { freePort, run } from '../../scripts/lib/proc';
import { MODULE, NODE_TYPES, nodeBin, nodeRedDir, outDir, packOnce } from './stack';

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe('git install: npm install git+file://<repository> runs prepare and the palette gets its icons', function () {
  let tmp: string;
  let nodeRed: RunningNodeRed | undefined;

  before(async function () {
    this.timeout(900000);
    tmp = mkdtempSync(join(tmpdir(), 'smsgw-git-install-'));
    // the working tree as a repository: what git tracks plus new files it does not ignore (no dist/, no nodes/icons/)
    const repo = join(tmp, 'repo');
    const files = git(ROOT, 'ls-files', '-z', '--cached', '--others', '--exclude-standard')
      .split('\0')
      .filter(Boolean);
    for (const f of files) {
      try {
        mkdirSync(dirname(join(repo, f)), { recursive: true });
        cpSync(join(ROOT, f), join(repo, f));
      } catch (e) {
        // a file deleted in the working tree but still in the index
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, '-c', 'user.name=test', '-c', 'user.email=test@example.invalid', 'commit', '-q', '-m', 'tree');

    const userDir = join(tmp, 'userdir');
    mkdirSync(userDir);
    writeFileSync(
      join(userDir, 'package.json'),
      JSON.stringify({ name: 'node-red-userdir', private: true, dependencies: {} }),
    );
    const [cmd, args] = npmCommand([
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      `git+file://${repo}`,
    ]);
    const log = await run(cmd, args, {
      cwd: userDir,
      combined: true,
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(outDir, 'git-install-npm.log'), log);
    nodeRed = await startNodeRed({
      nodeRedDir,
      nodeBin,
      userDir,
      port: await freePort(),
      freshFlows: true,
      logFile: join(outDir, 'git-install-node-red.log'),
    });
  });
  after(async function () {
    await nodeRed?.proc.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('installed the built package: dist/ and nodes/icons/ exist although the repository has neither', function () {
    const installed = join(tmp, 'userdir', 'node_modules', ...PKG.name.split('/'));
    const icons = readdirSync(join(ROOT, 'icons')).filter((f) => f.endsWith('.svg'));
    assert.ok(icons.length >= 5, icons.join());
    for (const icon of icons) {
      assert.ok(
        readFileSync(join(installed, 'nodes', 'icons', icon)).equals(readFileSync(join(ROOT, 'icons', icon))),
        icon,
      );
    }
    assert.ok(readFileSync(join(installed, 'dist', 'nodes', 'smsgw-send-sms.js'), 'utf8').length > 0);
    assert.equal(git(join(tmp, 'repo'), 'ls-files', 'dist', 'nodes/icons').trim(), '');
  });

  it('Node-RED loads every node set and serves every node icon from the package', async function () {
    const url = nodeRed!.url;
    const sets = await getNodeSets(url, MODULE);
    const types = new Set(sets.flatMap((s) => s.types));
    for (const s of sets) assert.equal(s.err, undefined, `${s.id}: ${s.err}`);
    for (const t of NODE_TYPES) assert.ok(types.has(t), `node type ${t} is not registered`);
    const listed = (await (
      await fetch(`${url}/icons`, { headers: { Accept: 'application/json' } })
    ).json()) as Record<string, string[]>;
    const icons = [...new Set(Object.keys(PKG['node-red']!.nodes!).flatMap(iconOf))];
    assert.ok(icons.length >= 4);
    for (const icon of icons) {
      assert.ok((listed[MODULE] ?? []).includes(icon), `GET /icons does not list ${icon}`);
      const res = await fetch(`${url}/icons/${MODULE}/${icon}`);
      assert.equal(res.status, 200);
      // a missing icon would be answered with Node-RED's default one: compare the bytes
      assert.equal(await res.text(), readFileSync(join(ROOT, 'icons', icon), 'utf8'), icon);
    }
  });
});

function iconOf(type: string): string[] {
  const m = /\bicon:\s*'([^']+)'/.exec(readFileSync(join(ROOT, 'nodes', `${type}.html`), 'utf8'));
  return m ? [m[1]!] : [];
}

describe('tarball install: what npm says is what the README explains', function () {
  it('npm warns about the prepare script for a tarball install too: the README says so for that install', async function () {
    this.timeout(300000);
    const packed = await packOnce();
    const dir = mkdtempSync(join(tmpdir(), 'smsgw-tarball-install-'));
    try {
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'node-red-userdir', private: true }));
      copyFileSync(packed.file, join(dir, 'smsgw-package.tgz'));
      const [cmd, args] = npmCommand([
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        '--omit=dev',
        './smsgw-package.tgz',
      ]);
      const log = await run(cmd, args, {
        cwd: dir,
        combined: true,
        env: { ...process.env, npm_config_update_notifier: 'false' },
      });
      mkdirSync(outDir, { recursive: true });
      writeFileSync(join(outDir, 'tarball-install-npm.log'), log);
      const warned = /allowScripts/.test(log) && log.includes(`${PKG.name}@`);
      const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
      const install = readme.slice(
        readme.indexOf('## Install'),
        readme.indexOf('\n## ', readme.indexOf('## Install') + 1),
      );
      const about = install.split(/\n\s*\n/).filter((p) => /allowScripts/.test(p));
      if (warned) {
        assert.ok(
          about.length > 0,
          "npm warns about allowScripts; the README's Install section does not say so",
        );
        assert.ok(
          about.some((p) => /tarball/.test(p) && /registry/.test(p)),
          `npm warns for a tarball install, the README explains it only for: ${about.join(' / ')}`,
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
