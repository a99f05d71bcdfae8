/**
 * The nodes' property helpers (typedInput evaluation, msg properties, the Output property, cloning) against the
 * real @node-red/util: the devDependency pinned to the version Node-RED 4.1 ships, or, in the version matrix, the
 * util of the Node-RED under test (scripts/matrix/use-node-red.ts redirects @node-red/*). Only the node's context
 * store is ours (the runtime's, not util's): one answering at once like the memory store, one answering later like
 * a file or Redis store.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { util } from '@node-red/util';
import type { Node, NodeAPI, NodeMessage, NodeMessageInFlow } from 'node-red';
import { nodeOutput } from '../../src/nodes/common/output';
import { evaluateNow, evaluateProperty, fieldNow, fieldOf } from '../../src/nodes/common/props';
import { MsgOverrides, override } from '../../src/nodes/common/overrides';
import { trackingContext } from '../../src/nodes/send/tracking';
import { isGatewayError } from '../../src/errors';

const root = path.join(__dirname, '..', '..');
const RED = { util } as unknown as NodeAPI;

type Getter = (
  key: string,
  store: string | undefined,
  cb?: (err: Error | null, v?: unknown) => void,
) => unknown;

/** A node whose flow/global context holds `values`; the store "later" answers on a later tick. */
function nodeWith(values: Record<string, unknown> = {}): Node {
  const scope = (prefix: string): { get: Getter } => ({
    get(key, store, cb) {
      const v = values[`${prefix}.${key}`];
      if (!cb) return v;
      if (store === 'later') setImmediate(() => cb(null, v));
      else cb(null, v);
      return undefined;
    },
  });
  return {
    id: 'n1',
    type: 'test',
    context: () => ({ flow: scope('flow'), global: scope('global') }),
  } as unknown as Node;
}

const msgOf = (m: Record<string, unknown>): NodeMessage => m as NodeMessage;

async function rejection(p: unknown): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  assert.fail('did not reject');
}

describe('nodes: property helpers against the real @node-red/util', () => {
  it('@node-red/util is pinned exactly to what the project’s Node-RED ships, and is that util', () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    const shipped = JSON.parse(
      readFileSync(path.join(root, 'node_modules', 'node-red', 'package.json'), 'utf8'),
    ) as { dependencies: Record<string, string> };
    assert.equal(pkg.devDependencies['@node-red/util'], shipped.dependencies['@node-red/util']);
    // the util these tests load is the one the Node-RED under test depends on (4.1 here, 5.x in the matrix)
    const json = (name: string): { version: string; dependencies: Record<string, string> } =>
      JSON.parse(readFileSync(require.resolve(name), 'utf8')) as {
        version: string;
        dependencies: Record<string, string>;
      };
    const nodeRed = json('node-red/package.json');
    const loaded = json('@node-red/util/package.json');
    assert.equal(loaded.version, nodeRed.dependencies['@node-red/util']);
    assert.equal(typeof util.evaluateNodeProperty, 'function');
  });

  describe('typedInput evaluation (evaluateNow, evaluateProperty)', () => {
    const node = nodeWith({ 'flow.limit': -18, 'global.phone': '+4917012345678' });
    const msg = msgOf({ payload: { temp: -12.5, list: ['a', 'b'], 'odd key': 1 }, topic: 'freezer' });

    const cases: [string, string, string, unknown][] = [
      ['a string', 'hello', 'str', 'hello'],
      ['a number', '42.5', 'num', 42.5],
      ['a boolean', 'true', 'bool', true],
      ['JSON', '{"a":[1,2]}', 'json', { a: [1, 2] }],
      ['bytes', '[1,2,255]', 'bin', Buffer.from([1, 2, 255])],
      ['a plain msg property', 'topic', 'msg', 'freezer'],
      ['a msg path', 'payload.list[1]', 'msg', 'b'],
      ['a quoted msg key', 'payload["odd key"]', 'msg', 1],
      ['a missing msg property', 'payload.nothing', 'msg', undefined],
      ['flow context', 'limit', 'flow', -18],
      ['global context', 'phone', 'global', '+4917012345678'],
    ];
    for (const [label, value, type, expected] of cases) {
      it(`${label} (${type})`, async () => {
        assert.deepEqual(evaluateNow(RED, node, msg, value, type), expected);
        assert.deepEqual(await evaluateProperty(RED, node, msg, value, type), expected);
        // the same answer Node-RED's own nodes get
        assert.deepEqual(util.evaluateNodeProperty(value, type, node, msg), expected);
      });
    }

    it('an environment variable (env), also inside text', () => {
      process.env.SMSGW_PROPS_TEST = 'from env';
      try {
        assert.equal(evaluateNow(RED, node, msg, 'SMSGW_PROPS_TEST', 'env'), 'from env');
        assert.equal(evaluateNow(RED, node, msg, 'a ${SMSGW_PROPS_TEST}!', 'env'), 'a from env!');
      } finally {
        delete process.env.SMSGW_PROPS_TEST;
      }
    });

    it('a timestamp (date)', () => {
      const before = Date.now();
      const t = evaluateNow(RED, node, msg, '', 'date') as number;
      assert.ok(t >= before && t <= Date.now());
    });

    it('JSONata (asynchronous since Node-RED 4): a promise of the value', async () => {
      const p = evaluateNow(RED, node, msg, 'payload.temp > -18 ? "warm" : "cold"', 'jsonata');
      assert.ok(p instanceof Promise);
      assert.equal(await p, 'warm');
    });

    it('a context store that answers later: a promise of the value', async () => {
      const p = evaluateNow(RED, node, msg, '#:(later)::limit', 'flow');
      assert.ok(p instanceof Promise);
      assert.equal(await p, -18);
    });

    it('blank text and numbers and a missing value mean "not set"', () => {
      assert.equal(evaluateNow(RED, node, msg, '  ', 'str'), undefined);
      assert.equal(evaluateNow(RED, node, msg, '', 'num'), undefined);
      assert.equal(evaluateNow(RED, node, msg, undefined, 'msg'), undefined);
      // no type: a string (a node saved before the field had a type)
      assert.equal(evaluateNow(RED, node, msg, 'x', undefined), 'x');
    });

    for (const [label, value, type] of [
      ['broken JSON', '{"a":', 'json'],
      ['bytes that are not a list', '{"a":1}', 'bin'],
      ['a msg path that does not parse', 'payload..temp', 'msg'],
    ] as const) {
      it(`${label} is a VALIDATION error naming the field`, async () => {
        assert.throws(
          () => evaluateNow(RED, node, msg, value, type),
          (e: unknown) => isGatewayError(e) && e.code === 'VALIDATION' && e.message.includes(value),
        );
        const e = await rejection(evaluateProperty(RED, node, msg, value, type));
        assert.ok(isGatewayError(e) && e.code === 'VALIDATION');
      });
    }

    it('a JSONata expression that does not parse is a VALIDATION error with JSONata’s reason', () => {
      assert.throws(
        () => evaluateNow(RED, node, msg, 'payload.(', 'jsonata'),
        (e: unknown) =>
          isGatewayError(e) && e.code === 'VALIDATION' && !e.message.includes('[object Object]'),
      );
    });

    it('the plain-name shortcut answers as getMessageProperty for any name and msg', () => {
      const name = fc.oneof(
        fc.constantFrom('payload', 'topic', '__proto__', 'constructor', 'prototype', '$x', '_id'),
        fc.stringMatching(/^[A-Za-z_$][\w$]{0,8}$/),
      );
      fc.assert(
        fc.property(name, fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue()), (key, props) => {
          const m = msgOf({ ...props });
          assert.deepEqual(evaluateNow(RED, node, m, key, 'msg'), util.getMessageProperty(m, key));
        }),
        { numRuns: 300 },
      );
    });
  });

  describe('msg overrides and dialog fields (MsgOverrides.field, fieldNow)', () => {
    const node = nodeWith();
    const def = { recipient: 'recipient', recipientType: 'msg', caption: 'fixed', text: 'payload' };

    it('a msg property set by the flow wins over the dialog; undefined and null do not', async () => {
      const table = {
        sender: override({
          prop: 'sender',
          field: { name: 'sender', kind: 'typed' },
          type: 'string',
          check: String,
        }),
      };
      const o = new MsgOverrides(table, RED, node, { sender: 'DIALOG', senderType: 'str' });
      const m = msgOf({ sender: 'FLOW', recipient: '+49171' });
      assert.equal(o.field(m, 'sender'), 'FLOW');
      for (const absent of [undefined, null]) {
        const n = msgOf({ sender: absent });
        assert.equal(o.field(n, 'sender'), 'DIALOG');
      }
    });

    it('reads the typedInput pair of the dialog (a field without a type is a string)', async () => {
      const m = msgOf({ recipient: '+4917011111111', payload: 'text' });
      assert.equal(fieldNow(RED, node, def, m, 'recipient'), '+4917011111111');
      assert.equal(fieldNow(RED, node, def, m, 'caption'), 'fixed');
      assert.equal(await fieldOf(RED, node, def, m, 'text'), 'payload');
      assert.equal(fieldNow(RED, node, def, m, 'missing'), undefined);
    });
  });

  describe('the Output property (nodeOutput)', () => {
    it('writes nested properties as setMessageProperty does, creating what is missing', () => {
      const out = nodeOutput(RED, { output: 'result.sms' });
      const m = msgOf({ payload: 'text', result: { keep: 1 } });
      out.check(m);
      assert.equal(out.write(m, { JobId: 7 }), true);
      assert.deepEqual(m, { payload: 'text', result: { keep: 1, sms: { JobId: 7 } } });
      const fresh = msgOf({ payload: 'text' });
      nodeOutput(RED, { output: 'a.b[0].c' }).write(fresh, 1);
      assert.deepEqual((fresh as Record<string, unknown>).a, { b: [{ c: 1 }] });
    });

    it('a msg reference inside the property names a place per msg', () => {
      const out = nodeOutput(RED, { output: 'results[msg.topic]' });
      const m = msgOf({ topic: 'freezer' });
      out.check(m);
      out.write(m, 'sent');
      assert.deepEqual((m as Record<string, unknown>).results, { freezer: 'sent' });
    });

    it('blank, missing and "msg." forms', () => {
      assert.equal(nodeOutput(RED, {}).property, 'payload');
      assert.equal(nodeOutput(RED, { output: ' ' }).property, 'payload');
      assert.equal(nodeOutput(RED, { output: 'msg.result' }).property, 'result');
    });

    it('refuses a property that does not parse (CONFIG) and one below a non-object (VALIDATION)', () => {
      assert.throws(
        () => nodeOutput(RED, { output: 'a..b' }).check(msgOf({})),
        (e: unknown) => isGatewayError(e) && e.code === 'CONFIG',
      );
      for (const below of ['text', 3, true, null]) {
        assert.throws(
          () => nodeOutput(RED, { output: 'result.sms' }).check(msgOf({ result: below })),
          (e: unknown) => isGatewayError(e) && e.code === 'VALIDATION' && /msg\.result is/.test(e.message),
        );
      }
    });

    it('array elements: an empty slot is created, a null one refused where util cannot write', () => {
      const out = nodeOutput(RED, { output: 'list[0].sms' });
      const hole = msgOf({ list: [undefined] });
      out.check(hole);
      out.write(hole, 1);
      assert.deepEqual((hole as Record<string, unknown>).list, [{ sms: 1 }]);
      const nul = msgOf({ list: [null] });
      assert.equal(util.setMessageProperty(msgOf({ list: [null] }), 'list[0].sms', 1, true), false);
      // one level deeper util throws a TypeError instead of answering false
      assert.throws(
        () => util.setMessageProperty(msgOf({ list: [null] }), 'list[0].a.b', 1, true),
        TypeError,
      );
      assert.throws(
        () => nodeOutput(RED, { output: 'list[0].a.b' }).check(msgOf({ list: [null] })),
        (e: unknown) => isGatewayError(e) && e.code === 'VALIDATION',
      );
      assert.throws(
        () => out.check(nul),
        (e: unknown) =>
          isGatewayError(e) && e.code === 'VALIDATION' && /msg\.list\[0\] is null/.test(e.message),
      );
    });

    it('check() refuses exactly where setMessageProperty cannot write (any msg shape, any path)', () => {
      const leaf = fc.oneof(
        fc.string({ maxLength: 3 }),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.constant(undefined),
      );
      const shape = fc.letrec((tie) => ({
        value: fc.oneof(
          { depthSize: 'small' },
          leaf,
          fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('value'), { maxKeys: 3 }),
          fc.array(tie('value'), { maxLength: 3 }),
        ),
      })).value;
      const step = fc.oneof(
        fc.constantFrom('a', 'b', 'c').map((k) => `.${k}`),
        fc.integer({ min: 0, max: 2 }).map((i) => `[${i}]`),
      );
      fc.assert(
        fc.property(
          fc.dictionary(fc.constantFrom('a', 'b', 'c'), shape, { maxKeys: 3 }),
          fc.constantFrom('a', 'b', 'c'),
          fc.array(step, { maxLength: 4 }),
          (props, first, steps) => {
            const property = first + steps.join('');
            const out = nodeOutput(RED, { output: property });
            const m = msgOf(structuredClone(props));
            let refused = false;
            try {
              out.check(m);
            } catch (e) {
              assert.ok(isGatewayError(e) && e.code === 'VALIDATION', String(e));
              refused = true;
            }
            let written: boolean;
            try {
              written = util.setMessageProperty(msgOf(structuredClone(props)), property, 'x', true);
            } catch {
              // util throws for some shapes (an array element that is null): no place to write either
              written = false;
            }
            assert.equal(refused, !written, `${property} on ${JSON.stringify(props)}`);
            if (!refused) {
              assert.equal(out.write(m, 'x'), true);
              assert.equal(util.getMessageProperty(m, property), 'x');
            }
          },
        ),
        { numRuns: 500 },
      );
    });
  });

  describe('cloning: the msg a delivery outcome is built from (trackingContext)', () => {
    const sent = (): NodeMessageInFlow =>
      ({
        _msgid: 'm1',
        payload: 'freezer warm',
        topic: 'alarm',
        sensor: { id: 'freezer', readings: [-12, -11] },
        req: { socket: 'shared' },
        res: { end: 'shared' },
      }) as unknown as NodeMessageInFlow;

    it('is a deep copy: the flow changing the sent msg later does not change it', () => {
      const msg = sent();
      const context = trackingContext(RED, msg, nodeOutput(RED, {}));
      (msg as unknown as { sensor: { readings: number[] } }).sensor.readings.push(99);
      assert.deepEqual((context.sensor as { readings: number[] }).readings, [-12, -11]);
      // as RED.util.cloneMessage does: an http-in msg's req/res are the same objects
      assert.equal(context.req, (msg as unknown as { req: unknown }).req);
      assert.equal(context.res, (msg as unknown as { res: unknown }).res);
    });

    it('drops the payload when the outcome goes to msg.payload, keeps it for another Output', () => {
      assert.equal('payload' in trackingContext(RED, sent(), nodeOutput(RED, {})), false);
      assert.equal(
        trackingContext(RED, sent(), nodeOutput(RED, { output: 'result.sms' })).payload,
        'freezer warm',
      );
    });
  });
});
