/**
 * Resolve in Node-RED against the emulator: msg.ask.resolve and the resolve reply close a question as resolved,
 * output 3 carries it, everyone asked (or only the acknowledger) gets exactly one "Resolved:" SMS; a resolve of a
 * question that is not open is a catchable error and sends nothing.
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
  type Env,
  type FlowNode,
} from '../helpers';
import { A, B, STRANGER, asker, jobs, jobsTo, reply } from './asker';

/** Steps of a minute (nothing waits for a step to end: replies pass it on), the new node's resolve words. */
const resolver = (extra: Record<string, unknown> = {}): FlowNode =>
  asker({ wait: 60, resolve: '3, done, erledigt', ...extra });

const textsTo = (env: Env, n: string): string[] => jobsTo(env, n).map((j) => j.text.split('\n')[0]!);

describe('smsgw-ask node: resolve', function () {
  this.timeout(60_000);
  let env: Env;
  beforeEach(async () => {
    env = await startEnv();
  });
  afterEach(async () => {
    await stopEnv(env);
  });

  /** A asked, passes it on ("2"), B acknowledges ("1"): both were asked, B holds it. */
  async function acknowledgedByB(extra: Record<string, unknown> = {}): Promise<ReturnType<typeof collect>> {
    await loadFlow(flowWith(env.emu.url, [resolver(extra)]));
    const out = collect('out');
    send('ask', { payload: 'Freezer too warm: -9 C', topic: 'freezer' });
    await waitFor(() => jobsTo(env, A).length === 1);
    assert.equal(jobsTo(env, A)[0]!.text, 'Freezer too warm: -9 C\nReply 1a=ok 2a=busy 3a=done');
    reply(env, A, '2');
    await waitFor(() => jobsTo(env, B).length === 1);
    reply(env, B, '1');
    await waitFor(() => out.messages.length === 1);
    return out;
  }

  it('msg.ask.resolve after an acknowledgement: everyone asked gets exactly one "Resolved:" SMS, output 3 once', async () => {
    const out = await acknowledgedByB();
    const out3 = collect('out3');
    send('ask', { payload: 'Freezer back to -18 C', topic: 'freezer', ask: { resolve: true } });
    await waitFor(
      () => out3.messages.length === 1 && jobsTo(env, A).length === 2 && jobsTo(env, B).length === 2,
    );
    // A second resolve (the question is closed now) sends nothing: it fails (caught below).
    const caught = collect('caught');
    send('ask', { payload: 'Freezer back to -18 C', topic: 'freezer', ask: { resolve: true } });
    await waitFor(() => caught.messages.length === 1);
    assert.deepEqual(textsTo(env, A), ['Freezer too warm: -9 C', 'Resolved: Freezer back to -18 C']);
    assert.deepEqual(textsTo(env, B), [
      `Passed on by ${A}: Freezer too warm: -9 C`,
      'Resolved: Freezer back to -18 C',
    ]);
    assert.equal(jobsTo(env, STRANGER).length, 0);
    const msg = out3.messages[0]!;
    assert.equal(msg.payload, 'Freezer too warm: -9 C', 'the msg that asked');
    const ask = msg.ask as Record<string, unknown>;
    assert.equal(ask.status, 'resolved');
    assert.equal(ask.resolution, 'Freezer back to -18 C');
    assert.equal(ask.resolvedBy, '');
    assert.equal(ask.from, B, 'who acknowledged it');
    assert.equal(ask.code, 'a');
    assert.deepEqual([out.messages.length, out3.messages.length], [1, 1]);
  });

  it('"only the one who acknowledged": the resolve SMS goes to B alone', async () => {
    await acknowledgedByB({ tellResolve: 'acknowledger' });
    const out3 = collect('out3');
    send('ask', { payload: 'Freezer back to -18 C', topic: 'freezer', ask: { resolve: true } });
    await waitFor(() => out3.messages.length === 1 && jobsTo(env, B).length === 2);
    // One more question to A, answered: the resolve SMS (if any) to A came before it.
    send('ask', { payload: 'Pump stopped', topic: 'pump' });
    await waitFor(() => textsTo(env, A).includes('Pump stopped'));
    assert.deepEqual(textsTo(env, A), ['Freezer too warm: -9 C', 'Pump stopped']);
    assert.equal(textsTo(env, B)[1], 'Resolved: Freezer back to -18 C');
  });

  it('the resolve reply: "3a" from B resolves it, A is told, B (who resolved it) is not; msg.ask.resolvedBy is B', async () => {
    const out = await acknowledgedByB();
    const out3 = collect('out3');
    reply(env, B, '3a');
    await waitFor(() => out3.messages.length === 1 && jobsTo(env, A).length === 2);
    assert.equal(textsTo(env, A)[1], 'Resolved: Freezer too warm: -9 C');
    const ask = out3.messages[0]!.ask as Record<string, unknown>;
    assert.deepEqual([ask.status, ask.resolvedBy, ask.resolution], ['resolved', B, 'Freezer too warm: -9 C']);
    // B's "done" again: the question is resolved, nothing more (no SMS, no output).
    reply(env, B, 'done');
    send('ask', { payload: 'Pump stopped', topic: 'pump' });
    await waitFor(() => textsTo(env, A).includes('Pump stopped'));
    reply(env, A, '1');
    await waitFor(() => out.messages.length === 2);
    assert.deepEqual([jobsTo(env, B).length, out3.messages.length], [1, 1]);
  });

  it("a question still asking is resolved by msg.ask.resolve without a text (the question's own), no further step, A told once", async () => {
    await loadFlow(flowWith(env.emu.url, [resolver()]));
    const out3 = collect('out3');
    const out2 = collect('out2');
    send('ask', { payload: 'Door open', topic: 'door' });
    await waitFor(() => jobsTo(env, A).length === 1);
    // Resolved without a text: the question's own.
    send('ask', { topic: 'door', ask: { resolve: true } });
    await waitFor(() => out3.messages.length === 1 && jobsTo(env, A).length === 2);
    assert.equal(textsTo(env, A)[1], 'Resolved: Door open');
    const ask = out3.messages[0]!.ask as Record<string, unknown>;
    assert.deepEqual([ask.answer, ask.from, ask.step, ask.resolution], ['', '', 1, 'Door open']);
    // A's late "1" acknowledges nothing now, and B is never asked.
    reply(env, A, '1');
    send('ask', { payload: 'Pump stopped', topic: 'pump' });
    await waitFor(() => textsTo(env, A).includes('Pump stopped'));
    assert.deepEqual([jobsTo(env, B).length, out2.messages.length, out3.messages.length], [0, 0, 1]);
  });

  it('a resolve naming no open question (unknown topic, unknown id, or none at all) fails for a Catch node and sends nothing', async () => {
    await loadFlow(flowWith(env.emu.url, [resolver()]));
    const caught = collect('caught');
    const out3 = collect('out3');
    send('ask', { payload: 'all fine', topic: 'nothing-open', ask: { resolve: true } });
    send('ask', { ask: { resolve: 'feedfacecafe' } });
    send('ask', { ask: { resolve: true } });
    await waitFor(() => caught.messages.length === 3);
    const texts = caught.messages.map((m) => String((m.error as Error).message)).sort();
    assert.match(texts[0]!, /msg\.ask\.resolve needs msg\.topic or msg\.ask\.id/);
    assert.match(texts[1]!, /nothing to resolve: no open question with ask id feedfacecafe/);
    assert.match(texts[2]!, /nothing to resolve: no open question with topic "nothing-open"/);
    assert.deepEqual([jobs(env).length, out3.messages.length], [0, 0]);
  });
});
