import helper from 'node-red-node-test-helper';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { i18n } from '@node-red/util';
import type { Node, NodeAPI, NodeMessage } from 'node-red';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import smsgwConfig from '../../src/nodes/smsgw-config';
import smsgwSendSms from '../../src/nodes/smsgw-send-sms';
import smsgwSendHlr from '../../src/nodes/smsgw-send-hlr';
import smsgwSendUdh from '../../src/nodes/smsgw-send-udh';
import smsgwLegacySendText from '../../src/nodes/smsgw-legacy-send-text';
import smsgwBalance from '../../src/nodes/smsgw-balance';
import smsgwQueryJobs from '../../src/nodes/smsgw-query-jobs';
import smsgwCustomer from '../../src/nodes/smsgw-customer';
import smsgwCall from '../../src/nodes/smsgw-call';
import smsgwInbound from '../../src/nodes/smsgw-inbound';
import smsgwDlr from '../../src/nodes/smsgw-dlr';
import smsgwHlrResults from '../../src/nodes/smsgw-hlr-results';
import smsgwBudget from '../../src/nodes/smsgw-budget';
import smsgwAsk from '../../src/nodes/smsgw-ask';
import smsgwHeartbeat from '../../src/nodes/smsgw-heartbeat';
import smsgwOptOut from '../../src/nodes/smsgw-optout';

helper.init(require.resolve('node-red'));

export { helper };

const MODULE = '@smsgw/node-red-sms-gateway';
const LOCALES = path.join(__dirname, '..', '..', 'nodes', 'locales');

let catalogues: Promise<void> | undefined;

/**
 * The package's message catalogues (nodes/locales/<lang>/<set>.json), registered with Node-RED's i18n as its
 * registry does for an installed module: namespace "<module>/<set>", English. The test helper initialises no i18n
 * and answers every RED._ with the key; with these, a test reads the text a user reads.
 */
export function loadCatalogues(): Promise<void> {
  catalogues ??= (async () => {
    // What Node-RED's runtime does at start (@node-red/util's i18n.init; its types leave it out).
    (i18n as unknown as { init(settings: { lang: string }): void }).init({ lang: 'en-US' });
    const sets = readdirSync(LOCALES + '/en-US')
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -'.json'.length));
    await Promise.all(
      sets.map((set) => i18n.registerMessageCatalog(`${MODULE}/${set}`, LOCALES, `${set}.json`)),
    );
  })();
  return catalogues;
}

/** RED._ as Node-RED gives it to the node module of `set`: a key without a namespace is looked up in the set's. */
export const translator =
  (set: string) =>
  (key: string, subs?: Record<string, string | number>): string =>
    i18n._(key.includes(':') ? key : `${MODULE}/${set}:${key}`, subs);

type NodeModule = (RED: NodeAPI) => void;

/** A node module loaded with the package's catalogues: its RED is the helper's with Node-RED's RED._. */
const withCatalogues =
  (set: string, mod: NodeModule) =>
  async (RED: NodeAPI): Promise<void> => {
    await loadCatalogues();
    mod(Object.create(RED, { _: { value: translator(set) } }) as NodeAPI);
  };

export const ALL_NODES = (
  [
    ['smsgw-config', smsgwConfig],
    ['smsgw-send-sms', smsgwSendSms],
    ['smsgw-send-hlr', smsgwSendHlr],
    ['smsgw-send-udh', smsgwSendUdh],
    ['smsgw-legacy-send-text', smsgwLegacySendText],
    ['smsgw-balance', smsgwBalance],
    ['smsgw-query-jobs', smsgwQueryJobs],
    ['smsgw-customer', smsgwCustomer],
    ['smsgw-call', smsgwCall],
    ['smsgw-inbound', smsgwInbound],
    ['smsgw-dlr', smsgwDlr],
    ['smsgw-hlr-results', smsgwHlrResults],
    ['smsgw-budget', smsgwBudget],
    ['smsgw-ask', smsgwAsk],
    ['smsgw-heartbeat', smsgwHeartbeat],
    ['smsgw-optout', smsgwOptOut],
  ] as const
).map(([set, mod]) => withCatalogues(set, mod));

export const DEMO = { user: 'demo', password: 'demo-password' };

export type FlowNode = Record<string, unknown> & { id: string; type: string };

/** A tab with a config node, a Catch node feeding helper "caught", and the given nodes. */
export function flowWith(url: string, nodes: FlowNode[], config: Record<string, unknown> = {}): FlowNode[] {
  return [
    { id: 'tab', type: 'tab', label: 'test' },
    { id: 'cfg', type: 'smsgw-config', baseUrl: url, service: 'gateway', transport: 'soap11', ...config },
    ...nodes.map((n) => ({ z: 'tab', ...n })),
    { id: 'catcher', type: 'catch', z: 'tab', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper', z: 'tab' },
    { id: 'out', type: 'helper', z: 'tab' },
    { id: 'out2', type: 'helper', z: 'tab' },
    { id: 'out3', type: 'helper', z: 'tab' },
  ];
}

export function loadFlow(flow: FlowNode[], creds: Record<string, unknown> = { cfg: DEMO }): Promise<void> {
  return helper.load(ALL_NODES, flow, creds) as unknown as Promise<void>;
}

/** Resolves with the next msg a helper node receives. */
export function nextMessage(id: string, timeoutMs = 10_000): Promise<NodeMessage & Record<string, unknown>> {
  const node = helper.getNode(id) as Node;
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no message at ${id} within ${timeoutMs} ms`)), timeoutMs);
    node.once('input', (msg: NodeMessage) => {
      clearTimeout(t);
      resolve(msg as NodeMessage & Record<string, unknown>);
    });
  });
}

/** Collects every msg a helper node receives until the returned function is called. */
export function collect(id: string): { messages: (NodeMessage & Record<string, unknown>)[]; stop(): void } {
  const node = helper.getNode(id) as Node;
  const messages: (NodeMessage & Record<string, unknown>)[] = [];
  const listener = (msg: NodeMessage): void => {
    messages.push(msg as NodeMessage & Record<string, unknown>);
  };
  node.on('input', listener);
  return { messages, stop: () => node.removeListener('input', listener) };
}

export function send(id: string, msg: Record<string, unknown>): void {
  (helper.getNode(id) as Node).receive(msg as NodeMessage);
}

/**
 * Status calls this node made so far. The helper's spy sits on the shared prototype, so it records the calls
 * of every node: keep only those whose `this` is the node asked for.
 */
export function statuses(id: string): Record<string, unknown>[] {
  const node = helper.getNode(id) as unknown as { status: { args: unknown[][]; thisValues: unknown[] } };
  return node.status.args
    .filter((_a, i) => node.status.thisValues[i] === node)
    .map((a) => a[0] as Record<string, unknown>);
}

/** Warnings this node logged so far (node.warn's first argument), filtered like statuses(). */
export function warnings(id: string): string[] {
  const node = helper.getNode(id) as unknown as { warn: { args: unknown[][]; thisValues: unknown[] } };
  return node.warn.args.filter((_a, i) => node.warn.thisValues[i] === node).map((a) => String(a[0]));
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits for `check` to hold; the bound ends a hung test (generous: a loaded machine is slow), it measures nothing. */
export async function waitFor(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(20);
  }
}

/**
 * Sends `poll` to a trigger until `check` holds (bounded: 50 tries of 200 ms). A poll asked for while one runs
 * joins that one instead of reading again, and a test cannot see when a poll has ended (it saves after it emitted),
 * so a single send after a fixed sleep can miss the read it waits for on a loaded machine.
 */
export async function pollUntil(id: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 50 && !check(); i++) {
    send(id, { payload: 'poll' });
    await waitFor(check, 200).catch(() => undefined);
  }
  if (!check()) throw new Error(`${id}: the condition was not met after 50 polls`);
}

export interface Env {
  emu: RunningEmulator;
  userDir: string;
}

/** Starts the emulator (port 0) and the helper's admin server; a fresh userDir for poller state. */
export async function startEnv(): Promise<Env> {
  const emu = await startEmulator({ port: 0 });
  const userDir = mkdtempSync(path.join(tmpdir(), 'smsgw-nodes-'));
  helper.settings({ userDir, smsgwSendHlrPollInterval: 100 } as Record<string, unknown>);
  await new Promise<void>((resolve) => helper.startServer(() => resolve()));
  return { emu, userDir };
}

export async function stopEnv(env: Env): Promise<void> {
  await helper.unload();
  await new Promise<void>((resolve) => helper.stopServer(() => resolve()));
  await env.emu.close();
  rmSync(env.userDir, { recursive: true, force: true });
  helper.settings({});
}

export interface EmulatedJob {
  id: number;
  caption: string;
  text: string;
  sender: string;
  recipients: string[];
  typ: string;
  binData: string;
  /** When the gateway took it (ISO 8601, the emulator's clock: Date.now() unless advanced). */
  createdAt: string;
}

/** A job as the emulator stored it (from its snapshot). */
export function emulatedJob(env: Env, id: unknown): EmulatedJob | undefined {
  const snap = env.emu.control.snapshot() as { accounts: { jobs: EmulatedJob[] }[] };
  return snap.accounts.flatMap((a) => a.jobs).find((j) => j.id === id);
}
