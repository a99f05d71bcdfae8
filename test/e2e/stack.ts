/**
 * The system under test for the end-to-end checks: the emulator plus a real Node-RED with this package installed
 * from its packed tarball, on free ports. Which Node-RED and which node binary come from the environment so the
 * version matrix (scripts/matrix.ts) can run the same checks:
 *   SMSGW_NODE_BIN     node binary for Node-RED (default: the one running the tests)
 *   SMSGW_NODERED_DIR  a node-red package directory (default: the devDependency, 4.1.x)
 *   SMSGW_E2E_OUT      where logs, the user directory and screenshots go (default: test/e2e/out/<label>)
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { startEmulatorProcess, type RunningEmulator } from '../../scripts/lib/emulator';
import { deployFlows, startNodeRed, type RunningNodeRed } from '../../scripts/lib/nodered';
import { ensureBuilt, installInto, packPackage, PKG, ROOT } from '../../scripts/lib/package';
import { freePort } from '../../scripts/lib/proc';

export const MODULE = PKG.name;
export const CATEGORY = 'SMS gateway';
/** Every node type the package promises (the palette shows all but the config node). */
export const NODE_TYPES = [
  'smsgw-config',
  'smsgw-send-sms',
  'smsgw-send-hlr',
  'smsgw-send-udh',
  'smsgw-legacy-send-text',
  'smsgw-balance',
  'smsgw-query-jobs',
  'smsgw-customer',
  'smsgw-call',
  'smsgw-inbound',
  'smsgw-ask',
  'smsgw-dlr',
  'smsgw-hlr-results',
  'smsgw-budget',
  'smsgw-heartbeat',
  'smsgw-optout',
] as const;
export const CONFIG_TYPE = 'smsgw-config';
export const PALETTE_TYPES = NODE_TYPES.filter((t) => t !== CONFIG_TYPE);

export const nodeBin = process.env.SMSGW_NODE_BIN ? resolve(process.env.SMSGW_NODE_BIN) : process.execPath;
export const nodeRedDir = process.env.SMSGW_NODERED_DIR
  ? resolve(process.env.SMSGW_NODERED_DIR)
  : dirname(require.resolve('node-red/package.json', { paths: [ROOT] }));
export const nodeRedVersion = (
  JSON.parse(readFileSync(join(nodeRedDir, 'package.json'), 'utf8')) as { version: string }
).version;
export const outDir = process.env.SMSGW_E2E_OUT || join(ROOT, 'test', 'e2e', 'out', `nr${nodeRedVersion}`);
export const screenshots = process.env.SMSGW_SCREENSHOTS === '1';

export interface Stack {
  emulator: RunningEmulator;
  nodeRed: RunningNodeRed;
  nodeRedLog: string;
  /** Node-RED's user directory (flows.json, flows_cred.json). */
  userDir: string;
  stop(): Promise<void>;
}

let packed: Promise<Awaited<ReturnType<typeof packPackage>>> | undefined;
/** Builds and packs once per test run. */
export function packOnce(): ReturnType<typeof packPackage> {
  packed ??= ensureBuilt(() => undefined).then(() => packPackage(join(ROOT, 'test', 'e2e', 'out', 'pack')));
  return packed;
}

/**
 * Starts emulator and Node-RED (fresh flows, log in `<outDir>/<name>.log`), optionally deploying flows;
 * `settings` go into settings.js (adminAuth, say: then deploy with a token, deployFlows' `headers`).
 */
export async function startStack(
  name: string,
  flows?: (emulatorUrl: string) => unknown[],
  settings?: Record<string, unknown>,
): Promise<Stack> {
  mkdirSync(outDir, { recursive: true });
  const tgz = await packOnce();
  const userDir = join(outDir, 'userdir');
  await installInto(userDir, tgz, () => undefined);
  // Each stack starts with a fresh emulator (ids from 1 again) and fresh flows: no state of an earlier stack (a
  // reader's cursor, the keys it saw) may make it skip what this emulator sends.
  for (const dir of ['smsgw-state', 'smsgw-outbox'])
    rmSync(join(userDir, dir), { recursive: true, force: true });
  rmSync(join(userDir, 'smsgw-state.manifest.json'), { force: true });
  const emulator = await startEmulatorProcess(0, {
    logFile: join(outDir, `${name}-emulator.log`),
  });
  const nodeRedLog = join(outDir, `${name}-node-red.log`);
  mkdirSync(dirname(nodeRedLog), { recursive: true });
  let nodeRed: RunningNodeRed;
  try {
    nodeRed = await startNodeRed({
      nodeRedDir,
      nodeBin,
      userDir,
      port: await freePort(),
      freshFlows: true,
      logFile: nodeRedLog,
      ...(settings ? { settings } : {}),
    });
  } catch (e) {
    await emulator.proc.stop();
    throw e;
  }
  const stack: Stack = {
    emulator,
    nodeRed,
    nodeRedLog,
    userDir,
    async stop() {
      await Promise.all([nodeRed.proc.stop(), emulator.proc.stop()]);
    },
  };
  if (flows) {
    try {
      await deployFlows(nodeRed.url, flows(emulator.url));
    } catch (e) {
      await stack.stop();
      throw e;
    }
  }
  return stack;
}
