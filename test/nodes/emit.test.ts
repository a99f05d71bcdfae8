import assert from 'node:assert/strict';
import type { NodeMessage } from 'node-red';
import { EMIT_BATCH, emitInBatches } from '../../src/nodes/polling/emit';

const msgs = (n: number): NodeMessage[] => Array.from({ length: n }, (_, i) => ({ payload: i }));

describe('nodes: a poll hands its msgs on a batch per turn of the event loop', () => {
  it('sends one batch synchronously, the rest on later turns, all in order', async () => {
    const sent: unknown[] = [];
    const all = msgs(EMIT_BATCH * 3 + 7);
    const done = emitInBatches(
      (m) => sent.push(m.payload),
      all,
      () => false,
    );
    assert.equal(sent.length, EMIT_BATCH, 'only the first batch before the event loop turns');
    // A timer queued now runs before the last batch: other work gets the loop in between.
    let atTimer = -1;
    setImmediate(() => (atTimer = sent.length));
    assert.equal(await done, true);
    assert.ok(atTimer > 0 && atTimer < all.length, `a callback ran between batches (saw ${atTimer})`);
    assert.deepEqual(
      sent,
      all.map((m) => m.payload),
    );
  });

  it('stops between batches when the flow closes and says so', async () => {
    const sent: unknown[] = [];
    let closed = false;
    const done = emitInBatches(
      (m) => {
        sent.push(m.payload);
        if (sent.length === EMIT_BATCH) closed = true;
      },
      msgs(EMIT_BATCH * 2),
      () => closed,
    );
    assert.equal(await done, false);
    assert.equal(sent.length, EMIT_BATCH);
  });

  it('sends a small poll at once', async () => {
    const sent: unknown[] = [];
    const done = emitInBatches(
      (m) => sent.push(m.payload),
      msgs(3),
      () => false,
    );
    assert.deepEqual(sent, [0, 1, 2]);
    assert.equal(await done, true);
  });
});
