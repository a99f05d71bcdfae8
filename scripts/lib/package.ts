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

/** `npm pack` of the working tree, so what users get (the `files` list) is what we test. */
export async function packPackage(destDir: string): Promise<Packed> {
  mkdirSync(destDir, { recursive: true });
  const out = await run(npm, ['pack', '--json', '--pack-destination', destDir], {
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
