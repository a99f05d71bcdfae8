/**
 * Resolve in the ask engine, on a hand-moved clock: each "Resolved:" SMS once across a restart (written before it
 * is sent, looked up after), output 3 once, how long an acknowledged question stays resolvable, and the hint of
 * the first SMS naming the resolve word only while it fits one segment.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { FileAskStore } from '../../../src/nodes/ask/store';
import { resolveTexts, stepText } from '../../../src/nodes/ask/texts';
import { A, B, FakeSender, ManualClock, flush, harness, question, type Harness } from './engine-harness';

const reply = (from: string, text: string) => ({ key: `r${Math.random()}`, from, text });

const HOUR = 3_600_000;

/** Answers 1 / 2 / 3, resolvable for `withinMs` after it was acknowledged (the node's default: 24 h; null: kept by an older version). */
function resolvingQuestion(h: Harness, withinMs: number | null = 24 * HOUR) {
  const words = { ack: ['1'], pass: ['2'], resolve: ['3'] };
  return question(h.clock, {
    settings: {
      ...words,
      ...(withinMs !== null ? { resolveWithinMs: withinMs } : {}),
      tellResolve: 'asked',
      texts: resolveTexts({}, words.ack, words.pass, words.resolve),
    },
  });
}

const resolve = (h: Harness, key: string, text = 'Freezer back to -18 C') =>
  h.engine.cancel({ key, node: 'ask1', topic: 'freezer', at: h.clock.now(), resolve: { text } });

describe('ask engine: resolve', () => {
  it('a resolve SMS planned but not known to be sent when Node-RED stopped is looked up and sent once, same reference; output 3 once', async () => {
    // A real state file: what the restart reads is what was written (and checked when read back).
    const dir = mkdtempSync(path.join(tmpdir(), 'ask-resolve-'));
    try {
      await restartWithPlannedResolve(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  async function restartWithPlannedResolve(dir: string): Promise<void> {
    const clock = new ManualClock();
    const first = harness({ clock, store: new FileAskStore(dir, 'cfg') });
    await first.engine.start();
    await first.engine.ask(resolvingQuestion(first));
    await flush();
    await first.engine.take([reply(A, '2')]);
    await first.engine.take([reply(B, '1')]);
    await flush();
    assert.deepEqual(
      first.out.got.map((g) => g.q.state),
      ['answered'],
    );
    // From now on the gateway does not answer: the resolve SMS stay planned.
    first.sender.hang = true;
    assert.equal(await resolve(first, 'res1'), 1);
    await flush();
    const planned = first.sender.calls.filter((c) => c.sms.kind === 'resolve');
    assert.deepEqual(
      planned.map((c) => [c.sms.to, c.sms.text, c.resume]),
      [
        [A, 'Resolved: Freezer back to -18 C', false],
        [B, 'Resolved: Freezer back to -18 C', false],
      ],
    );
    await first.engine.close();
    const sender = new FakeSender();
    const second = harness({ clock, store: new FileAskStore(dir, 'cfg'), sender });
    await second.engine.start();
    await flush();
    await clock.advance(60_000);
    const again = sender.calls.filter((c) => c.sms.kind === 'resolve');
    assert.deepEqual(
      again.map((c) => [c.sms.reference, c.resume]),
      planned.map((c) => [c.sms.reference, true]),
      'each looked up by its own reference, once',
    );
    assert.equal(sender.calls.length, 2, 'nothing else sent');
    // Output 3 was given before the stop; the restart does not give it again.
    const resolvedOutputs = [...first.out.got, ...second.out.got].filter((g) => g.q.state === 'resolved');
    assert.equal(resolvedOutputs.length, 1);
    assert.deepEqual(resolvedOutputs[0]!.q.resolution, {
      text: 'Freezer back to -18 C',
      by: '',
      at: clock.now() - 60_000,
      was: 'answered',
    });
    await second.engine.close();
  }

  it('an acknowledged question is resolvable for its resolve time, then a resolve closes nothing and costs nothing', async () => {
    const h = harness();
    await h.engine.start();
    await h.engine.ask(resolvingQuestion(h, 2 * HOUR));
    await flush();
    await h.engine.take([reply(A, '1')]);
    await h.clock.advance(2 * HOUR - 1000);
    // Still kept (past the hour late acknowledgers are answered in): resolvable by a reply.
    await h.engine.take([reply(A, '3')]);
    assert.deepEqual(
      h.out.got.map((g) => g.q.state),
      ['answered', 'resolved'],
    );
    assert.equal(h.out.got[1]!.q.resolution!.by, A);
    // The one who resolved it is not told; nobody else was asked.
    assert.equal(h.sender.calls.length, 1);

    await h.engine.ask(resolvingQuestion(h, 2 * HOUR));
    await flush();
    await h.engine.take([reply(A, '1')]);
    await h.clock.advance(2 * HOUR + 1000);
    const sent = h.sender.calls.length;
    assert.equal(await resolve(h, 'late'), 0, 'nothing open to resolve');
    await h.engine.take([reply(A, '3')]);
    await h.clock.advance(60_000);
    assert.equal(h.sender.calls.length, sent);
    assert.deepEqual(
      h.out.got.map((g) => g.q.state),
      ['answered', 'resolved', 'answered'],
    );
    await h.engine.close();
  });

  it('a question kept by an older version (no resolve time) is not resolvable once answered; open it is', async () => {
    const h = harness();
    await h.engine.start();
    await h.engine.ask(resolvingQuestion(h, null));
    await flush();
    await h.engine.take([reply(A, '1')]);
    assert.equal(await resolve(h, 'old'), 0);
    await h.engine.ask(resolvingQuestion(h, null));
    await flush();
    assert.equal(await resolve(h, 'open'), 1);
    assert.deepEqual(
      h.out.got.map((g) => g.q.state),
      ['answered', 'resolved'],
    );
    await h.engine.close();
  });

  it('the first SMS names the resolve word while it fits one segment, else leaves it out', () => {
    const h = harness();
    const q = resolvingQuestion(h);
    q.code = 'a';
    assert.equal(stepText(q, 0, undefined), 'Freezer too warm: -9 C\nReply 1a=ok 2a=busy 3a=done');
    q.question = 'x'.repeat(140);
    assert.equal(stepText(q, 0, undefined), `${'x'.repeat(140)}\nReply 1a=ok 2a=busy`);
    // A hint of the user's own is sent as written.
    q.settings.texts = resolveTexts({ hint: 'Reply {resolve}{code} when done' }, ['1'], ['2'], ['3']);
    assert.equal(stepText(q, 0, undefined), `${'x'.repeat(140)}\nReply 3a when done`);
    void h.engine.close();
  });
});
