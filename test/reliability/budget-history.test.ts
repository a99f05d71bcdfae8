/**
 * The spending guard's spend history (the panel's Spend chart): units per clock hour over the last 24 hours and per
 * local day over the last 30 days, kept in the budget book, counted and taken back with the reservations, bounded,
 * surviving a restart in the count file; a damaged history is a damaged book (the counts are lost, never a
 * silent fresh start).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Budget } from '../../src/reliability/budget';
import { FileLedger } from '../../src/reliability/budget-file';
import { BudgetBook, HISTORY_DAYS, HISTORY_HOURS } from '../../src/reliability/budget-ledger';
import { dayOf, HOUR_MS, lastDays, monthOf } from '../../src/reliability/budget-windows';
import { Manifest, StateFile } from '../../src/store';
import { ManualClock } from '../helpers/manual-clock';

const DAY_MS = 24 * HOUR_MS;

/** A reservation in the book at the clock's time. */
function count(book: BudgetBook, clock: ManualClock, key: string, cost: number): void {
  const now = clock.now();
  const r = book.reserve({
    key,
    cost,
    now,
    day: dayOf(now).id,
    month: monthOf(now).id,
    limits: {},
    warnAt: {},
  });
  assert.equal(r.result, 'reserved');
}

describe('budget: the spend history', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'smsgw-history-'));
    Manifest.forgetAll();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('counts per clock hour; a new hour opens a new bucket; the 24 buckets roll over and the oldest leaves', () => {
    const clock = new ManualClock(Date.UTC(2024, 5, 1, 10, 30));
    const book = new BudgetBook();
    count(book, clock, 'a', 2);
    clock.t += 20 * 60_000; // 10:50, same hour
    count(book, clock, 'b', 3);
    clock.t += 20 * 60_000; // 11:10, next hour
    count(book, clock, 'c', 4);
    let h = book.history(clock.now(), []).hours;
    assert.equal(h.length, HISTORY_HOURS);
    assert.deepEqual(
      h.slice(-2).map((b) => [new Date(b.start).toISOString(), b.units]),
      [
        ['2024-06-01T10:00:00.000Z', 5],
        ['2024-06-01T11:00:00.000Z', 4],
      ],
    );
    assert.equal(
      h.reduce((s, b) => s + b.units, 0),
      9,
    );
    // 23 hours later the 10:00 bucket is the oldest shown; one more hour and it has left.
    clock.t = Date.UTC(2024, 6 - 1, 2, 9, 5);
    h = book.history(clock.now(), []).hours;
    assert.equal(new Date(h[0]!.start).toISOString(), '2024-06-01T10:00:00.000Z');
    assert.equal(h[0]!.units, 5);
    clock.t = Date.UTC(2024, 6 - 1, 2, 10, 5);
    count(book, clock, 'd', 1);
    h = book.history(clock.now(), []).hours;
    assert.equal(new Date(h[0]!.start).toISOString(), '2024-06-01T11:00:00.000Z');
    assert.deepEqual(
      h.filter((b) => b.units > 0).map((b) => b.units),
      [4, 1],
    );
    // What left the history is gone from the stored book too (bounded).
    const stored = book.toJSON().spent!;
    assert.deepEqual(
      stored.map(([, u]) => u),
      [4, 1],
    );
  });

  it('a released reservation is taken back from its hour and its day', () => {
    const clock = new ManualClock(Date.UTC(2024, 5, 1, 10, 30));
    const book = new BudgetBook();
    count(book, clock, 'a', 2);
    count(book, clock, 'b', 3);
    clock.t += 40 * 60_000; // the next hour: the release finds the hour it was counted in
    assert.ok(book.release('b', clock.now()));
    const days = lastDays(clock.now(), 1);
    const h = book.history(clock.now(), days);
    assert.equal(h.hours.at(-2)!.units, 2);
    assert.equal(h.days[0]!.units, 2);
  });

  it('keeps 30 days and no more: each day its own bucket, the 31st day back is dropped', () => {
    const clock = new ManualClock(new Date(2024, 0, 1, 12).getTime());
    const book = new BudgetBook();
    for (let i = 0; i < 40; i++) {
      count(book, clock, `k${i}`, i + 1);
      clock.t += DAY_MS;
    }
    clock.t -= DAY_MS; // the day of the last count
    const days = lastDays(clock.now(), HISTORY_DAYS);
    assert.equal(days.length, 30);
    assert.equal(days.at(-1), dayOf(clock.now()).id);
    const h = book.history(clock.now(), days);
    assert.deepEqual(
      h.days.map((d) => d.units),
      Array.from({ length: 30 }, (_, i) => i + 11),
    );
    // Stored: the 30 days of the history, not the 40 counted.
    assert.equal(Object.keys(book.toJSON().days).length, HISTORY_DAYS);
  });

  it('survives a restart in the count file; the guard answers the history, the windows and the reserve left', async () => {
    const clock = new ManualClock(Date.UTC(2024, 5, 1, 10, 30));
    let budget = new Budget(
      { limits: { hour: 10, day: 20 }, reserve: 5 },
      await FileLedger.open(dir, 'cfg'),
      clock,
    );
    await budget.reserve('a', 4);
    await budget.reserve('b', 3);
    budget.settle('a', 'sent');
    budget.settle('b', 'sent');
    await budget.close();
    Manifest.forgetAll();
    budget = new Budget(
      { limits: { hour: 10, day: 20 }, reserve: 5 },
      await FileLedger.open(dir, 'cfg'),
      clock,
    );
    await budget.reserve('c', 5, { critical: true });
    const view = await budget.spend();
    assert.equal(view.hours.at(-1)!.units, 12);
    assert.equal(view.days.at(-1)!.units, 12);
    assert.equal(view.days.length, HISTORY_DAYS);
    // The hour's limit 10 is passed by 2 (critical room 15): 3 of the reserve's 5 are left.
    assert.equal(view.reserve, 5);
    assert.equal(view.reserveLeft, 3);
    assert.deepEqual(
      view.windows.map((w) => [w.window, w.count, w.limit]),
      [
        ['hour', 12, 10],
        ['day', 12, 20],
      ],
    );
    await budget.close();
  });

  it('a damaged spend record in an intact count file: the counts are lost and said, never a silent fresh start', async () => {
    const clock = new ManualClock(Date.UTC(2024, 5, 1, 10, 30));
    const book = new BudgetBook();
    count(book, clock, 'a', 4);
    // Written as the store writes (checksums right): only the spend record is wrong.
    const store = new StateFile<unknown>(dir, 'budget.cfg', { kind: 'budget', lineItems: false });
    await store.open();
    await store.save({ ...book.toJSON(), spent: [[1, 'x']] });
    await store.close();
    Manifest.forgetAll();
    const ledger = await FileLedger.open(dir, 'cfg');
    assert.match(ledger.lost?.why ?? '', /bad spend record/);
    const budget = new Budget({ limits: { day: 20 } }, ledger, clock);
    await assert.rejects(budget.reserve('b', 1), /counts were lost/);
    await budget.close();
    assert.throws(() => BudgetBook.from({ ...book.toJSON(), spent: 'x' }), /bad spend record/);
  });

  it('a book written before the history was kept reads with an empty history', () => {
    const clock = new ManualClock(Date.UTC(2024, 5, 1, 10, 30));
    const book = new BudgetBook();
    count(book, clock, 'a', 4);
    const old = book.toJSON() as unknown as Record<string, unknown>;
    delete old.spent;
    const back = BudgetBook.from(old);
    assert.ok(back.history(clock.now(), []).hours.every((h) => h.units === 0));
    assert.deepEqual(back.counts(clock.now(), dayOf(clock.now()).id, monthOf(clock.now()).id).day, 4);
  });
});
