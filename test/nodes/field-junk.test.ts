/**
 * Junk in every field of every node, deployed for real (the cases of test/helpers/field-cases.ts, which the
 * browser test types into the editor): a node refuses exactly the values its declaration refuses, all at deploy,
 * with the declaration's words: a red ring "config: <reason>", one log line, CONFIG for every msg (a Catch node
 * hears it). And the same junk through every msg override: refused with VALIDATION in the field's words before
 * anything reaches the gateway or the spending guard's count.
 */
import assert from 'node:assert/strict';
import type { Node, NodeMessage } from 'node-red';
import { msgValue } from '../../src/nodes/common/fields';
import { OVERRIDES } from '../../src/nodes/common/override-table';
import { readOverride, type Override } from '../../src/nodes/common/overrides';
import { sharedKey } from '../../src/nodes/common/status';
import type { WindowState } from '../../src/reliability/budget';
import { baseValues, fieldCases, JUNK, UNSET_ENV, type FieldCase } from '../helpers/field-cases';
import {
  collect,
  DEMO,
  flowWith,
  helper,
  loadCatalogues,
  loadFlow,
  send,
  startEnv,
  statuses,
  stopEnv,
  translator,
  waitFor,
  type Env,
  type FlowNode,
} from './helpers';

type Rec = Record<string, unknown>;

/** What a node logged with node.error (the helper's spy records every node's calls: keep this node's). */
function errorsOf(id: string): string[] {
  const node = helper.getNode(id) as unknown as { error: { args: unknown[][]; thisValues: unknown[] } };
  return node.error.args.filter((_a, i) => node.error.thisValues[i] === node).map((a) => String(a[0]));
}

const words = translator('smsgw-config');

describe('nodes: junk in every field, deployed (the cases the editor test types)', function () {
  this.timeout(180_000);
  let env: Env;
  let refusedPrefix: string;
  before(async () => {
    env = await startEnv();
    await loadCatalogues();
    refusedPrefix = words(sharedKey('fields.refused'), { list: '' });
    assert.ok(!(UNSET_ENV in process.env), `${UNSET_ENV} must not be set for this test`);
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  const cases = fieldCases();
  const types = [...new Set(cases.map((c) => c.nodeType))];

  /** A node's verdict as a user sees it after the deploy. */
  function observed(
    id: string,
    logger: string,
    c: FieldCase,
  ): { refused: boolean; reason?: string; status?: Rec } {
    const status = statuses(id).at(-1);
    if (c.kind === 'config') {
      const missing = status?.fill === 'red' && status.text === sharedKey('status.missing');
      return { refused: missing };
    }
    const lines = errorsOf(logger).filter((l) => l.startsWith(refusedPrefix));
    if (lines.length === 0) return { refused: false, status };
    assert.equal(lines.length, 1, `${id}: one log line`);
    return { refused: true, reason: lines[0]!.slice(refusedPrefix.length), status };
  }

  for (const nodeType of types) {
    it(`${nodeType}: every field, every junk value: refused at deploy exactly as declared, in its words`, async () => {
      const wrong: string[] = [];
      let refusals = 0;
      // Every field with every junk value at once: one deploy per node type.
      const group = cases.filter((c) => c.nodeType === nodeType);
      const nodes: FlowNode[] = [];
      const creds: Rec = { cfg: DEMO };
      const suffix = (c: FieldCase): string => `${c.field}-${JUNK.indexOf(c.junk)}`;
      const idOf = (c: FieldCase): string => `n-${suffix(c)}`;
      for (const c of group) {
        if (nodeType === 'smsgw-config') {
          // The configuration under test, and a node using it (which shows its refusal and fails its msgs).
          nodes.push({ id: `cfg-${suffix(c)}`, type: 'smsgw-config', ...c.values });
          creds[`cfg-${suffix(c)}`] = DEMO;
          nodes.push({ id: idOf(c), type: 'smsgw-budget', gateway: `cfg-${suffix(c)}`, name: '', wires: [] });
        } else nodes.push({ id: idOf(c), type: nodeType, ...c.values, wires: [] });
      }
      await loadFlow(
        [
          { id: 'tab', type: 'tab', label: 'junk' },
          { id: 'cfg', type: 'smsgw-config', ...baseValues('smsgw-config'), baseUrl: env.emu.url },
          ...nodes.map((n) => ({ z: 'tab', ...n })),
          { id: 'catcher', type: 'catch', z: 'tab', scope: null, uncaught: false, wires: [['caught']] },
          { id: 'caught', type: 'helper', z: 'tab' },
        ],
        creds,
      );
      const caught = collect('caught');
      const expectRefused: FieldCase[] = [];
      for (const c of group) {
        const seen = observed(idOf(c), nodeType === 'smsgw-config' ? `cfg-${suffix(c)}` : idOf(c), c);
        const label = `${nodeType}.${c.field} = ${JSON.stringify(c.junk)}`;
        if (seen.refused !== c.runtime.refused || seen.reason !== c.runtime.reason) {
          wrong.push(`${label}: ${JSON.stringify(seen)} instead of ${JSON.stringify(c.runtime)}`);
          continue;
        }
        if (!c.runtime.refused || c.kind === 'config') continue;
        refusals++;
        expectRefused.push(c);
        // The red ring names the first (here: the only) reason, shortened to a status line.
        const text = String(seen.status?.text ?? '');
        if (
          seen.status?.fill !== 'red' ||
          !text.startsWith('config: ') ||
          !c.runtime.reason!.startsWith(text.slice('config: '.length).replace(/…$/, ''))
        )
          wrong.push(`${label}: status ${JSON.stringify(seen.status)}`);
        send(idOf(c), { payload: 'x', topic: 'junk' });
      }
      // Every msg to a refused node fails with CONFIG and the same words, heard by the Catch node.
      await waitFor(() => caught.messages.length >= expectRefused.length, 10_000).catch(() => undefined);
      for (const c of expectRefused) {
        const m = caught.messages.find(
          (x) => (x.error as { source?: { id?: string } }).source?.id === idOf(c),
        );
        const error = m?.error as { code?: string; message?: string } | undefined;
        if (error?.code !== 'CONFIG' || error.message !== `${refusedPrefix}${c.runtime.reason}`)
          wrong.push(
            `${nodeType}.${c.field} = ${JSON.stringify(c.junk)}: msg error ${JSON.stringify(error)}`,
          );
      }
      caught.stop();
      assert.deepEqual(wrong, []);
      // The table of this node type refuses something (a test that refuses nothing proves nothing).
      if (
        !['smsgw-budget', 'smsgw-query-jobs', 'smsgw-customer', 'smsgw-legacy-send-text'].includes(nodeType)
      )
        assert.ok(refusals > 0, `${nodeType}: no junk refused`);
    });
  }
});

/**
 * The overrides with a check of their own, not a field's rule: msg.operation (it may also name an operation as
 * "service/Name"; the any-operation node's is its Operation field's name), the priority, the parameters object, the
 * outbox request (cancel held messages), the SOAP headers, the any-operation node's service (a service or a path:
 * one of two rules) and the heartbeat node's msg.heartbeat (what to do with the msg's source: no setting).
 */
const OWN_CHECK = (nodeType: string, prop: string): boolean =>
  (prop === 'operation' && nodeType !== 'smsgw-call') ||
  ['priority', 'params', 'outbox'].includes(prop) ||
  (nodeType === 'smsgw-call' && ['soapHeaders', 'service'].includes(prop)) ||
  (nodeType === 'smsgw-heartbeat' && prop === 'heartbeat');

/**
 * The words a msg override must be refused with, or undefined when it must be taken: the declared rule of the field
 * it replaces (src/nodes/fields), the words naming msg.<prop>; for an override with a check of its own, that check.
 */
function expectedRefusal(nodeType: string, prop: string, o: Override, junk: unknown): string | undefined {
  try {
    if (OWN_CHECK(nodeType, prop)) readOverride({ [prop]: junk } as NodeMessage, o);
    else msgValue(nodeType, o.field?.name ?? prop, junk, { subject: `msg.${prop}` });
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/** The same junk as a flow sends it: numbers as numbers. */
const MSG_JUNK: readonly unknown[] = [-1, 0, 1.5, NaN, 'abc', '', 1e12, `\${${UNSET_ENV}}`];

/** Settings that make an override mean something (msg.trackTimeout on a node that tracks delivery). */
const NODE_EXTRA: Readonly<Record<string, Rec>> = { 'smsgw-send-sms': { track: true, outputs: 3 } };

/** A msg the node would act on, to which one override is added. */
const BASE_MSG: Readonly<Record<string, Rec>> = {
  'smsgw-send-sms': { payload: 'junk test', recipient: '+4917000000001' },
  'smsgw-send-hlr': { recipient: '+4917000000001' },
  'smsgw-send-udh': { payload: '0605040B', recipient: '+4917000000001' },
  'smsgw-legacy-send-text': { payload: 'junk test', params: { Recipient: '+4917000000001' } },
  'smsgw-balance': {},
  'smsgw-query-jobs': {},
  'smsgw-customer': {},
  'smsgw-call': { payload: {} },
  'smsgw-ask': { payload: 'junk test?' },
  'smsgw-heartbeat': { topic: 'junk/test' },
  'smsgw-optout': { payload: '+4917000000001' },
};

describe('nodes: junk in every msg override, refused before anything is sent or counted', function () {
  this.timeout(180_000);
  let env: Env;
  before(async () => {
    env = await startEnv();
    env.emu.control.setBalance('demo', 1_000_000);
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  /** What the spending guard has counted so far (read fresh from its ledger). */
  const counted = async (): Promise<number> => {
    const host = helper.getNode('cfg') as unknown as {
      reliability: { budget: { snapshot(): Promise<{ windows: WindowState[] }> } };
    };
    return (await host.reliability.budget.snapshot()).windows.reduce((n, w) => n + w.count, 0);
  };

  for (const [nodeType, table] of Object.entries(OVERRIDES)) {
    const props = Object.keys(table);
    if (props.length === 0) continue;
    it(`${nodeType}: msg.${props.join(', msg.')}`, async () => {
      await loadFlow([
        { id: 'tab', type: 'tab', label: 'junk' },
        {
          id: 'cfg',
          type: 'smsgw-config',
          ...baseValues('smsgw-config'),
          baseUrl: env.emu.url,
          budgetDay: 100_000,
        },
        { id: 'n1', z: 'tab', type: nodeType, ...baseValues(nodeType), ...NODE_EXTRA[nodeType], wires: [] },
        { id: 'catcher', type: 'catch', z: 'tab', scope: null, uncaught: false, wires: [['caught']] },
        { id: 'caught', type: 'helper', z: 'tab' },
        // A msg the node took (done() without an error), also one whose output comes later (the ask node).
        { id: 'completer', type: 'complete', z: 'tab', scope: ['n1'], uncaught: false, wires: [['out']] },
        { id: 'out', type: 'helper', z: 'tab' },
      ]);
      const wrong: string[] = [];
      let refusals = 0;
      for (const prop of props) {
        const o = (table as Readonly<Record<string, Override>>)[prop]!;
        // The table says which rule judges it: the field it replaces.
        if (!OWN_CHECK(nodeType, prop) && o.rule !== (o.field?.name ?? prop))
          wrong.push(`msg.${prop}: judged by ${String(o.rule)}, not by the rule of the field it replaces`);
        for (const junk of MSG_JUNK) {
          const expected = expectedRefusal(nodeType, prop, o, junk);
          const label = `msg.${prop} = ${String(typeof junk === 'string' ? JSON.stringify(junk) : junk)}`;
          const caught = collect('caught');
          const out = collect('out');
          const requests = env.emu.requests.list().length;
          const count = await counted();
          send('n1', { ...BASE_MSG[nodeType], [prop]: junk });
          await waitFor(() => caught.messages.length + out.messages.length > 0, 15_000);
          caught.stop();
          out.stop();
          const error = caught.messages[0]?.error as { code?: string; message?: string } | undefined;
          if (expected !== undefined) {
            refusals++;
            if (error?.code !== 'VALIDATION' || error.message !== expected)
              wrong.push(`${label}: ${JSON.stringify(error)} instead of VALIDATION "${expected}"`);
            if (env.emu.requests.list().length !== requests) wrong.push(`${label}: reached the gateway`);
            if ((await counted()) !== count) wrong.push(`${label}: counted by the spending guard`);
          } else if (error?.code === 'VALIDATION' && error.message?.startsWith(`msg.${prop}:`))
            wrong.push(`${label}: refused (${error.message}) though its rule takes it`);
        }
      }
      assert.deepEqual(wrong, []);
      if (nodeType !== 'smsgw-ask') assert.ok(refusals > 0, `${nodeType}: no junk refused`);
      void (helper.getNode('n1') as Node);
    });
  }
});

describe('nodes: every refused field at once, as a user sees it', function () {
  let env: Env;
  before(async () => {
    env = await startEnv();
    await loadCatalogues();
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  it('an ask node with a negative wait, a reply check of 0 and no on-call list: one red ring "(+2 more)", one log line, CONFIG for each msg, nothing asked', async () => {
    await loadFlow(
      flowWith(env.emu.url, [
        {
          id: 'ask',
          type: 'smsgw-ask',
          gateway: 'cfg',
          ...baseValues('smsgw-ask'),
          wait: -1,
          interval: 0,
          numbers: '',
          wires: [[], []],
        },
      ]),
    );
    const refused = words(sharedKey('fields.refused'), { list: '' });
    const lines = errorsOf('ask').filter((l) => l.startsWith(refused));
    assert.deepEqual(lines, [
      `${refused}On-call list: required (one or more phone numbers); ` +
        'Wait per step: a number above 0, at most 35791 (minutes), or blank (default 5); ' +
        'Check replies every: a number from 1 to 2147483 (seconds), or blank (default 30)',
    ]);
    assert.deepEqual(statuses('ask').at(-1), {
      fill: 'red',
      shape: 'ring',
      text: 'config: On-call list: required (one or more pho… (+2 more)',
    });
    const caught = collect('caught');
    send('ask', { payload: 'Door open?' });
    await waitFor(() => caught.messages.length === 1);
    assert.equal((caught.messages[0]!.error as Rec).code, 'CONFIG');
    assert.equal(env.emu.requests.list().filter((r) => r.operation === 'SendSMS').length, 0);
  });

  it('a gateway configuration with Per hour -5 and Reserve -1 (Per day 10 valid): its budget node says so in red and answers CONFIG, not "no limit set"', async () => {
    await loadFlow(
      flowWith(env.emu.url, [{ id: 'b', type: 'smsgw-budget', gateway: 'cfg', name: '', wires: [['out']] }], {
        budgetHour: -5,
        budgetDay: 10,
        budgetReserve: -1,
      }),
    );
    const refused = words(sharedKey('fields.refused'), { list: '' });
    assert.deepEqual(
      errorsOf('cfg').filter((l) => l.startsWith(refused)),
      [
        `${refused}Per hour: a whole number from 0 (segments x recipients), or blank (no limit); ` +
          'Reserve: a whole number from 0 (segments x recipients), or blank (default 0)',
      ],
    );
    assert.deepEqual(statuses('b').at(-1), {
      fill: 'red',
      shape: 'ring',
      text: 'config: Per hour: a whole number from 0 (segmen… (+1 more)',
    });
    const caught = collect('caught');
    const out = collect('out');
    send('b', { payload: 'count now' });
    await waitFor(() => caught.messages.length === 1);
    assert.equal((caught.messages[0]!.error as Rec).code, 'CONFIG');
    assert.equal(out.messages.length, 0);
  });
});
