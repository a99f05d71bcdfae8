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
import type { Node } from 'node-red';
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

export interface Runtime {
  /** Deploys a tab with the config node (credentials set) and `nodes` (a full deploy: replaces the last). */
  deploy(url: string, nodes: FlowNode[], config?: Record<string, unknown>): Promise<void>;
  node(id: string): Node;
  stop(): Promise<void>;
}

export async function startRuntime(): Promise<Runtime> {
  const RED = nodeRed as unknown as Embedded;
  const userDir = mkdtempSync(join(tmpdir(), 'smsgw-bench-red-'));
  // The config node's credentials come from the (unencrypted) credentials file; later deploys keep them.
  writeFileSync(
    join(userDir, 'flows.json'),
    JSON.stringify([{ id: 'cfg', type: 'smsgw-config', baseUrl: 'http://127.0.0.1:1' }]),
  );
  writeFileSync(
    join(userDir, 'flows_cred.json'),
    JSON.stringify({ cfg: { user: USER, password: PASSWORD } }),
  );
  // Installed as a module, as users have it: loaded from nodesDir, Node-RED would treat the nodes as core nodes
  // and never register their message catalogues (every status text a missed, slow lookup).
  mkdirSync(join(userDir, 'node_modules', '@smsgw'), { recursive: true });
  symlinkSync(ROOT, join(userDir, 'node_modules', '@smsgw', 'node-red-sms-gateway'), 'dir');
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
    async deploy(url, nodes, config = {}) {
      const flows: FlowNode[] = [
        { id: 'tab', type: 'tab', label: 'bench' },
        {
          id: 'cfg',
          type: 'smsgw-config',
          baseUrl: url,
          service: 'gateway',
          transport: 'soap11',
          ...config,
        },
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
