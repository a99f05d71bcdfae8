import assert from 'node:assert/strict';
import type { NodeMessage } from 'node-red';
import { EMIT_BATCH, emitInBatches, wiredTargets } from '../../src/nodes/polling/emit';

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

  it('a flow that closes after the last send, before Node-RED delivered it, is not told "handed on"', async () => {
    // Node-RED delivers a sent msg on a later turn; a stop in between drops it. The caller must not save a
    // state that counts such msgs as handed on (they are read again: a repeat, never a loss).
    const sent: unknown[] = [];
    let closed = false;
    const done = emitInBatches(
      (m) => sent.push(m.payload),
      msgs(3),
      () => closed,
    );
    closed = true; // the stop comes before the delivery turn
    assert.deepEqual(sent, [0, 1, 2]);
    assert.equal(await done, false);
  });

  it('a poll with nothing to send is done at once', async () => {
    assert.equal(
      await emitInBatches(
        () => undefined,
        [],
        () => true,
      ),
      true,
    );
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

  it('reached: the next nodes still the same objects; a stopped or replaced one, not; an unknown id never holds back', async () => {
    const live = new Map<string, object>([
      ['a', { id: 'a' }],
      ['b', { id: 'b' }],
    ]);
    const node = { wires: [['a', 'ghost'], ['b']] };
    const reached = wiredTargets((id) => live.get(id), node);
    assert.equal(reached(), true, 'nothing changed');
    live.set('b', { id: 'b' }); // redeployed: a new object under the same id
    assert.equal(reached(), false);
    live.delete('b');
    assert.equal(reached(), false, 'stopped');
    assert.equal(wiredTargets((id) => live.get(id), { wires: [['ghost']] })(), true);
    assert.equal(wiredTargets((id) => live.get(id), {})(), true);

    // The trigger itself stopped (a "modified nodes" deploy) while its next node stayed: handed on.
    const sent: unknown[] = [];
    const done = emitInBatches(
      (m) => sent.push(m.payload),
      msgs(2),
      () => true,
      wiredTargets((id) => live.get(id), { wires: [['a']] }),
    );
    assert.equal(await done, true);
    // The next node stopped before delivery: not handed on.
    const target = wiredTargets((id) => live.get(id), { wires: [['a']] });
    const done2 = emitInBatches(
      () => undefined,
      msgs(2),
      () => false,
      target,
    );
    live.delete('a');
    assert.equal(await done2, false);
  });
});
