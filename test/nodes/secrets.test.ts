/**
 * The password never leaves the credentials: every node type and error path runs with a recognisable
 * password, and it must not appear in any msg, node status, log entry, error, exported flow or outbox file.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Node, NodeAPI } from 'node-red';
import { GatewayState, startEmulator, type RunningEmulator } from '../../src/emulator';
import { ALL_NODES, helper, sleep, waitFor, type FlowNode } from './helpers';
import { sendSmsNode } from './send-sms-node';

const SENTINEL = 'Pw-Sentinel-93b1';

/** Everything reachable from a value as text (circular references and Buffers handled). */
function text(value: unknown): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === 'object' && v !== null) {
      if (seen.has(v)) return '[circular]';
      seen.add(v);
      if (v instanceof Error) return { ...v, message: v.message, stack: v.stack, cause: v.cause };
    }
    if (typeof v === 'bigint') return String(v);
    return v;
  });
}

/** Stands in for the editor's GET /flows: the deployed flow configuration as the admin API exports it. */
function exportRoute(RED: NodeAPI): void {
  RED.httpAdmin.get('/test-export/flows', (_req, res) => {
    const nodes: unknown[] = [];
    RED.nodes.eachNode((n) => {
      nodes.push(n);
    });
    res.json(nodes);
  });
}

describe('nodes: the password never leaves the credentials', function () {
  this.timeout(60_000);
  let emu: RunningEmulator;
  let userDir: string;

  before(async () => {
    const state = new GatewayState({ password: SENTINEL, balance: 1e6, duplicateWindowMs: 0 });
    emu = await startEmulator({ backend: state, port: 0, console: false });
    userDir = mkdtempSync(path.join(tmpdir(), 'smsgw-secrets-'));
    helper.settings({ userDir, smsgwOutboxRetryInterval: 100, smsgwSendHlrPollInterval: 50 } as Record<
      string,
      unknown
    >);
    await new Promise<void>((resolve) => helper.startServer(() => resolve()));
  });
  after(async () => {
    await helper.unload();
    await new Promise<void>((resolve) => helper.stopServer(() => resolve()));
    await emu.close();
    rmSync(userDir, { recursive: true, force: true });
    helper.settings({});
  });

  // Per config: where it points and how; each gets one of every node type.
  const configs: Record<string, Record<string, unknown>> = {
    // right password: success paths (and REJECTED / VALIDATION errors)
    ok: { baseUrl: '', transport: 'soap11' },
    okGet: { baseUrl: '', transport: 'get', allowInsecure: true },
    // wrong account for the sentinel password: AUTH errors on every path
    wrong: { baseUrl: '', transport: 'post', allowInsecure: true },
    // nobody listening: NETWORK errors, sends kept in the outbox (GET puts the password into the URL)
    down: { baseUrl: 'http://127.0.0.1:9', transport: 'get', allowInsecure: true, outbox: true },
  };

  const nodesFor = (cfg: string): FlowNode[] => {
    const common = { z: 'tab', gateway: cfg, wires: [['out']] };
    return [
      sendSmsNode({ ...common, id: `${cfg}-sms` }),
      {
        ...common,
        id: `${cfg}-hlr`,
        type: 'smsgw-send-hlr',
        recipient: '+4917000000002',
        recipientType: 'str',
        caption: 'topic',
        captionType: 'msg',
        wait: true,
        waitTimeout: 1,
      },
      {
        ...common,
        id: `${cfg}-udh`,
        type: 'smsgw-send-udh',
        recipient: '+4917000000003',
        recipientType: 'str',
        data: 'payload',
        dataType: 'msg',
        caption: 'topic',
        captionType: 'msg',
      },
      {
        ...common,
        id: `${cfg}-legacy`,
        type: 'smsgw-legacy-send-text',
        operation: 'SMSCR',
        params: { bRecipient: { value: '+4917000000004', type: 'str' } },
      },
      { ...common, id: `${cfg}-bal`, type: 'smsgw-balance', operation: 'auto', threshold: '' },
      {
        ...common,
        id: `${cfg}-query`,
        type: 'smsgw-query-jobs',
        operation: 'GetJobs1',
        params: {
          StartDate: { value: '2020-01-01', type: 'str' },
          EndDate: { value: '2030-01-01', type: 'str' },
        },
      },
      {
        ...common,
        id: `${cfg}-customer`,
        type: 'smsgw-customer',
        operation: 'CreateCustomer',
        params: { CompanyName: { value: 'ACME', type: 'str' } },
      },
      { ...common, id: `${cfg}-inbound`, type: 'smsgw-inbound', interval: 60, inputs: 1 },
      { ...common, id: `${cfg}-dlr`, type: 'smsgw-dlr', interval: 60, inputs: 1 },
      { ...common, id: `${cfg}-hlrres`, type: 'smsgw-hlr-results', interval: 60, inputs: 1 },
    ];
  };

  it('in no msg, status, log entry, error, exported flow or outbox file', async () => {
    const flow: FlowNode[] = [{ id: 'tab', type: 'tab', label: 'secrets' }];
    const creds: Record<string, unknown> = {};
    for (const [id, c] of Object.entries(configs)) {
      flow.push({
        id,
        type: 'smsgw-config',
        service: id === 'okGet' ? 'legacy' : 'gateway',
        ...c,
        baseUrl: c.baseUrl || emu.url,
      });
      creds[id] = { user: id === 'wrong' ? 'nobody' : 'demo', password: SENTINEL };
      flow.push(...nodesFor(id));
    }
    flow.push(
      { id: 'catcher', type: 'catch', z: 'tab', scope: null, uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper', z: 'tab' },
      { id: 'out', type: 'helper', z: 'tab' },
    );
    await helper.load([...ALL_NODES, exportRoute], flow, creds);

    const seen: unknown[] = [];
    for (const id of ['out', 'caught'])
      (helper.getNode(id) as Node).on('input', (m: unknown) => seen.push(m));

    const inputs: Record<string, unknown>[] = [
      { payload: 'secret test', topic: 'sec' },
      { payload: '0605040B8423F0DEADBEEF', topic: 'sec' },
      { payload: { not: 'text' }, topic: 'sec' }, // VALIDATION
      { payload: 'x', recipients: ['+49', ''], topic: 'sec' }, // rejected or VALIDATION
      { payload: 'x', operation: 'Nope' }, // VALIDATION
    ];
    const targets = flow.filter((n) => n.type !== 'tab' && n.type !== 'smsgw-config' && n.z === 'tab');
    for (const n of targets) {
      if (n.type === 'catch' || n.type === 'helper') continue;
      for (const m of inputs) (helper.getNode(n.id) as Node).receive({ ...m } as never);
    }
    // Everything settles: direct answers at once, the "down" sends after their retries end up kept.
    // The outbox folder appears with the first kept send: until then there is nothing to read.
    const outboxDir = path.join(userDir, 'smsgw-outbox');
    await waitFor(() => existsSync(outboxDir) && readdirSync(outboxDir).length > 0, 20_000);
    // What is asserted below to have happened, waited for (a fixed pause could end first on a loaded machine);
    // then a pause for anything later, which must not carry the password either.
    const caughtNow = (): Record<string, unknown>[] =>
      seen.filter((m) => (m as { error?: unknown }).error !== undefined) as Record<string, unknown>[];
    await waitFor(() => {
      const codes = new Set(caughtNow().map((m) => (m.error as { code: string }).code));
      const kept = readdirSync(outboxDir).map((f) => readFileSync(path.join(outboxDir, f), 'utf8'));
      return (
        kept.some((t) => t.includes('{"add":{') || t.includes('"entries":[{')) &&
        caughtNow().length >= 20 &&
        codes.has('AUTH') &&
        codes.has('VALIDATION') &&
        seen.length - caughtNow().length >= 5
      );
    }, 20_000).catch(() => undefined);
    await sleep(3000);

    const outbox = readdirSync(path.join(userDir, 'smsgw-outbox')).map((f) =>
      readFileSync(path.join(userDir, 'smsgw-outbox', f), 'utf8'),
    );
    assert.ok(
      outbox.some((t) => t.includes('{"add":{') || t.includes('"entries":[{')),
      'the outbox holds the sends to the gateway that is down',
    );
    const exported = await helper.request().get('/test-export/flows').expect(200);
    const listed = await helper.request().get('/smsgw-config/down/outbox').expect(200);
    assert.ok(listed.body.entries.length > 0);

    const logs = helper.log().args.map((a: unknown[]) => a[0]);
    const statusCalls = (Object.getPrototypeOf(helper.getNode('ok-sms')) as { status: { args: unknown[][] } })
      .status.args;
    const caught = seen.filter((m) => (m as { error?: unknown }).error !== undefined);
    assert.ok(caught.length >= 20, `errors at the Catch node: ${caught.length}`);
    const codes = new Set(caught.map((m) => (m as { error: { code: string } }).error.code));
    for (const code of ['AUTH', 'VALIDATION']) assert.ok(codes.has(code), `an ${code} error was caught`);
    assert.ok(seen.length - caught.length >= 5, 'successful outputs');

    const places: Record<string, string> = {
      'msg objects (outputs and Catch)': text(seen),
      'node status': text(statusCalls),
      'log output': text(logs),
      'exported flows': text(exported.body),
      'outbox file': outbox.join('\n'),
      'outbox admin list': text(listed.body),
    };
    for (const [where, t] of Object.entries(places)) {
      assert.ok(t.length > 0, where);
      assert.ok(!t.includes(SENTINEL), `the password appears in ${where}`);
    }
  });
});
