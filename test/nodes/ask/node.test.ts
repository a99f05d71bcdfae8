/**
 * The ask node in Node-RED (node-red-node-test-helper) against the emulator: questions go out through the send
 * path, replies come in as a phone in the emulator's console sends them (control API, with the JobId of the
 * newest message to that number), steps of a second.
 */
import assert from 'node:assert/strict';
import { readStateFile } from '../../store/read';
import { injectFaults } from '../../../src/store/fs';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
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
  warnings,
  type Env,
} from '../helpers';
import { A, B, STRANGER, asker, jobs, jobsTo, reply } from './asker';

/** Errors this node logged (node.error's first argument), filtered like statuses(). */
function errors(id: string): string[] {
  const node = helper.getNode(id) as unknown as { error: { args: unknown[][]; thisValues: unknown[] } };
  return node.error.args.filter((_a, i) => node.error.thisValues[i] === node).map((a) => String(a[0]));
}

describe('smsgw-ask node', function () {
  this.timeout(30_000);
  let env: Env;
  beforeEach(async () => {
    env = await startEnv();
  });
  afterEach(async () => {
    await stopEnv(env);
  });

  it('asks the first number; its reply "1" gives output 1 once with msg.ask, the msg kept, nobody else asked', async () => {
    // A step of a minute: the reply must answer the first step, however slowly this machine reads it. That the
    // step's end passes nothing on after an answer, the engine's test shows on its own clock.
    await loadFlow(flowWith(env.emu.url, [asker({ wait: 60 })]));
    const out = collect('out');
    const out2 = collect('out2');
    send('ask', { payload: 'Freezer too warm: -9 C', topic: 'freezer', reading: -9 });
    await waitFor(() => jobsTo(env, A).length === 1);
    const job = jobsTo(env, A)[0]!;
    assert.equal(job.text, 'Freezer too warm: -9 C\nReply 1a=ok 2a=busy');
    assert.match(job.caption, /^freezer #[a-z0-9]{10}$/, `the reference in the caption: ${job.caption}`);
    await waitFor(() => statuses('ask').some((s) => s.text === `a: step 1/2, ${A}` && s.fill === 'yellow'));
    reply(env, A, '1');
    await waitFor(() => out.messages.length === 1);
    const msg = out.messages[0]!;
    assert.equal(msg.payload, 'Freezer too warm: -9 C');
    assert.equal(msg.reading, -9);
    const ask = msg.ask as Record<string, unknown>;
    assert.equal(ask.answer, '1');
    assert.equal(ask.from, A);
    assert.equal(ask.step, 1);
    assert.equal(ask.jobId, job.id);
    assert.equal(ask.code, 'a');
    assert.ok(typeof ask.afterMs === 'number' && ask.afterMs > 0 && ask.afterMs < 60_000);
    // Closed in the state file (kept answered for an hour, for a late reply): nothing is left open that a step's
    // end (or a restart) could pass on.
    await waitFor(() => statuses('ask').at(-1)?.text === 'no open questions');
    const file = path.join(env.userDir, 'smsgw-state', 'smsgw-ask.cfg.json');
    const states = (): string[] =>
      Object.values(
        readStateFile<{ questions?: Record<string, { state: string }> }>(file).questions ?? {},
      ).map((q) => q.state);
    await waitFor(() => states().join() === 'answered');
    assert.equal(out.messages.length, 1);
    assert.equal(out2.messages.length, 0);
    assert.equal(jobsTo(env, B).length, 0, 'no SMS to the second number');
  });

  for (const also of [false, true])
    it(`an inbound SMS trigger beside an ask: ${also ? 'with "also replies to questions" it gets the reply too, msg.ask naming the question' : 'the reply that answered goes to the ask only, other messages to both'}, once`, async () => {
      await loadFlow([
        ...flowWith(env.emu.url, [
          // A step of a minute: the reply answers the first step however slowly this machine reads it.
          asker({ wait: 60 }),
          {
            id: 'in',
            type: 'smsgw-inbound',
            gateway: 'cfg',
            interval: 1,
            inputs: 0,
            // An old flow has no such property: left out, it gets the default (off).
            ...(also ? { alsoReplies: true } : {}),
            wires: [['in-out']],
          },
        ]),
        { id: 'in-out', type: 'helper', z: 'tab' },
      ]);
      const out = collect('out');
      const inbound = collect('in-out');
      send('ask', { payload: 'Freezer too warm', topic: 'freezer' });
      await waitFor(() => jobsTo(env, A).length === 1);
      env.emu.control.injectInbound({ from: STRANGER, text: 'hello' });
      reply(env, A, '1');
      // Last: A's word that answers nothing (the question is closed by then) still reaches the trigger.
      env.emu.control.injectInbound({ from: A, text: 'thanks' });
      const expected = also ? 3 : 2;
      await waitFor(() => out.messages.length === 1 && inbound.messages.length === expected, 15_000).catch(
        () => {
          throw new Error(
            `the ask got ${out.messages.length} answer(s), the trigger ${inbound.messages.length} message(s): ` +
              JSON.stringify(inbound.messages.map((m) => [m.from, m.payload])),
          );
        },
      );
      const ask = out.messages[0]!.ask as Record<string, unknown>;
      assert.equal(ask.from, A);
      assert.deepEqual(
        inbound.messages.map((m) => [m.from, m.payload, m.ask]),
        [
          [STRANGER, 'hello', undefined],
          ...(also ? [[A, '1', { code: ask.code, id: ask.id, node: 'ask', action: 'ack' }]] : []),
          [A, 'thanks', undefined],
        ],
      );
      assert.equal(out.messages.length, 1, 'the answer once');
      assert.deepEqual(warnings('in'), []);
    });

  it('nobody replies: the second number gets it once, then output 2 once; a stranger answers nothing', async () => {
    await loadFlow(flowWith(env.emu.url, [asker()]));
    const out = collect('out');
    const out2 = collect('out2');
    send('ask', { payload: 'Pump stopped', topic: 'pump' });
    await waitFor(() => jobsTo(env, A).length === 1);
    env.emu.control.injectInbound({ from: STRANGER, text: '1' });
    await waitFor(() => out2.messages.length === 1, 15_000);
    assert.equal(jobsTo(env, B).length, 1);
    assert.match(jobsTo(env, B)[0]!.text, new RegExp(`^Passed on, no reply from \\${A}: Pump stopped\n`));
    const ask = out2.messages[0]!.ask as Record<string, unknown>;
    assert.deepEqual([ask.answer, ask.from, ask.step], ['', '', 2]);
    await sleep(1500);
    assert.equal(out.messages.length, 0);
    assert.equal(out2.messages.length, 1);
    assert.equal(jobs(env).length, 2);
  });

  it('refuses a bad number, an empty question or a text too long for its SMS type before anything is sent', async () => {
    await loadFlow(flowWith(env.emu.url, [asker({ numbers: `${A}, not-a-number` })]));
    const caught = collect('caught');
    send('ask', { payload: 'x' });
    await waitFor(() => caught.messages.length === 1);
    assert.match(String((caught.messages[0]!.error as Error).message), /not a phone number: "not-a-number"/);
    await helper.unload();
    await loadFlow(flowWith(env.emu.url, [asker()]));
    const caught2 = collect('caught');
    send('ask', { payload: '' });
    send('ask', { payload: 'x'.repeat(140) });
    await waitFor(() => caught2.messages.length === 2);
    assert.match(String((caught2.messages[0]!.error as Error).message), /^Question: required/);
    assert.match(String((caught2.messages[1]!.error as Error).message), /segment/);
    await sleep(300);
    assert.equal(jobs(env).length, 0);
  });

  it('msg.ask.cancel with the topic closes it without output; the status says so', async () => {
    // A step of a minute: the cancel comes within the first step however slowly this machine sends it. That a
    // cancelled question's step end passes nothing on, the engine's test shows on its own clock.
    await loadFlow(flowWith(env.emu.url, [asker({ wait: 60, tellCancel: true })]));
    const out = collect('out');
    const out2 = collect('out2');
    send('ask', { payload: 'Door open', topic: 'door' });
    await waitFor(() => jobsTo(env, A).length === 1);
    const caught = collect('caught');
    send('ask', { topic: 'door', ask: { cancel: true } });
    await waitFor(() => jobsTo(env, A).length === 2).catch(() => {
      throw new Error(JSON.stringify(caught.messages));
    });
    assert.equal(jobsTo(env, A)[1]!.text, 'Cancelled: Door open');
    await waitFor(() => statuses('ask').at(-1)?.text === 'no open questions');
    // Closed and gone from the state file: nothing is left that a step's end (or a restart) could pass on.
    const file = path.join(env.userDir, 'smsgw-state', 'smsgw-ask.cfg.json');
    await waitFor(
      () => Object.keys(readStateFile<{ questions?: object }>(file).questions ?? {}).length === 0,
    );
    assert.equal(out.messages.length + out2.messages.length, 0);
    assert.equal(jobsTo(env, B).length, 0);
  });

  it('msg.ask.cancel names a question by its ask id (a string, or msg.ask.id); a cancel naming none is refused', async () => {
    // Steps of a minute: the cancels come within the first step however slowly this machine sends them; the
    // question left is passed on by its numbers' replies ("2c", then "2"), not by the clock.
    await loadFlow(flowWith(env.emu.url, [asker({ wait: 60 })]));
    const out = collect('out');
    const out2 = collect('out2');
    const caught = collect('caught');
    send('ask', { payload: 'Door open', topic: 'door' });
    send('ask', { payload: 'Window open', topic: 'door' });
    send('ask', { payload: 'Gate open', topic: 'door' });
    await waitFor(() => jobsTo(env, A).length === 3);
    await waitFor(() => statuses('ask').at(-1)?.text === '3 open: a, b, c');
    // The ask ids, as the state file keeps them (a flow has them from a Catch node's msg.ask.id, say).
    const file = path.join(env.userDir, 'smsgw-state', 'smsgw-ask.cfg.json');
    const idOf = (text: string): string => {
      const saved = readStateFile(file) as {
        questions: Record<string, { id: string; question: string }>;
      };
      return Object.values(saved.questions).find((q) => q.question === text)!.id;
    };
    await waitFor(() => {
      try {
        return ['Door open', 'Window open'].every((t) => idOf(t) !== undefined);
      } catch {
        return false;
      }
    });
    send('ask', { ask: { cancel: idOf('Window open') } });
    send('ask', { ask: { cancel: true, id: idOf('Door open') } });
    send('ask', { ask: { cancel: true } });
    await waitFor(() => caught.messages.length === 1);
    assert.match(
      String((caught.messages[0]!.error as Error).message),
      /msg\.ask\.cancel needs msg\.topic or msg\.ask\.id/,
    );
    await waitFor(() => statuses('ask').at(-1)?.text === `c: step 1/2, ${A}`);
    reply(env, A, '2c');
    await waitFor(() => jobsTo(env, B).length === 1);
    reply(env, B, '2');
    await waitFor(() => out2.messages.length === 1, 15_000);
    assert.equal(out2.messages[0]!.payload, 'Gate open', 'only the question not named went on');
    assert.equal(out.messages.length, 0);
    assert.deepEqual(
      jobsTo(env, B).map((j) => j.text.split('\n')[0]),
      // Passed on by A's reply "2c": the text says so.
      [`Passed on by ${A}: Gate open`],
    );
  });

  it('a step kept in the outbox when Node-RED stops goes out from there after the restart, once, and its reply answers', async () => {
    helper.settings({ userDir: env.userDir, smsgwOutboxRetryInterval: 100 } as Record<string, unknown>);
    // A step of a minute: the reply below must answer the first step, however slowly this machine reads it.
    const flow = flowWith(env.emu.url, [asker({ wait: 60 })], { outbox: true });
    env.emu.faults.add({ kind: 'http503', operation: 'SendSMS', count: 1000 });
    await loadFlow(flow);
    send('ask', { payload: 'Freezer too warm', topic: 'freezer' });
    const box = path.join(env.userDir, 'smsgw-outbox', 'cfg.jsonl');
    await waitFor(() => existsSync(box) && readFileSync(box, 'utf8').includes('Freezer too warm'), 8000);
    await helper.unload();
    await loadFlow(flow);
    const out = collect('out');
    // The gateway still away: the step waits for the entry (the outbox sends it), it does not submit it again.
    await sleep(1000);
    const listed = await helper.request().get('/smsgw-config/cfg/outbox').expect(200);
    assert.equal((listed.body as { entries: unknown[] }).entries.length, 1, 'one entry in the outbox');
    env.emu.faults.clear();
    await waitFor(() => jobsTo(env, A).length === 1, 8000);
    await sleep(1500);
    assert.equal(jobsTo(env, A).length, 1, 'sent once, from the outbox, not again by the step');
    reply(env, A, '1');
    await waitFor(() => out.messages.length === 1, 15_000);
    const ask = out.messages[0]!.ask as Record<string, unknown>;
    assert.equal(ask.jobId, jobsTo(env, A)[0]!.id, "the step knows the outbox entry's JobId");
    assert.equal(jobs(env).length, 1);
  });

  it('a step the gateway took just before Node-RED stopped (its answer lost) is looked up after the restart, not sent again', async () => {
    // A step of a minute: the reply below must answer the first step (with 5 s, a loaded machine read it after the
    // step had passed the question on to the second number: a second SMS, which this test counts as sent again).
    const flow = flowWith(env.emu.url, [asker({ wait: 60 })]);
    await loadFlow(flow);
    // The gateway takes the SMS and the answer is lost; the lookup by its reference is still under way at the stop.
    env.emu.faults.add({ kind: 'commitThenDrop', operation: 'SendSMS' });
    env.emu.faults.add({ kind: 'delay', ms: 8000, operation: 'QueryJobInfoByJobCaption' });
    send('ask', { payload: 'Freezer too warm', topic: 'freezer' });
    await waitFor(() => jobsTo(env, A).length === 1);
    // The delay was taken: the lookup waits in the gateway.
    await waitFor(() => !env.emu.faults.list().some((f) => f.kind === 'delay'));
    await helper.unload();
    env.emu.faults.clear();
    await loadFlow(flow);
    const out = collect('out');
    await sleep(2000);
    assert.equal(jobsTo(env, A).length, 1, 'found by its reference, not sent again');
    reply(env, A, '1');
    await waitFor(() => out.messages.length === 1, 15_000);
    assert.equal((out.messages[0]!.ask as Record<string, unknown>).jobId, jobsTo(env, A)[0]!.id);
    assert.equal(jobs(env).length, 1);
  });

  it('open questions survive a restart: kept in the state file, the step ends on time, once', async () => {
    const flow = flowWith(env.emu.url, [asker({ wait: 2 })]);
    await loadFlow(flow);
    send('ask', { payload: 'Freezer too warm', topic: 'freezer' });
    await waitFor(() => jobsTo(env, A).length === 1);
    const file = path.join(env.userDir, 'smsgw-state', 'smsgw-ask.cfg.json');
    await waitFor(() => /"state":"sent"/.test(readFileSync(file, 'utf8')));
    // The first step's end, from when it began as the state file says (when this test saw its SMS is later, by
    // however long a loaded machine took), and when the gateway got the second step's SMS: no clock of the
    // test's own, so a busy machine can only make the step seem later, never early.
    const saved = readStateFile<{
      questions: Record<string, { stepAt: number; settings: { waitMs: number } }>;
    }>(file);
    const [first] = Object.values(saved.questions);
    assert.equal(first!.settings.waitMs, 2000);
    const due = first!.stepAt + first!.settings.waitMs;
    await helper.unload();
    await sleep(500);
    await loadFlow(flow);
    const out2 = collect('out2');
    await waitFor(() => jobsTo(env, B).length === 1, 10_000);
    const passedOn = Date.parse(jobsTo(env, B)[0]!.createdAt);
    assert.ok(passedOn >= due, `passed on ${due - passedOn} ms before the end of its 2 s`);
    await waitFor(() => out2.messages.length === 1, 15_000);
    assert.equal((out2.messages[0]!.ask as Record<string, unknown>).step, 2);
    assert.equal(out2.messages[0]!.payload, 'Freezer too warm', 'the msg kept with the question');
    assert.equal(jobsTo(env, A).length, 1, 'the first step is not sent again');
    assert.equal(jobsTo(env, B).length, 1);
  });

  // The answer of A while the questions cannot be saved: kept, answered once the file can be written again.
  // (On the version before the store: 45 s later no output at all, no SMS to B, one warning; after a restart the
  // question escalated to B and ended on output 2, "nobody answered".)
  it("the state file cannot be written for a while (a directory in its place): A's reply answers once it can, output 1 once, no SMS to B", async () => {
    await loadFlow(flowWith(env.emu.url, [asker({ wait: 2 })]));
    const out = collect('out');
    const out2 = collect('out2');
    const caught = collect('caught');
    send('ask', { payload: 'Freezer too warm', topic: 'freezer' });
    await waitFor(() => jobsTo(env, A).length === 1);
    const file = path.join(env.userDir, 'smsgw-state', 'smsgw-ask.cfg.json');
    await waitFor(() => /"state":"sent"/.test(readFileSync(file, 'utf8')));
    // Its path taken by a directory: the atomic rename fails (EISDIR), as a full disk or EIO would.
    rmSync(file);
    mkdirSync(path.join(file, 'in-the-way'), { recursive: true });
    const asked = Date.now();
    reply(env, A, '1a');
    await waitFor(() =>
      statuses('ask').some((s) => s.fill === 'red' && s.text === 'cannot save smsgw-ask.cfg.json: EISDIR'),
    );
    // One error a Catch node hears, naming the file.
    await waitFor(() => caught.messages.length === 1);
    assert.equal(caught.messages[0]!.topic, 'smsgw/store');
    assert.deepEqual(
      [
        (caught.messages[0]!.payload as Record<string, unknown>).file,
        (caught.messages[0]!.payload as Record<string, unknown>).code,
      ],
      [file, 'EISDIR'],
    );
    // Both steps (2 s each) long over while it cannot be written: nothing follows from the unsaved answer.
    await sleep(Math.max(0, 5000 - (Date.now() - asked)));
    assert.equal(out.messages.length, 0, 'no output before the answer is saved');
    assert.equal(out2.messages.length, 0, 'no false escalation');
    assert.equal(jobsTo(env, B).length, 0, 'no SMS to B');
    rmSync(file, { recursive: true });
    await waitFor(() => out.messages.length === 1, 10_000);
    const ask = out.messages[0]!.ask as Record<string, unknown>;
    assert.deepEqual([ask.answer, ask.from, ask.step], ['1', A, 1]);
    await sleep(2500);
    assert.equal(out.messages.length, 1, 'the answer once');
    assert.equal(out2.messages.length, 0);
    assert.equal(jobsTo(env, B).length, 0, 'no SMS to B');
    assert.equal(caught.messages.length, 1, 'told once');
    assert.deepEqual(
      Object.values(
        readStateFile<{ questions?: Record<string, { state: string; emitted?: boolean }> }>(file).questions ??
          {},
      ).map((q) => [q.state, q.emitted]),
      [['answered', true]],
      'saved: answered, output, closed (kept an hour for a late reply)',
    );
    assert.ok(statuses('ask').at(-1)!.fill !== 'red', 'the ring goes once it is saved');
  });

  it('Node-RED restarts while the state cannot be written: the reader still owes the reply, which answers after the restart, once', async () => {
    const flow = flowWith(env.emu.url, [asker({ wait: 2 })]);
    await loadFlow(flow);
    send('ask', { payload: 'Freezer too warm', topic: 'freezer' });
    await waitFor(() => jobsTo(env, A).length === 1);
    const file = path.join(env.userDir, 'smsgw-state', 'smsgw-ask.cfg.json');
    await waitFor(() => /"state":"sent"/.test(readFileSync(file, 'utf8')));
    // The file can be read, not replaced (EIO on the rename, through the store's one door to the disk).
    let failing = true;
    const off = injectFaults((op, p) => (failing && op === 'rename' && p === file ? 'EIO' : undefined));
    try {
      reply(env, A, '1a');
      await waitFor(() =>
        statuses('ask').some((s) => s.fill === 'red' && s.text === 'cannot save smsgw-ask.cfg.json: EIO'),
      );
      await helper.unload();
      await loadFlow(flow);
      const out = collect('out');
      const out2 = collect('out2');
      await waitFor(() =>
        statuses('ask').some((s) => s.fill === 'red' && s.text === 'cannot save smsgw-ask.cfg.json: EIO'),
      );
      // Its step long over while the answer waits to be saved: no escalation.
      await sleep(3000);
      assert.equal(jobsTo(env, B).length, 0, 'no SMS to B');
      assert.equal(out.messages.length + out2.messages.length, 0);
      failing = false;
      await waitFor(() => out.messages.length === 1, 10_000);
      const ask = out.messages[0]!.ask as Record<string, unknown>;
      assert.deepEqual([ask.answer, ask.from], ['1', A]);
      await sleep(2500);
      assert.equal(out.messages.length, 1, 'the answer once');
      assert.equal(out2.messages.length, 0, 'nobody answered: never');
      assert.equal(jobsTo(env, B).length, 0, 'no SMS to B');
    } finally {
      off();
    }
  });

  it('a damaged state file is reported once, and what could be read goes on', async () => {
    const flow = flowWith(env.emu.url, [asker({ wait: 2 })]);
    await loadFlow(flow);
    send('ask', { payload: 'Freezer too warm', topic: 'freezer' });
    await waitFor(() => jobsTo(env, A).length === 1);
    const file = path.join(env.userDir, 'smsgw-state', 'smsgw-ask.cfg.json');
    await waitFor(() => /"state":"sent"/.test(readFileSync(file, 'utf8')));
    await helper.unload();
    const saved = readStateFile(file) as { questions: Record<string, unknown> };
    saved.questions.broken = { id: 'broken', node: 'ask', numbers: 'not a list' };
    writeFileSync(file, JSON.stringify(saved));
    await loadFlow(flow);
    const out2 = collect('out2');
    await waitFor(() => out2.messages.length === 1, 15_000);
    assert.equal(jobsTo(env, B).length, 1, 'the question that could be read went on');
    assert.deepEqual(errors('ask'), [
      `1 open question in ${file} could not be read and is left out (no output, no further step).`,
    ]);
    await helper.unload();
    writeFileSync(file, '{\n"questions": {\n"x": {"id": "x", "no');
    await loadFlow(flow);
    await waitFor(() => errors('ask').length === 1);
    const [damaged] = errors('ask');
    assert.ok(damaged!.startsWith(`State file ${file} could not be read whole`), damaged);
  });

  it("escalation steps marked critical (or msg.priority critical) use the spending guard's reserve; without it the step is refused (BUDGET) and output 2 follows", async () => {
    // A day's limit of 1 SMS and a reserve of 1 for critical ones: the first step takes the limit.
    const budget = { budgetDay: 1, budgetReserve: 1 };
    await loadFlow(flowWith(env.emu.url, [asker({ critical: true })], budget));
    const out2 = collect('out2');
    send('ask', { payload: 'Freezer too warm', topic: 'freezer' });
    await waitFor(() => out2.messages.length === 1, 15_000);
    assert.equal(jobsTo(env, A).length, 1);
    assert.equal(jobsTo(env, B).length, 1, 'the critical step went out on the reserve');
    await helper.unload();
    // The same without "critical", on a fresh count (another configuration): the second step is refused.
    const flow = flowWith(env.emu.url, [asker({ critical: false })], budget).map((n) =>
      n.id === 'cfg' ? { ...n, id: 'cfg2' } : n.type === 'smsgw-ask' ? { ...n, gateway: 'cfg2' } : n,
    );
    await loadFlow(flow, { cfg2: { user: 'demo', password: 'demo-password' } });
    const caught = collect('caught');
    const out2b = collect('out2');
    send('ask', { payload: 'Pump stopped', topic: 'pump' });
    await waitFor(() => out2b.messages.length === 1, 15_000);
    assert.equal(caught.messages.length, 1);
    assert.equal((caught.messages[0]!.error as { code?: string }).code, 'BUDGET');
    assert.equal((caught.messages[0]!.ask as Record<string, unknown>).step, 2);
    assert.deepEqual(
      jobs(env).filter((j) => j.text.startsWith('Passed on') && j.text.includes('Pump stopped')),
      [],
      'nothing sent for the refused step',
    );
    await helper.unload();
    // msg.priority = "critical": every message of that question may use the reserve, without the setting.
    const flow3 = flowWith(env.emu.url, [asker({ critical: false })], budget).map((n) =>
      n.id === 'cfg' ? { ...n, id: 'cfg3' } : n.type === 'smsgw-ask' ? { ...n, gateway: 'cfg3' } : n,
    );
    await loadFlow(flow3, { cfg3: { user: 'demo', password: 'demo-password' } });
    const caught3 = collect('caught');
    const out2c = collect('out2');
    send('ask', { payload: 'Boiler off', topic: 'boiler', priority: 'critical' });
    await waitFor(() => out2c.messages.length === 1, 15_000);
    assert.equal(caught3.messages.length, 0);
    assert.equal(
      jobsTo(env, B).filter((j) => j.text.includes('Boiler off')).length,
      1,
      'the second step went out on the reserve',
    );
  });

  it('a msg too big to keep with its question: a warning; after a restart its output has msg.payload and msg.topic', async () => {
    const flow = flowWith(env.emu.url, [asker({ wait: 2 })]);
    await loadFlow(flow);
    send('ask', { payload: 'Freezer too warm', topic: 'freezer', log: 'x'.repeat(70 * 1024) });
    await waitFor(() => jobsTo(env, A).length === 1);
    assert.deepEqual(warnings('ask'), [
      'The msg is too big to keep whole with its question (over 64 kB, or not JSON): after a restart its output holds only msg.payload and msg.topic.',
    ]);
    // An HTTP-in msg's req and res cannot outlive the process: left out quietly, the rest kept.
    send('ask', { payload: 'Door open', topic: 'door', req: { socket: {} }, res: { _res: {} }, room: 4 });
    await waitFor(() => jobsTo(env, A).length === 2);
    assert.equal(warnings('ask').length, 1);
    const file = path.join(env.userDir, 'smsgw-state', 'smsgw-ask.cfg.json');
    await waitFor(() => (readFileSync(file, 'utf8').match(/"state":"sent"/g) ?? []).length === 2);
    await helper.unload();
    await loadFlow(flow);
    const out2 = collect('out2');
    await waitFor(() => out2.messages.length === 2, 15_000);
    const byTopic = new Map(out2.messages.map((m) => [m.topic, m]));
    const big = byTopic.get('freezer')!;
    assert.equal(big.payload, 'Freezer too warm');
    assert.equal(big.log, undefined, 'the big msg: payload and topic only');
    const door = byTopic.get('door')!;
    assert.deepEqual([door.payload, door.room, door.req, door.res], ['Door open', 4, undefined, undefined]);
  });
});
