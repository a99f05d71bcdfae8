/**
 * A reader killed between the gateway's answer to a collecting read and the save of that read's records:
 * the gateway marked them collected, so no later collecting read returns them. The reader notes
 * durably that a collecting read is in flight before it sends it; the next start finds the note and runs the
 * recovery read first. Simulated here without a kill: the read's answer arrives, then the poll ends before anything
 * is saved (as a kill would end it), the flow is stopped, and a new reader starts from the same userDir.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import type { Node, NodeMessage } from 'node-red';
import { GatewayClient } from '../../src/client';
import { HLR_RESULTS, INBOUND, type QueueKind } from '../../src/nodes/polling/queue-kinds';
import {
  flowWith,
  helper,
  loadFlow,
  pollUntil,
  send,
  sleep,
  startEnv,
  stopEnv,
  waitFor,
  type Env,
  type FlowNode,
} from './helpers';

/** Makes the reader's next collecting read end as a kill would: answered by the gateway, nothing saved after. */
function killAfterAnswer(kind: QueueKind<never> = INBOUND as QueueKind<never>): { killed: () => boolean } {
  const config = helper.getNode('cfg') as unknown as {
    queueReader(kind: QueueKind<never>): { read(...args: unknown[]): Promise<unknown> };
  };
  const reader = config.queueReader(kind);
  const original = reader.read.bind(reader);
  let killed = false;
  reader.read = async (...args: unknown[]) => {
    if (killed) return original(...args);
    await original(...args);
    killed = true;
    throw new Error('killed between the answer and the save');
  };
  return { killed: () => killed };
}

/** After the restart: a poll that should bring everything, then one more, in which a repeat would show. */
async function pollAllThenOnceMore(all: () => boolean): Promise<void> {
  send('in', { payload: 'poll' });
  await waitFor(all, 15_000).catch(() => undefined);
  send('in', { payload: 'poll' });
  await sleep(300);
}

describe('nodes: a reader killed between the gateway answer and the save', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(() => stopEnv(env));
  afterEach(async () => {
    await helper.unload();
    for (const type of ['smsgw-inbound', 'smsgw-hlr-results'])
      rmSync(path.join(env.userDir, 'smsgw-state', `${type}-reader.cfg.json`), { force: true });
  });

  const inboundFlow = (): FlowNode[] =>
    flowWith(env.emu.url, [
      {
        id: 'in',
        type: 'smsgw-inbound',
        name: '',
        gateway: 'cfg',
        interval: 3600,
        inputs: 1,
        wires: [['out']],
      },
    ]);

  function counter(): Map<string, number> {
    const counts = new Map<string, number>();
    (helper.getNode('out') as Node).on('input', (m: NodeMessage) =>
      counts.set(String(m.payload), (counts.get(String(m.payload)) ?? 0) + 1),
    );
    return counts;
  }

  it('one instance: the next start recovers what the killed read collected, each message once', async () => {
    const texts = (prefix: string, n: number): string[] =>
      Array.from({ length: n }, (_, i) => `${prefix}${i}`);
    for (const text of texts('before ', 3)) env.emu.control.injectInbound({ from: '+4917012345001', text });
    await loadFlow(inboundFlow());
    const first = counter();
    const kill = killAfterAnswer();
    send('in', { payload: 'poll' });
    await waitFor(kill.killed, 5000);
    assert.equal(first.size, 0, 'nothing emitted before the kill');
    const collected = (
      env.emu.control.snapshot() as { accounts: { inbound: { collected: boolean }[] }[] }
    ).accounts
      .flatMap((a) => a.inbound)
      .filter((m) => m.collected).length;
    assert.equal(collected, 3, 'the gateway marked them collected');
    await helper.unload();
    const file = path.join(env.userDir, 'smsgw-state', 'smsgw-inbound-reader.cfg.json');
    const noted = existsSync(file) && /"reading"/.test(readFileSync(file, 'utf8'));

    for (const text of texts('after ', 2)) env.emu.control.injectInbound({ from: '+4917012345001', text });
    await loadFlow(inboundFlow());
    const second = counter();
    await pollAllThenOnceMore(() => second.size === 5);
    assert.deepEqual(
      [...second].sort(),
      [...texts('after ', 2), ...texts('before ', 3)].sort().map((t) => [t, 1]),
      'each message once: 0 lost, 0 twice',
    );
    assert.ok(noted, 'the note of the read in flight was on disk');
    assert.doesNotMatch(readFileSync(file, 'utf8'), /"recover"/, 'nothing left to recover');
  });

  it('one instance, HLR results: the next start recovers what the killed read collected, each result once', async () => {
    const hlrFlow = (): FlowNode[] =>
      flowWith(env.emu.url, [
        {
          id: 'in',
          type: 'smsgw-hlr-results',
          name: '',
          gateway: 'cfg',
          interval: 3600,
          inputs: 1,
          wires: [['out']],
        },
      ]);
    const topics = (): Map<string, number> => {
      const counts = new Map<string, number>();
      (helper.getNode('out') as Node).on('input', (m: NodeMessage) =>
        counts.set(String(m.topic), (counts.get(String(m.topic)) ?? 0) + 1),
      );
      return counts;
    };
    const client = new GatewayClient({ baseUrl: env.emu.url, user: 'demo', password: 'demo-password' });
    try {
      await loadFlow(hlrFlow());
      const first = topics();
      const kill = killAfterAnswer(HLR_RESULTS as QueueKind<never>);
      await client.send.sendHlr({ Caption: 'killed', Recipient: '+4917055545001,+4917055545002' });
      env.emu.control.finishJobs();
      send('in', { payload: 'poll' });
      await waitFor(kill.killed, 5000);
      assert.equal(first.size, 0, 'nothing emitted before the kill');
      await helper.unload();

      await client.send.sendHlr({ Caption: 'after', Recipient: '+4917055545003' });
      env.emu.control.finishJobs();
      await loadFlow(hlrFlow());
      const second = topics();
      await pollAllThenOnceMore(() => second.size === 3);
      assert.deepEqual(
        [...second].sort(),
        [
          ['+4917055545001', 1],
          ['+4917055545002', 1],
          ['+4917055545003', 1],
        ],
        'each result once: 0 lost, 0 twice',
      );
    } finally {
      await client.close();
    }
  });

  it('one instance: a clean stop drops the note, so the next start makes no recovery read', async () => {
    const recoveries = (): number =>
      env.emu.requests.list().filter((r) => r.operation === 'QueryReceivedSMSByJobCaption').length;
    env.emu.control.injectInbound({ from: '+4917012345002', text: 'quiet' });
    // Counted from here: the earlier tests' reads are not this one's (and the log is a ring of 200).
    env.emu.requests.clear();
    await loadFlow(inboundFlow());
    const first = counter();
    send('in', { payload: 'poll' });
    await waitFor(() => first.size === 1, 5000);
    // The second read (it brings nothing) and its note. The first poll may still be saving after it emitted, and
    // a poll asked for while one runs joins that one instead of reading again (a loaded matrix cell failed here
    // with a fixed sleep): ask again until the gateway has seen the second collecting read. The note is durable
    // before that read is sent, so it is on disk once the gateway has the request.
    const reads = (): number =>
      env.emu.requests.list().filter((r) => r.operation === 'QueryReceivedNewSMS').length;
    await pollUntil('in', () => reads() >= 2);
    assert.equal(reads(), 2, 'a second collecting read');
    const file = path.join(env.userDir, 'smsgw-state', 'smsgw-inbound-reader.cfg.json');
    assert.match(readFileSync(file, 'utf8'), /"reading"/, 'the note stays after a read that brought nothing');
    await helper.unload();
    assert.doesNotMatch(readFileSync(file, 'utf8'), /"reading"/, 'dropped on a clean stop');
    const before = recoveries();
    await loadFlow(inboundFlow());
    const second = counter();
    send('in', { payload: 'poll' });
    await sleep(500);
    assert.equal(second.size, 0);
    assert.equal(recoveries(), before, 'no recovery read after a clean stop');
  });
});
