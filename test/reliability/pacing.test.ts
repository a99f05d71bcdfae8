/**
 * Pacing per number: every slot the book gives keeps every rule of every number (sliding windows, checked by
 * brute force over the slots), in order per number, as early as the rules allow; the critical allowance; a
 * reservation found again by its id; given back; a lost book; the bound on numbers; the book in its state file.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Manifest } from '../../src/store';
import { PaceBook, STALE_MS, type PaceRule, type PaceSettings } from '../../src/reliability/pacing';
import { FilePacer } from '../../src/reliability/pacing-file';
import { ManualClock } from '../helpers/manual-clock';

const MIN = 60_000;
const GOALERT: PaceRule[] = [
  { count: 1, ms: MIN },
  { count: 5, ms: 15 * MIN },
  { count: 12, ms: 60 * MIN },
];
const SETTINGS: PaceSettings = { rules: GOALERT, critical: [{ count: 3, ms: 15 * MIN }] };
const T0 = Date.UTC(2024, 5, 1, 8);

/** Every window of every rule over `times` (a number's sends) holds at most its count. */
function assertWithin(times: number[], rules: readonly PaceRule[], what: string): void {
  const sorted = [...times].sort((a, b) => a - b);
  for (const r of rules)
    for (const end of sorted) {
      const n = sorted.filter((t) => t > end - r.ms && t <= end).length;
      assert.ok(
        n <= r.count,
        `${what}: ${n} within ${r.ms / MIN} min ending ${(end - T0) / MIN} (max ${r.count})`,
      );
    }
}

describe('pacing per number: the book', () => {
  it('a burst to one number is spread over slots that keep every rule, in order, each as early as allowed', () => {
    const book = new PaceBook(SETTINGS);
    const slots = Array.from({ length: 30 }, (_, i) =>
      book.reserve({ id: `m${i}`, keys: ['491701'], critical: false, now: T0 }),
    ).map((a) => a.at);
    assertWithin(slots, GOALERT, 'one number');
    for (let i = 1; i < slots.length; i++) assert.ok(slots[i]! >= slots[i - 1]!, 'in order');
    // 1 per minute for five, then the 15-minute window, then the hour: the greedy earliest slots.
    assert.deepEqual(
      slots.slice(0, 13).map((t) => (t - T0) / MIN),
      [0, 1, 2, 3, 4, 15, 16, 17, 18, 19, 30, 31, 60],
    );
    // Earliest: one minute earlier would break a rule for each of them.
    for (let i = 0; i < slots.length; i++) {
      if (slots[i] === T0) continue;
      const earlier = [...slots.slice(0, i), slots[i]! - MIN];
      assert.throws(
        () => assertWithin(earlier, GOALERT, 'earlier'),
        /within/,
        `slot ${i} could not be earlier`,
      );
    }
  });

  it('numbers are paced apart; a message to several waits for the last of their slots', () => {
    const book = new PaceBook(SETTINGS);
    const a = book.reserve({ id: 'a1', keys: ['1'], critical: false, now: T0 });
    const b = book.reserve({ id: 'b1', keys: ['2'], critical: false, now: T0 });
    assert.equal(a.at, T0);
    assert.equal(b.at, T0, 'another number is not slowed');
    book.reserve({ id: 'a2', keys: ['1'], critical: false, now: T0 });
    const both = book.reserve({ id: 'ab', keys: ['1', '2'], critical: false, now: T0 });
    assert.equal(both.at, T0 + 2 * MIN, "after number 1's second slot");
    assert.deepEqual(book.times('2'), [T0, T0 + 2 * MIN]);
  });

  it('critical messages go at once within their allowance (3 per 15 min), then wait like the others', () => {
    const book = new PaceBook(SETTINGS);
    book.reserve({ id: 'n', keys: ['1'], critical: false, now: T0 });
    const crit = [1, 2, 3, 4].map((i) => book.reserve({ id: `c${i}`, keys: ['1'], critical: true, now: T0 }));
    assert.deepEqual(
      crit.map((c) => [c.via, (c.at - T0) / MIN]),
      [
        ['critical', 0],
        ['critical', 0],
        ['critical', 0],
        ['normal', 1],
      ],
    );
    // Counted with the others: five within the quarter hour now, so the next one waits for the window.
    const next = book.reserve({ id: 'n2', keys: ['1'], critical: false, now: T0 });
    assert.equal(next.at, T0 + 15 * MIN);
  });

  it('refusing: a later slot is not reserved', () => {
    const book = new PaceBook(SETTINGS);
    assert.equal(
      book.reserve({ id: 'a', keys: ['1'], critical: false, now: T0, onlyNow: true }).reserved,
      true,
    );
    const no = book.reserve({ id: 'b', keys: ['1'], critical: false, now: T0, onlyNow: true });
    assert.deepEqual([no.reserved, (no.at - T0) / MIN], [false, 1]);
    assert.deepEqual(book.times('1'), [T0]);
  });

  it('an id keeps its slot (a later attempt of the same entry); a stale one gets a new slot', () => {
    const book = new PaceBook(SETTINGS);
    book.reserve({ id: 'a', keys: ['1'], critical: false, now: T0 });
    const b = book.reserve({ id: 'b', keys: ['1'], critical: false, now: T0 });
    assert.equal(book.reserve({ id: 'b', keys: ['1'], critical: false, now: T0 + MIN }).at, b.at);
    assert.equal(book.reserve({ id: 'b', keys: ['1'], critical: false, now: T0 + MIN }).via, 'pending');
    assert.deepEqual(book.times('1'), [T0, T0 + MIN], 'not counted twice');
    // Its slot long past without a send (the gateway was away): a new one, after what waits now.
    book.reserve({ id: 'c', keys: ['1'], critical: false, now: T0 + MIN });
    const late = T0 + MIN + STALE_MS + 1;
    const again = book.reserve({ id: 'b', keys: ['1'], critical: false, now: late });
    assert.equal(again.via, 'normal');
    assert.ok(again.at > T0 + 2 * MIN, 'after c');
    assert.equal(book.times('1').length, 3);
  });

  it('released slots are given back; settled ones stay counted', () => {
    const book = new PaceBook(SETTINGS);
    book.reserve({ id: 'a', keys: ['1'], critical: false, now: T0 });
    book.reserve({ id: 'b', keys: ['1'], critical: false, now: T0 });
    book.settle('a');
    assert.equal(book.reservation('a'), undefined);
    book.release('b');
    assert.deepEqual(book.times('1'), [T0]);
    assert.equal(book.reserve({ id: 'c', keys: ['1'], critical: false, now: T0 }).at, T0 + MIN);
  });

  it('a lost book: numbers it does not know wait out the longest window; known ones and critical go on', () => {
    const book = new PaceBook(SETTINGS);
    book.reserve({ id: 'a', keys: ['1'], critical: false, now: T0 - 30 * MIN });
    book.lost = { why: 'test', since: T0 };
    assert.equal(book.reserve({ id: 'b', keys: ['2'], critical: false, now: T0 }).at, T0 + 60 * MIN);
    assert.equal(book.reserve({ id: 'c', keys: ['1'], critical: false, now: T0 }).at, T0);
    assert.equal(
      book.reserve({ id: 'd', keys: ['3'], critical: true, now: T0 }).at,
      T0,
      'critical allowance',
    );
    assert.equal(
      book.reserve({ id: 'e', keys: ['4'], critical: false, now: T0 + 61 * MIN }).at,
      T0 + 61 * MIN,
    );
  });

  it('keeps at most its bound of numbers: those past every window go first, then the least recently used', () => {
    const book = new PaceBook(SETTINGS, 3);
    book.reserve({ id: 'old', keys: ['old'], critical: false, now: T0 - 2 * 3_600_000 });
    for (const k of ['1', '2', '3']) book.reserve({ id: k, keys: [k], critical: false, now: T0 });
    assert.equal(book.size, 3);
    assert.deepEqual(book.times('old'), []);
    assert.equal(book.evictedActive, 0);
    book.reserve({ id: '4', keys: ['4'], critical: false, now: T0 });
    assert.equal(book.size, 3);
    assert.deepEqual(book.times('1'), [], 'the least recently used');
    assert.equal(book.evictedActive, 1);
  });

  it('reads back what it wrote, leaving out what it cannot read', () => {
    const book = new PaceBook(SETTINGS);
    book.reserve({ id: 'a', keys: ['1'], critical: true, now: T0 });
    book.reserve({ id: 'b', keys: ['1'], critical: false, now: T0 });
    const copy = PaceBook.from(JSON.parse(JSON.stringify(book)), SETTINGS);
    assert.deepEqual(copy.toJSON(), book.toJSON());
    const odd = PaceBook.from(
      { normal: { x: 'no', y: [1, 'a'], z: [T0] }, pending: { p: { at: 'x' } } },
      SETTINGS,
    );
    assert.deepEqual(odd.toJSON().normal, { z: [T0] });
    assert.deepEqual(odd.toJSON().pending, {});
  });
});

describe('pacing per number: the state file', () => {
  let dir: string;
  beforeEach(() => {
    Manifest.forgetAll();
    dir = mkdtempSync(path.join(tmpdir(), 'smsgw-pacing-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a restart keeps what each number was sent and what waits', async () => {
    const clock = new ManualClock(T0);
    const a = await FilePacer.open(dir, 'cfg', SETTINGS, { clock });
    await a.reserve({ id: 'm1', keys: ['1'], critical: false });
    const second = await a.reserve({ id: 'm2', keys: ['1'], critical: false });
    a.settle('m1');
    await a.close();
    Manifest.forgetAll();
    const b = await FilePacer.open(dir, 'cfg', SETTINGS, { clock });
    assert.deepEqual(b.book.times('1'), [T0, T0 + MIN]);
    assert.equal(
      (await b.reserve({ id: 'm2', keys: ['1'], critical: false })).at,
      second.at,
      'found by its id',
    );
    assert.equal((await b.reserve({ id: 'm3', keys: ['1'], critical: false })).at, T0 + 2 * MIN);
    await b.close();
  });

  it('a damaged or missing file is no fresh start: unknown numbers wait out the longest window', async () => {
    const clock = new ManualClock(T0);
    const a = await FilePacer.open(dir, 'cfg', SETTINGS, { clock });
    await a.reserve({ id: 'm1', keys: ['1'], critical: false });
    await a.close();
    const file = path.join(dir, 'smsgw-state', 'pacing.cfg.json');
    writeFileSync(file, 'garbage\n');
    Manifest.forgetAll();
    const told: string[] = [];
    const b = await FilePacer.open(dir, 'cfg', SETTINGS, { clock, onDamage: (d) => told.push(d.kind) });
    assert.deepEqual(told, ['damaged']);
    assert.equal(b.lost?.since, T0);
    assert.equal((await b.reserve({ id: 'x', keys: ['2'], critical: false })).at, T0 + 60 * MIN);
    await b.close();
    // Still known after another restart (written at once), and over once the longest window has passed.
    Manifest.forgetAll();
    const c = await FilePacer.open(dir, 'cfg', SETTINGS, { clock });
    assert.equal(c.lost?.since, T0);
    clock.t = T0 + 61 * MIN;
    assert.equal(c.lost, undefined);
    await c.close();
  });
});
