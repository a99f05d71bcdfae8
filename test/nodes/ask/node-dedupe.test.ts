/**
 * The dedupe key in Node-RED against the emulator: msgs with the key of an open question update it instead of
 * asking again; after it closed, the key's quiet time drops them (a warning, nothing sent).
 */
import assert from 'node:assert/strict';
import {
  collect,
  flowWith,
  helper,
  loadFlow,
  send,
  startEnv,
  statuses,
  stopEnv,
  waitFor,
  type Env,
  type FlowNode,
} from '../helpers';
import { A, B, asker, jobsTo, reply } from './asker';

/** Steps of a minute (nothing waits for a step to end), the new node's dedupe key msg.topic. */
const deduper = (extra: Record<string, unknown> = {}): FlowNode =>
  asker({ wait: 60, dedupe: 'topic', quiet: 10, ...extra });

/** Warnings this node logged (node.warn's first argument). */
function nodeWarnings(id: string): string[] {
  const node = helper.getNode(id) as unknown as { warn: { args: unknown[][]; thisValues: unknown[] } };
  return node.warn.args.filter((_a, i) => node.warn.thisValues[i] === node).map((a) => String(a[0]));
}

describe('smsgw-ask node: dedupe key', function () {
  this.timeout(60_000);
  let env: Env;
  beforeEach(async () => {
    env = await startEnv();
  });
  afterEach(async () => {
    await stopEnv(env);
  });

  it('100 msgs of one topic while its question is open: one question, one first SMS; the answer outputs the last msg once', async () => {
    await loadFlow(flowWith(env.emu.url, [deduper()]));
    const out = collect('out');
    for (let i = 1; i <= 100; i++)
      send('ask', { payload: `Freezer too warm: ${-10 + i / 100} C`, topic: 'freezer' });
    await waitFor(() => /updated 99×/.test(String(statuses('ask').at(-1)?.text ?? '')));
    // Another cause asks on its own.
    send('ask', { payload: 'Pump stopped', topic: 'pump' });
    await waitFor(() => jobsTo(env, A).length === 2);
    // One first SMS: with the text of the last msg merged before it went out (all came within one read).
    const texts = jobsTo(env, A).map((j) => j.text.split('\n')[0]!);
    assert.equal(texts.length, 2);
    assert.match(texts[0]!, /^Freezer too warm: -9(\.\d+)? C$/);
    assert.equal(texts[1], 'Pump stopped');
    const code = /Reply 1([a-z]+)=/.exec(jobsTo(env, A)[0]!.text)![1]!;
    reply(env, A, `1${code}`);
    await waitFor(() => out.messages.length === 1);
    assert.equal(out.messages[0]!.payload, 'Freezer too warm: -9 C', 'the last msg with the key');
    // One more msg with the key: the acknowledged question takes it (it can still be resolved), nothing is sent.
    send('ask', { payload: 'Freezer too warm: -8 C', topic: 'freezer' });
    send('ask', { payload: 'Door open', topic: 'door' });
    await waitFor(() => jobsTo(env, A).length === 3);
    assert.deepEqual(
      [jobsTo(env, A)[2]!.text.split('\n')[0], jobsTo(env, B).length, out.messages.length],
      ['Door open', 0, 1],
    );
  });

  it('"Text an update": a msg that changes the text texts whoever holds it; the same text again sends nothing', async () => {
    await loadFlow(flowWith(env.emu.url, [deduper({ tellUpdate: true })]));
    send('ask', { payload: 'Freezer too warm: -9 C', topic: 'freezer' });
    await waitFor(() => jobsTo(env, A).length === 1);
    send('ask', { payload: 'Freezer too warm: -9 C', topic: 'freezer' });
    send('ask', { payload: 'Freezer too warm: -5 C', topic: 'freezer' });
    await waitFor(() => jobsTo(env, A).length === 2);
    send('ask', { payload: 'Door open', topic: 'door' });
    await waitFor(() => jobsTo(env, A).length === 3);
    assert.deepEqual(
      jobsTo(env, A).map((j) => j.text.split('\n')[0]),
      ['Freezer too warm: -9 C', 'Update (a): Freezer too warm: -5 C', 'Door open'],
    );
  });

  it('after the question closed, a msg with its key in the quiet time is dropped with a warning; another key asks', async () => {
    await loadFlow(flowWith(env.emu.url, [deduper()]));
    send('ask', { payload: 'Freezer too warm: -9 C', topic: 'freezer' });
    await waitFor(() => jobsTo(env, A).length === 1);
    send('ask', { topic: 'freezer', ask: { cancel: true } });
    await waitFor(() => statuses('ask').at(-1)?.text === 'no open questions');
    send('ask', { payload: 'Freezer too warm: -7 C', topic: 'freezer' });
    await waitFor(() => nodeWarnings('ask').some((w) => w.includes('freezer')));
    send('ask', { payload: 'Door open', topic: 'door' });
    await waitFor(() => jobsTo(env, A).length === 2);
    assert.deepEqual(
      jobsTo(env, A).map((j) => j.text.split('\n')[0]),
      ['Freezer too warm: -9 C', 'Door open'],
    );
    assert.match(
      nodeWarnings('ask').find((w) => w.includes('freezer'))!,
      /Quiet time after close/,
    );
  });

  it('a flow saved without a dedupe key asks for every msg, as before', async () => {
    await loadFlow(flowWith(env.emu.url, [asker({ wait: 60 })]));
    send('ask', { payload: 'Freezer too warm: -9 C', topic: 'freezer' });
    send('ask', { payload: 'Freezer too warm: -8 C', topic: 'freezer' });
    await waitFor(() => jobsTo(env, A).length === 2);
    assert.deepEqual(
      jobsTo(env, A).map((j) => j.text),
      ['Freezer too warm: -9 C\nReply 1a=ok 2a=busy', 'Freezer too warm: -8 C\nReply 1b=ok 2b=busy'],
    );
  });
});
