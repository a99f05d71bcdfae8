/**
 * Answers to a person's reply, in Node-RED against the emulator: the late acknowledger's "Already taken by", the
 * "Which one?", nothing for a stranger, and two auto-responding phones (each answers every SMS it gets): the
 * reply limiter keeps the SMS count bounded.
 */
import assert from 'node:assert/strict';
import {
  collect,
  flowWith,
  loadFlow,
  send,
  startEnv,
  stopEnv,
  waitFor,
  warnings,
  type Env,
  type FlowNode,
} from '../helpers';
import { A, B, STRANGER, asker, jobsTo, reply } from './asker';

/** A step of a minute: nothing here waits for a step to end. */
const askerMinute = (extra: Record<string, unknown> = {}): FlowNode => asker({ wait: 60, ...extra });

describe('smsgw-ask node: answers to a person', function () {
  this.timeout(60_000);
  let env: Env;
  beforeEach(async () => {
    env = await startEnv();
  });
  afterEach(async () => {
    await stopEnv(env);
  });

  it('a late acknowledger gets "Already taken by" once; the one who took it and a stranger get nothing', async () => {
    await loadFlow(flowWith(env.emu.url, [askerMinute()]));
    const out = collect('out');
    send('ask', { payload: 'Freezer too warm', topic: 'freezer' });
    await waitFor(() => jobsTo(env, A).length === 1);
    reply(env, A, '2');
    await waitFor(() => jobsTo(env, B).length === 1);
    reply(env, B, '1');
    await waitFor(() => out.messages.length === 1);
    reply(env, A, '1a');
    reply(env, B, '1');
    env.emu.control.injectInbound({ from: STRANGER, text: '1' });
    await waitFor(() => jobsTo(env, A).length === 2);
    assert.match(jobsTo(env, A)[1]!.text, /^Already taken by \+491701110002 at \d\d:\d\d \(a\)$/);
    // The replies after A's were read in the same read or later: one more reply from A, and its answer, show
    // that read is done.
    reply(env, A, '1');
    await waitFor(() => jobsTo(env, A).length === 3);
    assert.deepEqual(
      [jobsTo(env, A).length, jobsTo(env, B).length, jobsTo(env, STRANGER).length, out.messages.length],
      [3, 1, 0, 1],
    );
  });

  it('"1" while two questions are open asks which one; "1b" then answers', async () => {
    await loadFlow(flowWith(env.emu.url, [askerMinute({ numbers: A })]));
    const out = collect('out');
    send('ask', { payload: 'Freezer too warm', topic: 'freezer' });
    send('ask', { payload: 'Pump stopped', topic: 'pump' });
    await waitFor(() => jobsTo(env, A).length === 2);
    reply(env, A, '1');
    await waitFor(() => jobsTo(env, A).length === 3);
    assert.equal(jobsTo(env, A)[2]!.text, 'Which one? Reply 1a or 1b');
    reply(env, A, '1b');
    await waitFor(() => out.messages.length === 1);
    assert.equal(out.messages[0]!.payload, 'Pump stopped');
  });

  it('two auto-responding phones answer every SMS with "1": at most 5 answers each, then the limiter, and the count stays there', async () => {
    await loadFlow(flowWith(env.emu.url, [askerMinute({ numbers: 'numbers', numbersType: 'msg' })]));
    for (const [n, what] of [
      [A, 'Freezer'],
      [A, 'Pump'],
      [B, 'Door'],
      [B, 'Boiler'],
    ] as const)
      send('ask', { payload: what, numbers: n });
    await waitFor(() => jobsTo(env, A).length === 2 && jobsTo(env, B).length === 2);
    // The phones: each new SMS to A or B gets "1" back (bounded: a loop this test cannot stop would end here).
    const answered = new Set<number>();
    const limited = (n: string): boolean =>
      warnings('cfg').some((w) => w.includes(n) && w.includes('reply limiter'));
    for (let round = 0; round < 200 && !(limited(A) && limited(B)); round++) {
      for (const n of [A, B]) {
        const last = jobsTo(env, n).at(-1)!;
        if (answered.has(last.id)) continue;
        answered.add(last.id);
        reply(env, n, '1');
      }
      await waitFor(
        () => (limited(A) && limited(B)) || [A, B].some((n) => !answered.has(jobsTo(env, n).at(-1)!.id)),
        20_000,
      );
    }
    assert.ok(limited(A) && limited(B), 'the limiter held both');
    // Every SMS either phone got has been answered by it: nothing more can come from the loop.
    for (const n of [A, B]) {
      const texts = jobsTo(env, n).map((j) => j.text.split('\n')[0]);
      assert.equal(texts.length, 7, `${n}: 2 questions, 5 answers`);
      assert.deepEqual(texts.slice(2), Array(5).fill(texts[2]));
      assert.match(texts[2]!, /^Which one\? Reply 1[a-d] or 1[a-d]$/);
    }
  });
});
