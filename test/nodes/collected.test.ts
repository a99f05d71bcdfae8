import assert from 'node:assert/strict';
import { GatewayError } from '../../src/errors';
import {
  RECOVERY_GIVE_UP_MS,
  absorbNote,
  readCollected,
  readingNote,
  recoverySettings,
  type CollectedState,
  type CollectingQueue,
} from '../../src/nodes/polling/collected';

interface Rec {
  id: number;
  at: number;
}

const T0 = Date.UTC(2026, 4, 1, 12);
const WINDOW = 600_000;

/**
 * A gateway queue in memory: collect() hands out (and marks) what was not collected; `lose` makes the next reads
 * collect and then fail as a lost answer does; `failRecover` makes the next recovery reads fail.
 */
class FakeQueue implements CollectingQueue<Rec> {
  records: (Rec & { collected: boolean })[] = [];
  lose = 0;
  failRecover = 0;
  refuse = 0;
  recoverFrom: Date[] = [];

  add(id: number, at: number): void {
    this.records.push({ id, at, collected: false });
  }

  collect(): Promise<Rec[]> {
    if (this.refuse > 0) {
      this.refuse -= 1;
      return Promise.reject(new GatewayError('HTTP', '503', { ambiguous: false }));
    }
    const fresh = this.records.filter((r) => !r.collected);
    for (const r of fresh) r.collected = true;
    if (this.lose > 0) {
      this.lose -= 1;
      return Promise.reject(new GatewayError('NETWORK', 'socket closed', { ambiguous: true }));
    }
    return Promise.resolve(fresh.map(({ id, at }) => ({ id, at })));
  }

  recover(from: Date): Promise<Rec[]> {
    this.recoverFrom.push(from);
    if (this.failRecover > 0) {
      this.failRecover -= 1;
      return Promise.reject(new GatewayError('HTTP', '503', { ambiguous: false }));
    }
    return Promise.resolve(
      this.records.filter((r) => r.at >= from.getTime()).map(({ id, at }) => ({ id, at })),
    );
  }

  key = (r: Rec): string => String(r.id);
  dateOf = (r: Rec): number => r.at;
}

describe('reading a queue that collects, with recovery after a lost answer', () => {
  let clock: number;
  const options = (enabled = true) => ({ enabled, windowMs: WINDOW, now: () => clock });
  beforeEach(() => {
    clock = T0;
  });

  it('an answer lost after the gateway collected: read again at once without collecting, each record once', async () => {
    const q = new FakeQueue();
    q.add(1, T0 - 5000);
    let state: CollectedState = { seen: [] };
    const first = await readCollected(q, state, options());
    assert.deepEqual(
      first.records.map((r) => r.id),
      [1],
    );
    state = first.state;
    assert.equal(state.newest, new Date(T0 - 5000).toISOString());
    q.add(2, T0 + 1000);
    q.add(3, T0 + 2000);
    q.lose = 1;
    clock += 3000;
    const lost = await readCollected(q, state, options());
    assert.equal(lost.failure, undefined, 'recovered: the poll did its work');
    assert.ok(lost.lost instanceof GatewayError);
    assert.deepEqual(
      lost.records.map((r) => r.id),
      [2, 3],
      'what the lost answer held, not 1 again',
    );
    assert.equal(lost.recovered, 2);
    assert.equal(lost.recoveries, 1);
    assert.equal(lost.state.recover, undefined);
    assert.deepEqual(q.recoverFrom, [new Date(T0 - 5000 - WINDOW)], 'from the window before the newest one');
    const after = await readCollected(q, lost.state, options());
    assert.deepEqual(after.records, []);
  });

  it('a recovery that fails is noted in the state and made before the next read, which goes on', async () => {
    const q = new FakeQueue();
    q.add(1, T0);
    q.lose = 1;
    q.failRecover = 2;
    const lost = await readCollected(q, { seen: [] }, options());
    assert.deepEqual(lost.records, []);
    assert.ok(lost.recoveryError);
    assert.deepEqual(lost.state.recover, { from: new Date(T0 - WINDOW).toISOString(), since: T0 });
    // Saved and read back (a restart in between changes nothing).
    const saved = JSON.parse(JSON.stringify(lost.state)) as CollectedState;
    q.add(2, T0 + 1000);
    clock += 60_000;
    const still = await readCollected(q, saved, options());
    assert.deepEqual(
      still.records.map((r) => r.id),
      [2],
      'the queue is read all the same',
    );
    assert.equal(still.failure, undefined);
    assert.ok(still.recoveryError);
    assert.ok(still.state.recover, 'still to recover');
    const done = await readCollected(q, still.state, options());
    assert.deepEqual(
      done.records.map((r) => r.id),
      [1],
      'then the lost one, once',
    );
    assert.equal(done.state.recover, undefined);
  });

  it('a failure that surely reached nothing recovers nothing', async () => {
    const q = new FakeQueue();
    q.add(1, T0);
    q.refuse = 1;
    const r = await readCollected(q, { seen: [] }, options());
    assert.ok(r.failure);
    assert.deepEqual(q.recoverFrom, []);
    assert.equal(r.state.recover, undefined);
    assert.deepEqual(
      (await readCollected(q, r.state, options())).records.map((x) => x.id),
      [1],
    );
  });

  it('two answers lost before a recovery works: it reads from the earlier point', async () => {
    const q = new FakeQueue();
    q.add(1, T0);
    const first = await readCollected(q, { seen: [] }, options());
    q.add(2, T0 + 10_000);
    q.lose = 1;
    q.failRecover = 1;
    const a = await readCollected(q, first.state, options());
    q.add(3, T0 + 20_000);
    const b = await readCollected(q, a.state, options()); // the recovery noted in a works now
    assert.deepEqual(
      b.records.map((r) => r.id),
      [2, 3],
    );
    q.add(4, T0 + 30_000);
    q.lose = 2;
    q.failRecover = 2;
    const c = await readCollected(q, b.state, options());
    const d = await readCollected(q, c.state, options());
    assert.ok(d.failure, 'lost again');
    assert.equal(d.state.recover?.from, c.state.recover?.from, 'the earlier start is kept');
    q.add(5, T0 + 40_000);
    const e = await readCollected(q, d.state, options());
    assert.deepEqual(
      e.records.map((r) => r.id),
      [4, 5],
    );
  });

  it('a recovery failing for a day is given up', async () => {
    const q = new FakeQueue();
    q.lose = 1;
    q.failRecover = 3;
    const lost = await readCollected(q, { seen: [] }, options());
    clock += RECOVERY_GIVE_UP_MS - 1;
    const notYet = await readCollected(q, lost.state, options());
    assert.ok(notYet.state.recover);
    assert.equal(notYet.gaveUp, undefined);
    clock += 1;
    const given = await readCollected(q, notYet.state, options());
    assert.equal(given.gaveUp, true);
    assert.equal(given.state.recover, undefined);
  });

  it('recovery off: the loss is reported, nothing read again', async () => {
    const q = new FakeQueue();
    q.add(1, T0);
    q.lose = 1;
    const r = await readCollected(q, { seen: [] }, options(false));
    assert.equal(r.lostWithoutRecovery, true);
    assert.deepEqual(q.recoverFrom, []);
    assert.equal(r.state.recover, undefined);
  });

  it('a note of a read in flight left by a killed run: the next read recovers first, each record once', async () => {
    const q = new FakeQueue();
    q.add(1, T0 - 5000);
    const first = await readCollected(q, { seen: [] }, options());
    // Before the next read is sent, the note (from the window before the newest record read); then the read is
    // answered (the gateway collects 2 and 3) and the run is killed before its state is saved.
    const note = readingNote(first.state, options());
    assert.deepEqual(note, { from: new Date(T0 - 5000 - WINDOW).toISOString(), at: T0 });
    q.add(2, T0 - 1000);
    q.add(3, T0 - 500);
    await q.collect();
    q.add(4, T0);
    const saved: CollectedState = { ...first.state, reading: note };
    const next = await readCollected(q, absorbNote(saved, T0), options());
    assert.deepEqual(
      next.records.map((r) => r.id),
      [2, 3, 4],
    );
    // The recovery read also finds 4, still in the queue: the collecting read's copy of it is not handed on again.
    assert.equal(next.recovered, 3);
    assert.equal(next.state.reading, undefined);
    assert.equal(next.state.recover, undefined);
    // A note whose read was staged all the same (its batch marker was set) is dropped: no recovery.
    assert.deepEqual(absorbNote(saved, T0, true), first.state);
    // A recovery already pending reads from the earlier of the two points.
    const both = absorbNote(
      { ...saved, recover: { from: new Date(T0 - 2 * WINDOW).toISOString(), since: 7 } },
      T0,
    );
    assert.deepEqual(both.recover, { from: new Date(T0 - 2 * WINDOW).toISOString(), since: 7 });
  });

  it('settings.js: on by default, a 5-minute window, an empty caption', () => {
    assert.deepEqual(recoverySettings({}), { enabled: true, windowMs: 300_000, caption: '' });
    assert.deepEqual(
      recoverySettings({ smsgwRecoverLostReads: false, smsgwRecoveryWindow: 30, smsgwRecoveryCaption: '%' }),
      { enabled: false, windowMs: 1_800_000, caption: '%' },
    );
  });
});
