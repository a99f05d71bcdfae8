/**
 * A real, embedded Node-RED runtime (no test helper: its sinon spies keep every msg and status alive, which
 * would make memory and CPU figures about the helper), with this package installed in its userDir (a link to
 * the checkout: nodes/ → dist/).
 * One per process: Node-RED is a singleton.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Node, NodeMessage } from 'node-red';
import * as nodeRed from 'node-red';
import { sendSmsNode } from './fixtures';
import { PASSWORD, ROOT, USER, sleep } from './lib';

export type FlowNode = Record<string, unknown> & { id: string; type: string };

const GW = { gateway: 'cfg' };

/** One node of every type; the three polling triggers on an interval of `intervalS` seconds. */
export function everyNodeType(intervalS: number): FlowNode[] {
  const poll = { interval: intervalS, inputs: 0 };
  return [
    sendSmsNode('sms'),
    {
      id: 'hlr',
      type: 'smsgw-send-hlr',
      ...GW,
      recipient: 'recipient',
      recipientType: 'msg',
      caption: 'topic',
      captionType: 'msg',
      wait: true,
      waitTimeout: 60,
    },
    {
      id: 'udh',
      type: 'smsgw-send-udh',
      ...GW,
      recipient: '+4917012345678',
      recipientType: 'str',
      data: 'payload',
      dataType: 'msg',
      dataFormat: 'auto',
      caption: 'topic',
      captionType: 'msg',
    },
    {
      id: 'legacy',
      type: 'smsgw-legacy-send-text',
      ...GW,
      operation: 'SendText',
      params: { Recipient: { value: '+4917012345678', type: 'str' }, SmsTyp: { value: '1', type: 'str' } },
    },
    {
      id: 'balance',
      type: 'smsgw-balance',
      ...GW,
      operation: 'auto',
      threshold: '100',
      thresholdType: 'num',
      outputs: 2,
    },
    {
      id: 'jobs',
      type: 'smsgw-query-jobs',
      ...GW,
      operation: 'QueryJobInfoByJobCaption',
      params: { Caption: { value: 'topic', type: 'msg' } },
    },
    { id: 'customer', type: 'smsgw-customer', ...GW, operation: 'GetCustomerList', params: {} },
    ...pollers(intervalS).map((p) => ({ ...p, ...poll })),
  ];
}

/** The three polling triggers. */
export function pollers(intervalS: number): FlowNode[] {
  const poll = { ...GW, interval: intervalS, inputs: 0 };
  return [
    { id: 'inbound', type: 'smsgw-inbound', ...poll, dropReports: false },
    { id: 'dlr', type: 'smsgw-dlr', ...poll, finalOnly: false, lookback: 60 },
    { id: 'hlrres', type: 'smsgw-hlr-results', ...poll, limit: 0 },
  ];
}

interface Embedded {
  init(server: ReturnType<typeof createServer>, settings: Record<string, unknown>): void;
  start(): Promise<void>;
  stop(): Promise<void>;
  nodes: { getNode(id: string): Node | null };
  runtime: {
    flows: {
      setFlows(opts: { flows: { flows: FlowNode[] }; deploymentType: string }): Promise<unknown>;
    };
  };
}

/** Config nodes a deploy may add besides "cfg" (they have the same credentials). */
export const EXTRA_CONFIG_IDS = ['cfg2', 'cfg3'] as const;

export interface Runtime {
  /**
   * Deploys a tab with the config node (credentials set) and `nodes` (a full deploy: replaces the last);
   * `extra` adds config nodes of EXTRA_CONFIG_IDS with their own settings (the same gateway and account).
   */
  deploy(
    url: string,
    nodes: FlowNode[],
    config?: Record<string, unknown>,
    extra?: Partial<Record<(typeof EXTRA_CONFIG_IDS)[number], Record<string, unknown>>>,
  ): Promise<void>;
  node(id: string): Node;
  stop(): Promise<void>;
}

/** `modules`: other packages of this checkout's node_modules to install beside ours (node-red-contrib-soap). */
export async function startRuntime(modules: string[] = []): Promise<Runtime> {
  const RED = nodeRed as unknown as Embedded;
  const userDir = mkdtempSync(join(tmpdir(), 'smsgw-bench-red-'));
  // The config node's credentials come from the (unencrypted) credentials file; later deploys keep them.
  writeFileSync(
    join(userDir, 'flows.json'),
    JSON.stringify([{ id: 'cfg', type: 'smsgw-config', baseUrl: 'http://127.0.0.1:1' }]),
  );
  writeFileSync(
    join(userDir, 'flows_cred.json'),
    JSON.stringify(
      Object.fromEntries(['cfg', ...EXTRA_CONFIG_IDS].map((id) => [id, { user: USER, password: PASSWORD }])),
    ),
  );
  // Installed as a module, as users have it: loaded from nodesDir, Node-RED would treat the nodes as core nodes
  // and never register their message catalogues (every status text a missed, slow lookup).
  mkdirSync(join(userDir, 'node_modules', '@smsgw'), { recursive: true });
  symlinkSync(ROOT, join(userDir, 'node_modules', '@smsgw', 'node-red-sms-gateway'), 'dir');
  for (const m of modules)
    symlinkSync(join(ROOT, 'node_modules', m), join(userDir, 'node_modules', m), 'dir');
  RED.init(createServer(), {
    userDir,
    httpAdminRoot: false,
    httpNodeRoot: false,
    disableEditor: true,
    credentialSecret: false,
    flowFile: 'flows.json',
    // 'fatal': a refused burst would log every msg; the benchmarks count failures through Catch nodes.
    logging: { console: { level: 'fatal', metrics: false, audit: false } },
    externalModules: { autoInstall: false },
  });
  await RED.start();
  return {
    async deploy(url, nodes, config = {}, extra = {}) {
      const configNode = (id: string, settings: Record<string, unknown>): FlowNode => ({
        id,
        type: 'smsgw-config',
        baseUrl: url,
        service: 'gateway',
        transport: 'soap11',
        ...settings,
      });
      const flows: FlowNode[] = [
        { id: 'tab', type: 'tab', label: 'bench' },
        configNode('cfg', config),
        ...Object.entries(extra).map(([id, settings]) => configNode(id, settings ?? {})),
        // x/y make them flow nodes: Node-RED treats a node without a position as a config node.
        ...nodes.map((n, i) => ({ z: 'tab', wires: [], x: 200, y: 40 + 40 * i, ...n })),
      ];
      await RED.runtime.flows.setFlows({ flows: { flows }, deploymentType: 'full' });
      for (let i = 0; i < 200 && nodes.some((n) => !RED.nodes.getNode(n.id)); i++) await sleep(10);
    },
    node(id) {
      const n = RED.nodes.getNode(id);
      if (!n) throw new Error(`node ${id} is not running`);
      return n;
    },
    async stop() {
      await RED.stop();
      rmSync(userDir, { recursive: true, force: true });
    },
  };
}

/**
 * Sends n msgs through a send node, `window` at a time (each output or Catch lets the next one in); resolves
 * with how many came out and how many went to Catch. Listens on the junctions `out` and `caught`; fails when
 * nothing came out for two `stallMs` in a row.
 */
export function runWindowed(
  rt: Runtime,
  ids: { send: string; out: string; caught: string },
  n: number,
  window: number,
  msg: (i: number) => NodeMessage,
  stallMs = 10_000,
): Promise<{ sent: number; failed: number }> {
  return new Promise((resolve, reject) => {
    const sendNode = rt.node(ids.send);
    const out = rt.node(ids.out);
    const caught = rt.node(ids.caught);
    let started = 0;
    let ok = 0;
    let failed = 0;
    let seen = -1;
    const check = setInterval(() => {
      if (ok + failed !== seen) {
        seen = ok + failed;
        return;
      }
      clearInterval(check);
      reject(new Error(`flow stalled after ${ok + failed} of ${n} messages`));
    }, stallMs);
    const answered = (): void => {
      if (ok + failed === n) {
        out.removeListener('input', onOut);
        caught.removeListener('input', onCaught);
        clearInterval(check);
        resolve({ sent: ok, failed });
      } else if (started < n) sendNode.receive(msg(started++));
    };
    const onOut = (): void => {
      ok++;
      answered();
    };
    const onCaught = (): void => {
      failed++;
      answered();
    };
    out.on('input', onOut);
    caught.on('input', onCaught);
    while (started < Math.min(window, n)) sendNode.receive(msg(started++));
  });
}
