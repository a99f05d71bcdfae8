/**
 * `npm start`: the gateway emulator plus a real Node-RED with this package installed from its packed tarball and
 * the example flows deployed against the emulator. Ctrl-C stops both.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { CONFIG_TYPE, examplesForDeploy, listExamples, type FlowNode } from './lib/flows';
import { deployFlows, getNodeSets, startNodeRed } from './lib/nodered';
import { assertPortFree } from './lib/proc';
import { freshUserDir, startSandboxEmulator } from './lib/sandbox-state';
import { ensureBuilt, installInto, packPackage, PKG, ROOT } from './lib/package';

const log = (s: string): void => console.log(`[sandbox] ${s}`);

function portOption(value: string | undefined, envName: string, fallback: number): number {
  const raw = value ?? process.env[envName] ?? String(fallback);
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`invalid port "${raw}" (${envName})`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'emulator-port': { type: 'string' },
      port: { type: 'string' },
      reset: { type: 'boolean', default: false },
      fresh: { type: 'boolean', default: false },
      'skip-build': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(`usage: npm start -- [--port 1880] [--emulator-port 8080] [--reset] [--fresh]
  --port           Node-RED editor port (env SMSGW_NODERED_PORT, default 1880)
  --emulator-port  gateway emulator port (env SMSGW_EMULATOR_PORT, default 8080)
  --reset          replace the sandbox flows with the example flows again (the emulator's jobs stay)
  --fresh          start from nothing: Node-RED's userDir (flows, credentials, poller cursors, outbox)
                   and the emulator's state (jobs, reports, balance, JobId counter) both reset`);
    return;
  }
  const emulatorPort = portOption(values['emulator-port'], 'SMSGW_EMULATOR_PORT', 8080);
  const nrPort = portOption(values.port, 'SMSGW_NODERED_PORT', 1880);
  const userDir = join(ROOT, '.sandbox');
  await assertPortFree(nrPort, 'choose another with --port or SMSGW_NODERED_PORT');
  await assertPortFree(emulatorPort, 'choose another with --emulator-port or SMSGW_EMULATOR_PORT');

  if (values.fresh) {
    const removed = freshUserDir(userDir);
    log(`fresh start: removed ${removed.length ? removed.join(', ') : 'nothing'} from .sandbox`);
  }

  if (!values['skip-build'] && process.env.npm_lifecycle_event !== 'start') await ensureBuilt(log);
  const packed = await packPackage(join(userDir, '.pack'));
  const installed = await installInto(userDir, packed, log);
  if (!installed)
    log(`${PKG.name}@${PKG.version} unchanged since the last start (tarball ${packed.shasum.slice(0, 8)})`);

  // The emulator's state lives beside Node-RED's: JobIds continue where the pollers' cursors left them.
  const emulator = await startSandboxEmulator(userDir, emulatorPort, {
    logFile: join(userDir, 'emulator.log'),
  });
  const flowFile = join(userDir, 'flows.json');
  if (values.reset)
    for (const f of ['flows.json', 'flows_cred.json']) rmSync(join(userDir, f), { force: true });
  const hadFlows = existsSync(flowFile);
  if (hadFlows) repointConfigNodes(flowFile, emulator.url);
  const nodeRed = await startNodeRed({
    nodeRedDir: dirname(require.resolve('node-red/package.json', { paths: [ROOT] })),
    nodeBin: process.execPath,
    userDir,
    port: nrPort,
    logFile: join(userDir, 'node-red.log'),
    echo: true,
  }).catch(async (e: unknown) => {
    await emulator.proc.stop();
    throw e;
  });

  let stopping = false;
  const stop = async (exitCode = 0): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log('stopping Node-RED and the emulator');
    await Promise.all([nodeRed.proc.stop(), emulator.proc.stop()]);
    process.exit(exitCode);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  for (const p of [nodeRed.proc, emulator.proc]) {
    p.child.once('exit', (code) => {
      if (stopping) return;
      console.error(`[sandbox] a child exited unexpectedly (${code}); stopping`);
      void stop(1);
    });
  }

  const sets = await getNodeSets(nodeRed.url, PKG.name);
  const broken = sets.filter((s) => s.err || !s.enabled);
  if (sets.length === 0) log(`WARNING: Node-RED lists no node sets of ${PKG.name}`);
  for (const s of broken) log(`WARNING: node set ${s.id} did not load: ${s.err ?? 'disabled'}`);

  const examples = listExamples();
  if (!hadFlows) {
    await deployFlows(nodeRed.url, examplesForDeploy(emulator.url, examples));
    log(
      `deployed ${examples.length} example flow(s): ${examples.map((e) => e.name).join(', ') || '(none yet)'}`,
    );
  } else {
    log('kept your sandbox flows (npm start -- --reset brings the examples back)');
  }

  console.log(`
  Node-RED editor:  ${nodeRed.url}/
  Gateway emulator: ${emulator.url}/   (its console; account demo / demo-password)
  Logs:             .sandbox/node-red.log, .sandbox/emulator.log
  Kept until --fresh: flows and poller cursors in .sandbox, emulator jobs in .sandbox/emulator-state.json

  Press Ctrl-C to stop both.
`);
}

/**
 * Kept flows may point at an emulator port from an earlier start: follow the emulator to its new address. Done on
 * the flow file before Node-RED starts, so no node ever polls the old address; credentials live in another file.
 */
function repointConfigNodes(flowFile: string, emulatorUrl: string): void {
  const flows = JSON.parse(readFileSync(flowFile, 'utf8')) as FlowNode[];
  let changed = 0;
  for (const n of flows) {
    const base = typeof n.baseUrl === 'string' ? n.baseUrl : '';
    if (
      n.type === CONFIG_TYPE &&
      /^http:\/\/(127\.0\.0\.1|localhost):\d+/.test(base) &&
      !base.startsWith(emulatorUrl)
    ) {
      n.baseUrl = base.replace(/^http:\/\/[^/]+/, emulatorUrl);
      changed++;
    }
  }
  if (changed) {
    writeFileSync(flowFile, JSON.stringify(flows, null, 4));
    log(`re-pointed ${changed} gateway config node(s) at ${emulatorUrl}`);
  }
}

main().catch((e: unknown) => {
  console.error(
    `[sandbox] ${process.env.SMSGW_DEBUG ? ((e as Error).stack ?? String(e)) : (e as Error).message}`,
  );
  process.exit(1);
});
