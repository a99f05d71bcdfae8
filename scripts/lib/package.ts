import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { run } from './proc';

export const ROOT = resolve(__dirname, '..', '..');
export const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  engines?: { node?: string };
  'node-red'?: { version?: string; nodes?: Record<string, string> };
};
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/**
 * The npm that started us (npm run, npx) rather than the first on PATH: under `npm run`, node_modules/.bin comes
 * first and holds the npm 10 that Node-RED 4 depends on, whose `pack` runs `prepare` despite --ignore-scripts
 * (npm/cli#7211, honoured since npm 11).
 */
export function npmCommand(args: string[]): [string, string[]] {
  const cli = process.env.npm_execpath;
  return cli && /npm-cli\.js$/.test(cli) ? [process.execPath, [cli, ...args]] : [npm, args];
}

/** Runs the build unless the caller already did (SMSGW_SKIP_BUILD=1, set by .ci/run after `npm test`). */
export async function ensureBuilt(log: (s: string) => void): Promise<void> {
  if (process.env.SMSGW_SKIP_BUILD === '1') return;
  log('building (npm run build)');
  await run(npm, ['run', 'build', '--silent'], { cwd: ROOT });
}

export interface Packed {
  file: string;
  shasum: string;
  files: string[];
}

/**
 * `npm pack` of the working tree, so what users get (the `files` list) is what we test. Without the `prepare`
 * script (it is `npm run build`): every caller runs ensureBuilt() first, so it would only build the same dist/ and
 * nodes/icons/ again. A git install runs `prepare` for real (test/e2e/git-install.e2e.ts).
 */
export async function packPackage(destDir: string): Promise<Packed> {
  mkdirSync(destDir, { recursive: true });
  const [cmd, args] = npmCommand(['pack', '--json', '--ignore-scripts', '--pack-destination', destDir]);
  const out = await run(cmd, args, {
    cwd: ROOT,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  const info = (JSON.parse(out) as { filename: string; shasum: string; files: { path: string }[] }[])[0];
  if (!info) throw new Error(`npm pack printed nothing useful: ${out}`);
  // npm names scoped tarballs scope-name-version.tgz
  return { file: join(destDir, info.filename), shasum: info.shasum, files: info.files.map((f) => f.path) };
}

/**
 * Installs the packed tarball into a Node-RED user directory with `npm i ./x.tgz`. Skips the install when the
 * same tarball (by shasum) is already there, which keeps restarts fast.
 */
export async function installInto(
  userDir: string,
  packed: Packed,
  log: (s: string) => void,
): Promise<boolean> {
  mkdirSync(userDir, { recursive: true });
  const marker = join(userDir, '.smsgw-installed');
  const installedDir = join(userDir, 'node_modules', ...PKG.name.split('/'));
  if (existsSync(marker) && readFileSync(marker, 'utf8') === packed.shasum && existsSync(installedDir)) {
    return false;
  }
  const pj = join(userDir, 'package.json');
  if (!existsSync(pj)) {
    writeFileSync(pj, JSON.stringify({ name: 'node-red-userdir', private: true, dependencies: {} }, null, 2));
  }
  const local = join(userDir, 'smsgw-package.tgz');
  copyFileSync(packed.file, local);
  rmSync(installedDir, { recursive: true, force: true });
  log(`installing ${PKG.name}@${PKG.version} (${packed.shasum.slice(0, 8)}) into ${userDir}`);
  await run(
    npm,
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--omit=dev', './smsgw-package.tgz'],
    {
      cwd: userDir,
      env: { ...process.env, npm_config_update_notifier: 'false' },
    },
  );
  writeFileSync(marker, packed.shasum);
  return true;
}
