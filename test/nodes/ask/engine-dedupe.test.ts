/**
 * The dedupe key in the ask engine, on a hand-moved clock: a question handed in with the key of an open one updates
 * it; after it closed, the key's quiet time (kept in the state file, so across a restart) drops it, and once the
 * quiet time is over the key asks again.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { FileAskStore } from '../../../src/nodes/ask/store';
import { A, ManualClock, flush, harness, question, until, type Harness } from './engine-harness';

const MIN = 60_000;

const keyed = (h: Harness, text: string) =>
  question(h.clock, { question: text, dedupe: 'freezer', settings: { quietMs: 10 * MIN } });

describe('ask engine: dedupe key', () => {
  it('the quiet time after a close outlives a restart, then the key asks again', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ask-dedupe-'));
    try {
      const clock = new ManualClock();
      const first = harness({ clock, store: new FileAskStore(dir, 'cfg') });
      await first.engine.start();
      await first.engine.ask(keyed(first, 'Freezer too warm: -9 C'));
      await until(() => first.sender.asks().length === 1, 'the first question', clock);
      // cancel() resolves once it was applied: the question before it is in too.
      await first.engine.ask(keyed(first, 'Freezer too warm: -8 C'));
      assert.equal(
        await first.engine.cancel({ key: 'c1', node: 'ask1', topic: 'freezer', at: clock.now() }),
        1,
      );
      assert.equal(first.sender.asks().length, 1, 'updated, not asked again');
      await first.engine.close();

      const second = harness({ clock, store: new FileAskStore(dir, 'cfg') });
      await second.engine.start();
      await clock.advance(9 * MIN);
      await second.engine.ask(keyed(second, 'Freezer too warm: -7 C'));
      await until(() => second.warnings.some((w) => w.includes('quiet time')), 'the drop', clock);
      assert.equal(second.sender.asks().length, 0, 'in the quiet time: dropped');
      await clock.advance(2 * MIN);
      await second.engine.ask(keyed(second, 'Freezer too warm: -6 C'));
      await until(() => second.sender.asks().length === 1, 'asked again', clock);
      await flush();
      assert.deepEqual(
        second.sender.asks().map((c) => [c.sms.to, c.sms.text.split('\n')[0]]),
        [[A, 'Freezer too warm: -6 C']],
      );
      await second.engine.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
