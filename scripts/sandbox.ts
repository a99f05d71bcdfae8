/**
 * `npm start`: the gateway emulator, an MQTT broker and a real Node-RED (a release of its own, lib/nodered-runtime.ts)
 * with this package installed from its packed tarball and the example flows deployed against the emulator. Ctrl-C
 * stops them all; the emulator may end on its own and be started again (lib/sandbox-emulator.ts).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { counted } from '../src/count';
import { CONFIG_TYPE, examplesForDeploy, listExamples, repointMqttBrokers, type FlowNode } from './lib/flows';
import { SANDBOX_MQTT, sandboxMqttPort, startMqttBroker, type RunningBroker } from './lib/mqtt-broker';
import { deployFlows, getNodeSets, startNodeRed } from './lib/nodered';
import { devNodeRedDir, ensureSandboxNodeRed, repoNodeRedModules } from './lib/nodered-runtime';
import { assertPortFree } from './lib/proc';
import { howItEnded, SandboxEmulator, shownPath } from './lib/sandbox-emulator';
import { freshUserDir } from './lib/sandbox-state';
import { ensureBuilt, installInto, packPackage, PKG, ROOT } from './lib/package';
import { READINGS_TOPIC, readTypedLines, stdinKind, typingHint } from './lib/typed-input';

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
      'mqtt-port': { type: 'string' },
      'skip-build': { type: 'boolean', default: false },
      'user-dir': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(`usage: npm start -- [--port 1880] [--emulator-port 8080] [--mqtt-port 1883] [--reset] [--fresh]
                    [--user-dir DIR]
  --port           Node-RED editor port (env SMSGW_NODERED_PORT, default 1880)
  --emulator-port  gateway emulator port (env SMSGW_EMULATOR_PORT, default 8080)
  --mqtt-port      MQTT broker port (env SMSGW_MQTT_PORT, default 1883, or a free one when 1883 is taken)
  --reset          replace the sandbox flows with the example flows again (the emulator's jobs stay)
  --fresh          start from nothing: Node-RED's userDir (flows, credentials, poller cursors, outbox)
                   and the emulator's state (jobs, reports, balance, JobId counter) both reset
  --user-dir       the sandbox's directory (env SMSGW_SANDBOX_DIR, default .sandbox)

Lines typed (or piped) into its stdin: a reading ("-9") is published to ${READINGS_TOPIC},
"<topic> <payload>" to that topic; "emulator" starts the gateway emulator again after it ended.`);
    return;
  }
  const emulatorPort = portOption(values['emulator-port'], 'SMSGW_EMULATOR_PORT', 8080);
  const nrPort = portOption(values.port, 'SMSGW_NODERED_PORT', 1880);
  const userDir = resolve(values['user-dir'] ?? process.env.SMSGW_SANDBOX_DIR ?? join(ROOT, '.sandbox'));
  await assertPortFree(nrPort, 'choose another with --port or SMSGW_NODERED_PORT');
  await assertPortFree(emulatorPort, 'choose another with --emulator-port or SMSGW_EMULATOR_PORT');
  const askedMqtt = values['mqtt-port'] ?? process.env.SMSGW_MQTT_PORT;
  const mqttPort = await sandboxMqttPort(
    askedMqtt === undefined ? undefined : portOption(askedMqtt, 'SMSGW_MQTT_PORT', SANDBOX_MQTT.port),
    log,
  );

  if (values.fresh) {
    const removed = freshUserDir(userDir);
    log(`fresh start: removed ${removed.length ? removed.join(', ') : 'nothing'} from ${shownPath(userDir)}`);
  }

  if (!values['skip-build'] && process.env.npm_lifecycle_event !== 'start') await ensureBuilt(log);
  const packed = await packPackage(join(userDir, '.pack'));
  const installed = await installInto(userDir, packed, log);
  if (!installed)
    log(`${PKG.name}@${PKG.version} unchanged since the last start (tarball ${packed.shasum.slice(0, 8)})`);

  // Node-RED as a user has it (not the repository's copy, see lib/nodered-runtime.ts), before anything starts.
  const nodeRedDir = await sandboxNodeRed();

  const input = stdinKind();
  let reading = input !== 'none';
  // The emulator's state lives beside Node-RED's: JobIds continue where the pollers' cursors left them.
  const emulator = new SandboxEmulator({
    userDir,
    port: emulatorPort,
    logFile: join(userDir, 'emulator.log'),
    log,
    canType: () => reading,
  });
  const firstEmulator = await emulator.start();
  const emulatorUrl = firstEmulator.url;
  // the MQTT example's broker, so that example runs as imported
  let broker: RunningBroker;
  try {
    broker = await startMqttBroker(mqttPort);
  } catch (e) {
    await emulator.stop();
    throw e;
  }
  const flowFile = join(userDir, 'flows.json');
  if (values.reset)
    for (const f of ['flows.json', 'flows_cred.json']) rmSync(join(userDir, f), { force: true });
  const hadFlows = existsSync(flowFile);
  if (hadFlows) repointConfigNodes(flowFile, emulatorUrl, broker.port);
  const denied = repoNodeRedModules();
  const nodeRed = await startNodeRed({
    nodeRedDir,
    nodeBin: process.execPath,
    userDir,
    port: nrPort,
    logFile: join(userDir, 'node-red.log'),
    echo: true,
    // the repository's dev tools that are Node-RED modules are no part of the sandbox's palette
    ...(denied.length ? { settings: { externalModules: { palette: { denyList: denied } } } } : {}),
  }).catch(async (e: unknown) => {
    await Promise.all([emulator.stop(), broker.stop()]);
    throw e;
  });

  let stopping = false;
  const stop = async (exitCode = 0): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log('stopping Node-RED, the emulator and the MQTT broker');
    await Promise.all([nodeRed.proc.stop(), emulator.stop(), broker.stop()]);
    process.exit(exitCode);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  // Node-RED is the sandbox: without it, stop. The emulator may die (SandboxEmulator says how to restart it).
  nodeRed.proc.child.once('exit', (code, signal) => {
    if (stopping) return;
    console.error(
      `[sandbox] Node-RED (pid ${nodeRed.proc.child.pid ?? '?'}) ${howItEnded(code, signal)} ` +
        `(its log: ${shownPath(join(userDir, 'node-red.log'))}); stopping the emulator and the MQTT broker`,
    );
    void stop(1);
  });

  const sets = await getNodeSets(nodeRed.url, PKG.name);
  const broken = sets.filter((s) => s.err || !s.enabled);
  if (sets.length === 0) log(`WARNING: Node-RED lists no node sets of ${PKG.name}`);
  for (const s of broken) log(`WARNING: node set ${s.id} did not load: ${s.err ?? 'disabled'}`);

  const examples = listExamples();
  let flows: FlowNode[];
  if (!hadFlows) {
    flows = examplesForDeploy(emulatorUrl, examples, {
      mqtt: { host: SANDBOX_MQTT.host, port: broker.port },
    });
    await deployFlows(nodeRed.url, flows);
    log(
      `deployed ${counted(examples.length, 'example flow')}: ${examples.map((e) => e.name).join(', ') || '(none yet)'}`,
    );
  } else {
    flows = JSON.parse(readFileSync(flowFile, 'utf8')) as FlowNode[];
    log('kept your sandbox flows (npm start -- --reset brings the examples back)');
  }
  // A reading published before the flows' MQTT in nodes subscribed is lost (QoS 0, not retained): say "ready"
  // only once they listen, or say which topic nobody listens on yet.
  for (const topic of mqttInTopics(flows)) {
    if (!(await broker.listening(topic, 20_000)))
      log(`WARNING: no flow has subscribed to ${topic} yet: a reading published there now is not heard`);
  }

  const hint = typingHint(input);
  const logs = `${shownPath(join(userDir, 'node-red.log'))}, ${shownPath(join(userDir, 'emulator.log'))}`;
  console.log(`
  Node-RED editor:  ${nodeRed.url}/
  Gateway emulator: ${emulatorUrl}/   (its console; account demo / demo-password)
  MQTT broker:      ${broker.url}${hint ? `   (${hint};` : '   ('}
                    ${hint ? 'or ' : ''}mosquitto_pub -p ${broker.port} -t ${READINGS_TOPIC} -m -9)
  Logs:             ${logs}
  Kept until --fresh: flows and poller cursors in ${shownPath(userDir)}, emulator jobs in ${shownPath(join(userDir, 'emulator-state.json'))}

  Press Ctrl-C to stop them all.
`);
  if (input !== 'none') {
    readTypedLines(process.stdin, {
      publish: (topic, payload) =>
        broker.publish(topic, payload).then(
          () => log(`published ${payload} to ${topic}`),
          (e: unknown) => log(`could not publish: ${(e as Error).message}`),
        ),
      command: () => void emulator.command(),
      closed: () => {
        reading = false;
      },
    });
  }
}

/** The sandbox's own Node-RED; the repository's copy, loudly, when it cannot be installed (offline, no cache). */
async function sandboxNodeRed(): Promise<string> {
  const devDir = devNodeRedDir();
  const version = (JSON.parse(readFileSync(join(devDir, 'package.json'), 'utf8')) as { version: string })
    .version;
  try {
    return await ensureSandboxNodeRed(version, log);
  } catch (e) {
    log(
      `WARNING: could not install node-red@${version} for the sandbox (${(e as Error).message.split('\n')[0]}); ` +
        `running the repository's copy instead (its log says v${version}-git)`,
    );
    return devDir;
  }
}

/**
 * Kept flows may point at an emulator or MQTT broker port from an earlier start: follow both to their new addresses.
 * Done on the flow file before Node-RED starts, so no node ever polls the old address; credentials live in another
 * file.
 */
function repointConfigNodes(flowFile: string, emulatorUrl: string, mqttPort: number): void {
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
  const brokers = repointMqttBrokers(flows, mqttPort);
  if (changed || brokers) writeFileSync(flowFile, JSON.stringify(flows, null, 4));
  if (changed) log(`re-pointed ${counted(changed, 'gateway config node')} at ${emulatorUrl}`);
  if (brokers)
    log(`re-pointed ${counted(brokers, 'MQTT broker config node')} on this machine at port ${mqttPort}`);
}

main().catch((e: unknown) => {
  console.error(
    `[sandbox] ${process.env.SMSGW_DEBUG ? ((e as Error).stack ?? String(e)) : (e as Error).message}`,
  );
  process.exit(1);
});

/** The topics of the enabled MQTT in nodes on enabled tabs that use the sandbox's broker. */
function mqttInTopics(flows: FlowNode[]): string[] {
  const off = new Set(flows.filter((n) => n.type === 'tab' && n.disabled === true).map((n) => n.id));
  const topics = flows
    .filter((n) => n.type === 'mqtt in' && n.d !== true && !off.has(String(n.z)))
    .map((n) => n.topic)
    .filter((t): t is string => typeof t === 'string' && t !== '');
  return [...new Set(topics)];
}
