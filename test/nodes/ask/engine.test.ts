import assert from 'node:assert/strict';
import { readStateFile } from '../../store/read';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { FileAskStore } from '../../../src/nodes/ask/store';
import { A, B, FakeSender, ManualClock, STRANGER, flush, harness, question, until } from './engine-harness';

const reply = (from: string, text: string, jobId?: number, key = `r${Math.random()}`) => ({
  key,
  from,
  text,
  ...(jobId !== undefined ? { jobId } : {}),
});

describe('ask engine', () => {
  it('asks the first number with the code, and a reply "1" from it answers: output 1 once, nobody else asked', async () => {
    const h = harness();
    await h.engine.start();
    const q = question(h.clock);
    await h.engine.ask(q);
    await flush();
    assert.equal(h.sender.calls.length, 1);
    const first = h.sender.calls[0]!.sms;
    assert.equal(first.to, A);
    assert.equal(first.text, 'Freezer too warm: -9 C\nReply 1a=ok 2a=busy');
    await h.clock.advance(2000);
    await h.engine.take([reply('491701110001', '1', 1001)]);
    await h.clock.advance(20_000);
    assert.equal(h.out.got.length, 1);
    const got = h.out.got[0]!;
    assert.equal(got.which, 1);
    assert.deepEqual(got.q.result, { answer: '1', from: A, step: 1, afterMs: 2000, jobId: 1001 });
    assert.equal(h.sender.calls.length, 1, 'no SMS to the second number');
    assert.equal(h.engine.open().length, 0);
  });

  it('nobody replies: the second number gets the question once, saying it was passed on, then output 2 once', async () => {
    const h = harness();
    await h.engine.start();
    await h.engine.ask(question(h.clock));
    await h.clock.advance(4900);
    assert.equal(h.sender.calls.length, 1);
    await h.clock.advance(200);
    assert.equal(h.sender.asks(B).length, 1);
    assert.equal(
      h.sender.asks(B)[0]!.sms.text,
      `Passed on, no reply from ${A}: Freezer too warm: -9 C\nReply 1a=ok 2a=busy`,
    );
    assert.equal(h.out.got.length, 0);
    await h.clock.advance(5000);
    await h.clock.advance(60_000);
    assert.equal(h.sender.calls.length, 2);
    assert.equal(h.out.got.length, 1);
    assert.equal(h.out.got[0]!.which, 2);
    assert.deepEqual(h.out.got[0]!.q.result, { answer: '', from: '', step: 2, afterMs: 10_000, jobId: 1002 });
  });

  it('a reply from a number that was not asked answers nothing, nor one from a number not asked yet', async () => {
    const h = harness();
    await h.engine.start();
    await h.engine.ask(question(h.clock));
    await flush();
    await h.engine.take([reply(STRANGER, '1'), reply(B, '1')]);
    await h.clock.advance(1000);
    assert.equal(h.out.got.length, 0);
    assert.equal(h.engine.open().length, 1);
    // B is asked in step 2: now its reply counts.
    await h.clock.advance(5000);
    await h.engine.take([reply(B, '1')]);
    await flush();
    assert.equal(h.out.got.length, 1);
    assert.equal(h.out.got[0]!.q.result!.from, B);
    assert.equal(h.out.got[0]!.q.result!.step, 2);
  });

  it('the first number may still answer after it was passed on', async () => {
    const h = harness();
    await h.engine.start();
    await h.engine.ask(question(h.clock));
    await h.clock.advance(6000);
    await h.engine.take([reply('01701110001', '1 on my way')]);
    await flush();
    assert.equal(h.out.got.length, 1);
    assert.equal(h.out.got[0]!.q.result!.from, A, 'a national sender matches with the default country');
  });

  it('two open questions to one number: codes a and b; answered by their codes in reverse order; no code answers none', async () => {
    const h = harness();
    await h.engine.start();
    const qa = question(h.clock, { numbers: [A] });
    await h.engine.ask(qa);
    await h.clock.advance(500);
    const qb = question(h.clock, { numbers: [A], question: 'Pump stopped' });
    await h.engine.ask(qb);
    await flush();
    assert.match(h.sender.calls[0]!.sms.text, /Reply 1a/);
    assert.match(h.sender.calls[1]!.sms.text, /Reply 1b/);
    // The gateway gives a reply the JobId of the newest message to the number: the code decides.
    const newest = 1002;
    await h.engine.take([reply(A, '1', newest)]);
    await flush();
    assert.equal(h.out.got.length, 0, 'no code while two are open: answers none');
    // ... and the number is asked which one (answers.test.ts has the rest).
    assert.deepEqual(
      h.sender.calls.filter((c) => c.sms.kind === 'answer').map((c) => [c.sms.to, c.sms.text]),
      [[A, 'Which one? Reply 1a or 1b']],
    );
    await h.engine.take([reply(A, '1B', newest)]);
    await flush();
    await h.engine.take([reply(A, '1a please', newest)]);
    await flush();
    assert.deepEqual(
      h.out.got.map((g) => [g.q.id, g.q.result!.answer, g.q.result!.jobId]),
      [
        [qb.id, '1', 1002],
        [qa.id, '1', 1001],
      ],
    );
  });

  it('a reply whose JobId is another message does not answer; without a JobId the number decides', async () => {
    const h = harness();
    await h.engine.start();
    await h.engine.ask(question(h.clock));
    await flush();
    await h.engine.take([reply(A, '1', 77)]);
    await flush();
    assert.equal(h.out.got.length, 0);
    assert.ok(h.warnings.some((w) => /answers another message \(JobId 77\)/.test(w)));
    await h.engine.take([reply(A, '1')]);
    await flush();
    assert.equal(h.out.got.length, 1);
    assert.equal(h.out.got[0]!.q.result!.jobId, 1001, 'the JobId of the message answered');
  });

  it('only listed answers count; "2" passes on at once; any reply acknowledges when no list is set', async () => {
    const h = harness();
    await h.engine.start();
    await h.engine.ask(question(h.clock));
    await flush();
    await h.engine.take([reply(A, 'what?')]);
    await flush();
    assert.equal(h.sender.calls.length, 1);
    assert.ok(h.warnings.some((w) => /"what\?" .* is not an accepted answer/.test(w)));
    await h.engine.take([reply(A, '2')]);
    await flush();
    assert.equal(h.sender.asks(B).length, 1, 'passed on at once');
    const any = question(h.clock, { numbers: [B], settings: { ack: [], pass: [] } });
    await h.engine.ask(any);
    await flush();
    assert.equal(h.sender.last().sms.text, 'Freezer too warm: -9 C\nReply b to acknowledge.');
    await h.engine.take([reply(B, 'b ok, I go')]);
    await flush();
    assert.equal(h.out.got.length, 1);
    assert.equal(h.out.got[0]!.q.id, any.id);
    assert.equal(h.out.got[0]!.q.result!.answer, 'b ok, I go');
  });

  it('marks the replies that answered a question (acknowledged, passed on) for the inbound triggers, the others not', async () => {
    const h = harness();
    await h.engine.start();
    const q = question(h.clock);
    await h.engine.ask(q);
    await flush();
    const marks = await h.engine.take([
      reply(STRANGER, '1'),
      reply(A, 'what?'),
      reply(A, '2', undefined, 'pass-key'),
    ]);
    const claim = (action: string) => ({
      claimedBy: 'smsgw-ask',
      question: 'a',
      askId: q.id,
      askNode: q.node,
      action,
    });
    assert.deepEqual(marks, [undefined, undefined, claim('pass')]);
    await flush();
    assert.equal(h.sender.asks(B).length, 1, 'passed on');
    const ack = reply(B, '1a', undefined, 'ack-key');
    assert.deepEqual(await h.engine.take([ack]), [claim('ack')]);
    await flush();
    assert.equal(h.out.got.length, 1);
    // Offered again (the reader could not note the take): applied once, marked as the first time. A's late
    // "1" is marked too (it acknowledged a question taken already: answers.test.ts).
    assert.deepEqual(await h.engine.take([ack, reply(A, '1')]), [claim('ack'), claim('late')]);
    await flush();
    assert.equal(h.out.got.length, 1);
  });

  it('the reply grammar: "2" passes on ("Passed on by"), "ok b" names a question, "1*" acknowledges all of them', async () => {
    const h = harness();
    await h.engine.start();
    const words = { ack: ['1', 'ok', 'ja'], pass: ['2', 'busy', 'besetzt'] };
    const q1 = question(h.clock, { settings: words });
    await h.engine.ask(q1);
    await flush();
    assert.equal(h.sender.last().sms.text, 'Freezer too warm: -9 C\nReply 1a=ok 2a=busy');
    await h.engine.take([reply(A, 'busy, sorry')]);
    await flush();
    assert.equal(
      h.sender.asks(B)[0]!.sms.text,
      `Passed on by ${A}: Freezer too warm: -9 C\nReply 1a=ok 2a=busy`,
    );
    const q2 = question(h.clock, { numbers: [B], question: 'Pump stopped', settings: words });
    const q3 = question(h.clock, { numbers: [B], question: 'Door open', settings: words });
    await h.engine.ask(q2);
    await h.engine.ask(q3);
    await flush();
    // Three open for B: "ok b" answers the second one only.
    await h.engine.take([reply(B, 'ok b')]);
    await flush();
    assert.deepEqual(
      h.out.got.map((g) => g.q.id),
      [q2.id],
    );
    const marks = await h.engine.take([reply(B, '1*')]);
    await flush();
    assert.deepEqual(
      h.out.got.map((g) => [g.q.id, g.q.result!.answer, g.q.result!.from]),
      [
        [q2.id, 'ok', B],
        [q1.id, '1', B],
        [q3.id, '1', B],
      ],
    );
    assert.equal(marks[0]!.question, 'a c');
    assert.equal(h.engine.open().length, 0);
  });

  it('rounds: the list again from the top; a tell to everyone but the one who answered', async () => {
    const h = harness();
    await h.engine.start();
    await h.engine.ask(question(h.clock, { settings: { rounds: 2, tell: 'all' } }));
    await h.clock.advance(15_100);
    assert.deepEqual(
      h.sender.asks().map((c) => c.sms.to),
      [A, B, A, B],
    );
    await h.engine.take([reply(A, '1')]);
    await flush();
    assert.equal(h.out.got[0]!.q.result!.step, 4);
    const tells = h.sender.calls.filter((c) => c.sms.kind === 'tell');
    assert.deepEqual(
      tells.map((c) => [c.sms.to, c.sms.text]),
      [[B, `Answered by ${A}: Freezer too warm: -9 C`]],
    );
  });

  it('cancel by topic closes without output, tells the person asked when set, and frees the code', async () => {
    const h = harness();
    await h.engine.start();
    const q = question(h.clock, { settings: { tellCancel: true } });
    await h.engine.ask(q);
    await flush();
    await h.engine.cancel({ key: 'c1', node: 'ask1', topic: 'other', at: h.clock.now() });
    await flush();
    assert.equal(h.engine.open().length, 1, 'another topic cancels nothing');
    await h.engine.cancel({ key: 'c2', node: 'ask1', topic: 'freezer', at: h.clock.now() });
    await h.clock.advance(30_000);
    assert.equal(h.out.got.length, 0);
    assert.deepEqual(
      h.sender.calls.map((c) => [c.sms.kind, c.sms.to, c.sms.text.split('\n')[0]]),
      [
        ['ask', A, 'Freezer too warm: -9 C'],
        ['cancel', A, 'Cancelled: Freezer too warm: -9 C'],
      ],
    );
    // The code is not given out again within the hour.
    await h.engine.ask(question(h.clock, { numbers: [B] }));
    await flush();
    assert.match(h.sender.last().sms.text, /Reply 1b/);
  });

  it('cancel by ask id closes that question only, of its own node only; a question asked after the cancel stays', async () => {
    const h = harness();
    await h.engine.start();
    const first = question(h.clock);
    const second = question(h.clock);
    await h.engine.ask(first);
    await h.engine.ask(second);
    await flush();
    await h.engine.cancel({ key: 'c1', node: 'another', id: first.id, at: h.clock.now() });
    await flush();
    assert.equal(h.engine.open().length, 2, "another node's cancel closes nothing");
    await h.engine.cancel({ key: 'c2', node: 'ask1', id: first.id, at: h.clock.now() });
    await flush();
    assert.deepEqual(
      h.engine.open().map((q) => q.id),
      [second.id],
    );
    await h.clock.advance(1000);
    // A cancel names what was open when it was sent: a later question with that topic is not closed by it.
    const c = { key: 'c3', node: 'ask1', topic: 'freezer', at: h.clock.now() - 500 };
    await h.engine.cancel(c);
    await flush();
    assert.deepEqual(h.engine.open(), []);
    const later = question(h.clock);
    await h.engine.ask(later);
    await h.engine.cancel({ ...c, key: 'c4' });
    await flush();
    assert.deepEqual(
      h.engine.open().map((q) => q.id),
      [later.id],
    );
    assert.equal(h.out.got.length, 0);
  });

  it('a deleted node: its open questions are dropped without output (a redeploy keeps them)', async () => {
    const h = harness();
    await h.engine.start();
    await h.engine.ask(question(h.clock));
    await flush();
    await h.engine.unregister('ask1', false);
    assert.equal(h.engine.open().length, 1, 'kept while the node is redeployed');
    h.engine.register('ask1', { output: () => undefined, failed: () => undefined, changed: () => undefined });
    await h.engine.unregister('ask1', true);
    assert.equal(h.engine.open().length, 0);
    assert.deepEqual(h.warnings, ['1 open question of a deleted ask node dropped']);
    await h.clock.advance(60_000);
    assert.equal(h.sender.calls.length, 1, 'no further step');
    assert.equal(h.out.got.length, 0);
  });

  it('a step refused for good goes to the node and the next number is asked at once', async () => {
    const h = harness();
    await h.engine.start();
    h.sender.fail = new Error('REJECTED: recipient blocked');
    await h.engine.ask(question(h.clock));
    await flush();
    assert.equal(h.out.failed.length, 1);
    assert.equal(h.out.failed[0]!.sms.to, A);
    assert.equal(h.sender.asks(B).length, 1);
  });

  it('answers only while it holds the questions', async () => {
    const h = harness();
    await h.engine.start();
    await h.engine.ask(question(h.clock));
    await flush();
    h.authority.lose();
    await flush();
    await assert.rejects(h.engine.take([reply(A, '1')]), /does not hold/);
    assert.equal(h.out.got.length, 0);
  });

  it('a restart resumes: the step ends when it would have, once; a planned SMS is looked up, not sent blind', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'smsgw-ask-'));
    // Their writes end before the directory goes (a write still under way failed the removal: ENOTEMPTY).
    const stores: FileAskStore[] = [];
    try {
      const clock = new ManualClock();
      const first = harness({ clock, store: new FileAskStore(dir, 'cfg') });
      stores.push(first.store as FileAskStore);
      await first.engine.start();
      await first.engine.ask(question(clock));
      await until(() => first.sender.calls.length === 1 && first.engine.open()[0]?.sms[0]?.state === 'sent');
      await first.store.flush();
      await clock.advance(3000);
      // Killed: nothing more of it runs (its store is not told).
      const file = path.join(dir, 'smsgw-state', 'smsgw-ask.cfg.json');
      assert.equal(statSync(file).mode & 0o777, 0o600, 'private: it holds numbers and texts');
      const saved = readStateFile(file) as {
        questions: Record<string, { sms: unknown[] }>;
      };
      assert.equal(Object.values(saved.questions)[0]!.sms.length, 1);
      first.authority.lose();

      const sender = new FakeSender();
      const second = harness({ clock, sender, store: new FileAskStore(dir, 'cfg') });
      stores.push(second.store as FileAskStore);
      await second.engine.start();
      await clock.advance(1900);
      assert.equal(sender.asks(B).length, 0, 'not before its time');
      await clock.advance(200);
      await until(() => sender.asks(B).length === 1, 'on time');
      await clock.advance(5000);
      await until(() => second.out.got.length === 1, 'output 2', clock);
      await clock.advance(60_000);
      assert.equal(sender.asks(B).length, 1, 'once');
      assert.equal(sender.calls.length, 1);
      assert.equal(second.out.got.length, 1);
      assert.equal(second.out.got[0]!.which, 2);
    } finally {
      await Promise.all(stores.map((s) => s.flush().catch(() => undefined)));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an SMS planned but not known to be sent when it stopped is sent again with resume (looked up first)', async () => {
    const store = new FileAskStore(undefined, 'cfg');
    const clock = new ManualClock();
    const hanging = new FakeSender();
    hanging.hang = true;
    const first = harness({ clock, store, sender: hanging });
    await first.engine.start();
    await first.engine.ask(question(clock));
    await flush();
    assert.equal(hanging.calls.length, 1);
    await first.engine.close();
    const sender = new FakeSender();
    const second = harness({ clock, store, sender });
    await second.engine.start();
    await flush();
    assert.equal(sender.calls.length, 1);
    assert.equal(sender.calls[0]!.resume, true);
    assert.equal(sender.calls[0]!.sms.reference, hanging.calls[0]!.sms.reference, 'the same reference');
  });

  it('after a take-over an overdue step waits for the first read: a reply that came meanwhile still answers', async () => {
    const store = new FileAskStore(undefined, 'cfg');
    const clock = new ManualClock();
    const first = harness({ clock, store });
    await first.engine.start();
    await first.engine.ask(question(clock));
    await flush();
    await first.engine.close();
    await clock.advance(60_000);
    let read: () => void = () => undefined;
    const second = harness({
      clock,
      store,
      deps: { firstRead: () => new Promise<void>((resolve) => (read = resolve)) },
    });
    await second.engine.start();
    await flush();
    assert.equal(second.sender.calls.length, 0, 'waits for the read');
    await second.engine.take([reply(A, '1')]);
    read();
    await clock.advance(1000);
    assert.equal(second.sender.calls.length, 0);
    assert.equal(second.out.got.length, 1);
    assert.equal(second.out.got[0]!.which, 1);
  });
});
