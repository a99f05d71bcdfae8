/** A Node-RED runtime (node-red-node-test-helper) with our nodes, for benchmarks 6 and 7. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ALL_NODES, helper } from '../test/nodes/helpers';
import { PASSWORD, USER } from './lib';

export type FlowNode = Record<string, unknown> & { id: string; type: string };

const GW = { gateway: 'cfg' };

/** One node of every type; the three polling triggers on an interval of `intervalS` seconds. */
export function everyNodeType(intervalS: number): FlowNode[] {
  const poll = { interval: intervalS, inputs: 0 };
  return [
    {
      id: 'sms',
      type: 'smsgw-send-sms',
      ...GW,
      operation: 'SendSMS',
      recipient: '+4917012345678',
      recipientType: 'str',
      text: 'payload',
      textType: 'msg',
      caption: 'topic',
      captionType: 'msg',
      smsType: 'Standard',
      smsTypeType: 'smstype',
    },
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
    { id: 'inbound', type: 'smsgw-inbound', ...poll, includeReports: false },
    { id: 'dlr', type: 'smsgw-dlr', ...poll, finalOnly: false, lookback: 60 },
    { id: 'hlrres', type: 'smsgw-hlr-results', ...poll, limit: 0 },
  ];
}

export interface Runtime {
  load(url: string, nodes: FlowNode[], config?: Record<string, unknown>): Promise<void>;
  unload(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRuntime(): Promise<Runtime> {
  const userDir = mkdtempSync(join(tmpdir(), 'smsgw-bench-'));
  helper.settings({ userDir } as Record<string, unknown>);
  await new Promise<void>((resolve) => helper.startServer(() => resolve()));
  return {
    async load(url, nodes, config = {}) {
      const flow: FlowNode[] = [
        { id: 'tab', type: 'tab', label: 'bench' },
        { id: 'cfg', type: 'smsgw-config', baseUrl: url, service: 'gateway', transport: 'soap11', ...config },
        ...nodes.map((n) => ({ z: 'tab', wires: [], ...n })),
      ];
      await (helper.load(ALL_NODES, flow, {
        cfg: { user: USER, password: PASSWORD },
      }) as unknown as Promise<void>);
    },
    unload: () => helper.unload() as unknown as Promise<void>,
    async stop() {
      await (helper.unload() as unknown as Promise<void>);
      await new Promise<void>((resolve) => helper.stopServer(() => resolve()));
      rmSync(userDir, { recursive: true, force: true });
    },
  };
}
