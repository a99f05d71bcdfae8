/**
 * Answers to a person's reply (engine, hand-moved clock): the late acknowledger's "Already taken by", the
 * "Which one?" of a reply without a code, nothing for a number never asked, and the reply limiter (at most N
 * answers per number per window, counted from the store: across a restart too).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { LATE_KEEP_MS, REPLY_WINDOW_MS } from '../../../src/nodes/ask/engine';
import { FileAskStore } from '../../../src/nodes/ask/store';
import { clockTime } from '../../../src/nodes/ask/texts';
import { A, B, FakeSender, ManualClock, STRANGER, flush, harness, question, until } from './engine-harness';

let n = 0;
const reply = (from: string, text: string, key = `r${++n}`) => ({ key, from, text });

const answers = (sender: FakeSender): [string, string][] =>
  sender.calls.filter((c) => c.sms.kind === 'answer').map((c) => [c.sms.to, c.sms.text]);

describe('ask engine: answers to a person', () => {
  it('a late acknowledger gets "Already taken by" once per reply, written before it is sent; the one who took it and a stranger get nothing', async () => {
    // The answer is in the store before it goes out.
    const store = new FileAskStore(undefined, 'cfg');
    const sender = new FakeSender();
    const send = sender.send;
    const written: boolean[] = [];
    sender.send = (q, sms, resume, signal) => {
      if (sms.kind === 'answer')
        void store.load().then((s) => {
          written.push(
            s.questions.some((o) => o.sms.some((x) => x.reference === sms.reference && x.kind === 'answer')),
          );
        });
      return send(q, sms, resume, signal);
    };
    const h = harness({ store, sender });
    await h.engine.start();
    await h.engine.ask(question(h.clock));
    await flush();
    await h.clock.advance(5000);
    assert.equal(h.sender.asks(B).length, 1, 'passed on to B');
    await h.engine.take([reply(B, '1')]);
    await flush();
    assert.equal(h.out.got.length, 1);
    const closedAt = h.out.got[0]!.q.closedAt!;
    const late = reply(A, '1 on my way');
    const marks = await h.engine.take([late, reply(B, '1'), reply(STRANGER, '1a')]);
    assert.deepEqual(
      marks.map((m) => m?.action),
      ['late', 'late', undefined],
    );
    await flush();
    assert.deepEqual(answers(h.sender), [[A, `Already taken by ${B} at ${clockTime(closedAt)} (a)`]]);
    assert.deepEqual(written, [true]);
    // The same reply offered again (the reader could not note it): no second answer.
    await h.engine.take([late]);
    await flush();
    assert.equal(answers(h.sender).length, 1);
    assert.equal(h.out.got.length, 1, 'output 1 once');
  });

  it('"Already taken" is optional; an hour after it was answered the question is gone and a late reply gets nothing', async () => {
    const off = harness();
    await off.engine.start();
    await off.engine.ask(question(off.clock, { settings: { tellLate: false } }));
    await flush();
    await off.clock.advance(5000);
    await off.engine.take([reply(B, '1')]);
    await flush();
    const marks = await off.engine.take([reply(A, '1')]);
    await flush();
    assert.equal(marks[0]?.action, 'late', 'still marked (the inbound triggers skip it)');
    assert.deepEqual(answers(off.sender), []);

    const h = harness();
    await h.engine.start();
    await h.engine.ask(question(h.clock));
    await flush();
    await h.clock.advance(5000);
    await h.engine.take([reply(B, '1')]);
    await flush();
    assert.equal((await h.store.load()).questions.length, 1, 'kept, answered, for late replies');
    assert.equal(h.engine.open().length, 0);
    await h.clock.advance(LATE_KEEP_MS);
    await flush();
    assert.equal((await h.store.load()).questions.length, 0, 'gone after the hour');
    assert.deepEqual(await h.engine.take([reply(A, '1')]), [undefined]);
    await flush();
    assert.deepEqual(answers(h.sender), []);
  });

  it('a reply without a code while several questions are open gets "Which one?" with the codes; a text that is no answer gets nothing', async () => {
    const h = harness();
    await h.engine.start();
    for (const q of ['Freezer', 'Pump', 'Door'])
      await h.engine.ask(question(h.clock, { numbers: [A], question: q, settings: { waitMs: 60_000 } }));
    await flush();
    const marks = await h.engine.take([reply(A, '1'), reply(A, '2'), reply(A, 'hello')]);
    await flush();
    assert.deepEqual(
      marks.map((m) => m?.action),
      ['which', 'which', undefined],
    );
    assert.deepEqual(answers(h.sender), [
      [A, 'Which one? Reply 1a, 1b or 1c'],
      [A, 'Which one? Reply 2a, 2b or 2c'],
    ]);
    assert.equal(h.out.got.length, 0);
  });

  it('the reply limiter: at most 5 answers per number per 10 minutes, then one log line; the window passes, answers again', async () => {
    const h = harness();
    await h.engine.start();
    for (const q of ['Freezer', 'Pump'])
      await h.engine.ask(question(h.clock, { numbers: [A], question: q, settings: { waitMs: 3_600_000 } }));
    await flush();
    for (let i = 0; i < 20; i++) {
      await h.engine.take([reply(A, '1')]);
      await h.clock.advance(1000);
    }
    assert.equal(answers(h.sender).length, 5);
    assert.equal(h.warnings.filter((w) => /reply limiter/.test(w)).length, 1, 'one line a minute');
    await h.clock.advance(REPLY_WINDOW_MS);
    await h.engine.take([reply(A, '1')]);
    await flush();
    assert.equal(answers(h.sender).length, 6);
  });

  it('the limit and window are settings; the counts are in the store: a restart does not start them again', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'smsgw-ask-'));
    const stores: FileAskStore[] = [];
    try {
      const clock = new ManualClock();
      const first = harness({ clock, store: new FileAskStore(dir, 'cfg') });
      stores.push(first.store as FileAskStore);
      await first.engine.start();
      const settings = { waitMs: 3_600_000, replyLimit: 2, replyWindowMs: 60_000 };
      for (const q of ['Freezer', 'Pump'])
        await first.engine.ask(question(clock, { numbers: [A], question: q, settings }));
      await until(() => first.sender.asks().length === 2);
      const again = reply(A, '1');
      for (const r of [again, reply(A, '1'), reply(A, '1')]) await first.engine.take([r]);
      await flush();
      assert.equal(answers(first.sender).length, 2);
      await first.store.flush();
      first.authority.lose();

      const sender = new FakeSender();
      const second = harness({ clock, sender, store: new FileAskStore(dir, 'cfg') });
      stores.push(second.store as FileAskStore);
      await second.engine.start();
      await second.engine.take([reply(A, '1')]);
      await flush();
      assert.equal(answers(sender).length, 0, 'still 2 in the window');
      await clock.advance(60_000);
      // The first reply offered again after the restart (the reader had not noted it): no answer; a new one: one.
      await second.engine.take([again, reply(A, '1')]);
      await flush();
      assert.equal(answers(sender).length, 1);
    } finally {
      await Promise.all(stores.map((s) => s.flush().catch(() => undefined)));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
