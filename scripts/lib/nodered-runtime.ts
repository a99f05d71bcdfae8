/**
 * The sandbox's own Node-RED: the devDependency's version, installed from npm once into .cache/, so that the
 * sandbox runs what a user runs, not the copy in the repository's node_modules. Run from there,
 * Node-RED
 *  - calls itself `v4.1.15-git`: @node-red/runtime appends `-git` when `../../../../.git` exists beside it, which
 *    is this repository's .git;
 *  - loads every Node-RED module of the repository's devDependencies (node-red-contrib-soap, a benchmark's): its
 *    registry scans each node_modules folder from its core nodes up to the file system root.
 * The second holds for any Node-RED inside the repository (.cache/ included), so the sandbox also denies those
 * modules by name (`externalModules.palette.denyList`, which Node-RED applies to loading too).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { npmCommand, PKG, ROOT } from './package';
import { run } from './proc';

/** The version of the devDependency node-red (the one the tests and the e2e suite use). */
export function devNodeRedDir(): string {
  return dirname(require.resolve('node-red/package.json', { paths: [ROOT] }));
}

const versionIn = (pkgDir: string): string | undefined => {
  try {
    return (JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
};

/**
 * `node-red@<version>` in `<cacheRoot>/node-red-<version>` (default: the repository's .cache/), installed on the
 * first call (~20 s from npm's cache, ~120 MB) and reused after. Returns the node-red package directory.
 */
export async function ensureSandboxNodeRed(
  version: string,
  log: (s: string) => void,
  cacheRoot = join(ROOT, '.cache'),
): Promise<string> {
  const prefix = join(cacheRoot, `node-red-${version}`);
  const dir = join(prefix, 'node_modules', 'node-red');
  if (versionIn(dir) === version && existsSync(join(dir, 'red.js'))) return dir;
  mkdirSync(prefix, { recursive: true });
  const pj = join(prefix, 'package.json');
  if (!existsSync(pj)) writeFileSync(pj, JSON.stringify({ name: 'smsgw-sandbox-node-red', private: true }));
  log(`installing node-red@${version} for the sandbox into ${prefix} (once)`);
  const [cmd, args] = npmCommand([
    'install',
    '--no-audit',
    '--no-fund',
    '--prefer-offline',
    '--omit=dev',
    '--no-save',
    `node-red@${version}`,
  ]);
  await run(cmd, args, { cwd: prefix, env: { ...process.env, npm_config_update_notifier: 'false' } });
  if (versionIn(dir) !== version) throw new Error(`npm did not install node-red@${version} into ${prefix}`);
  return dir;
}

/** Whether a package.json makes its folder a Node-RED module (a `node-red` object, as the registry checks). */
function isNodeRedModule(pkgDir: string): string | undefined {
  try {
    const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
      name?: string;
      'node-red'?: unknown;
    };
    return typeof pkg['node-red'] === 'object' && pkg['node-red'] !== null ? pkg.name : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Node-RED modules in `<root>/node_modules` (the repository's dev tools and benchmark baselines), this package
 * excepted: what a Node-RED inside the repository would load beside the sandbox's own modules.
 */
export function repoNodeRedModules(root = ROOT): string[] {
  const base = join(root, 'node_modules');
  const names: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(base);
  } catch {
    return [];
  }
  for (const e of entries) {
    const dirs = e.startsWith('@')
      ? (() => {
          try {
            return readdirSync(join(base, e)).map((n) => join(base, e, n));
          } catch {
            return [];
          }
        })()
      : [join(base, e)];
    for (const d of dirs) {
      const name = isNodeRedModule(d);
      if (name && name !== PKG.name) names.push(name);
    }
  }
  return names.sort();
}
