/**
 * A state file that cannot be written, in Node-RED: the config node's reader of inbound messages and a trigger
 * listening to it. Nothing follows from what is not on disk (no read, no msg), the trigger shows a red ring
 * "cannot save <file>: <code>", its Catch node hears one error, and once the file can be written the message
 * comes out once. The fault is made through the store's one door to the disk (src/store/fs.ts): the rename of
 * the file fails (EIO), as on a failing disk.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { injectFaults } from '../../src/store/fs';
import {
  collect,
  flowWith,
  helper,
  loadFlow,
  send,
  sleep,
  startEnv,
  statuses,
  stopEnv,
  waitFor,
  type Env,
  type FlowNode,
} from './helpers';

describe('nodes: a state file that cannot be written (the reader of a queue, a trigger)', function () {
  this.timeout(30_000);
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  const trigger: FlowNode = {
    id: 'in',
    type: 'smsgw-inbound',
    gateway: 'cfg',
    interval: 3600,
    inputs: 1,
    wires: [['out']],
  };

  const polled = async (): Promise<void> => {
    const before = statuses('in').length;
    send('in', { payload: 'poll' });
    await waitFor(() =>
      statuses('in')
        .slice(before)
        .some((s) => s.fill !== undefined && s.fill !== 'blue'),
    );
  };

  for (const [who, name] of [
    ["the config's reader", 'smsgw-inbound-reader.cfg.json'],
    ["the trigger's own keys", 'smsgw-inbound.in.json'],
  ] as const)
    it(`${who} (${name}): nothing emitted twice or lost, a red ring, one error a Catch node hears`, async () => {
      await loadFlow(flowWith(env.emu.url, [trigger]));
      const out = collect('out');
      const caught = collect('caught');
      await polled();
      const file = path.join(env.userDir, 'smsgw-state', name);
      let failing = true;
      const off = injectFaults((op, p) => (failing && op === 'rename' && p === file ? 'EIO' : undefined));
      try {
        env.emu.control.injectInbound({ from: '+4917012349001', text: `while ${name} cannot be written` });
        await polled();
        await waitFor(() => statuses('in').some((s) => s.text === `cannot save ${name}: EIO`));
        await waitFor(() => caught.messages.length === 1);
        assert.equal(caught.messages[0]!.topic, 'smsgw/store');
        assert.equal((caught.messages[0]!.payload as Record<string, unknown>).file, file);
        // Polled again while it fails: told once, and what was emitted (if anything) not again.
        await polled();
        await polled();
        assert.ok(out.messages.length <= 1);
        assert.equal(caught.messages.length, 1, 'told once');
      } finally {
        failing = false;
        off();
      }
      await polled();
      await waitFor(() => out.messages.length === 1, 10_000);
      await polled();
      await sleep(200);
      assert.deepEqual(
        out.messages.map((m) => m.payload),
        [`while ${name} cannot be written`],
        'the message once',
      );
      assert.notEqual(statuses('in').at(-1)!.fill, 'red', 'the ring goes once it is saved');
      const cfg = helper.getNode('cfg') as unknown as { log: { args: unknown[][] } };
      assert.ok(
        cfg.log.args.some((a) => String(a[0]).includes(`${name} can be written again`)) ||
          (helper.getNode('in') as unknown as { log: { args: unknown[][] } }).log.args.some((a) =>
            String(a[0]).includes(`${name} can be written again`),
          ),
        'one line when it works again',
      );
    });
});
