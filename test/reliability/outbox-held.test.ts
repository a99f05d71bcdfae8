/**
 * The outbox holding a message until a time (quiet hours, a number's pacing slot): not attempted before, held (not
 * kept) and counted per origin, kept so across a restart, not released by flush(), released in submission order,
 * cancelled by its topic; behind the pacing sender, a burst to a few numbers goes out within each number's rules,
 * in order, none lost. A hand-driven clock: no real time passes for the waits.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { JournalStore, Outbox, keepByDefault, type OutboxSender } from '../../src/reliability';
import { isPacedHold, PaceBook, type PaceRule } from '../../src/reliability/pacing';
import { pacedSender } from '../../src/reliability/pacing-sender';
import type { Pacer } from '../../src/reliability/pacing';
import { ManualClock, turns, until } from '../helpers/manual-clock';

const MIN = 60_000;
const sms = (i: number, to = '+4917012345678'): Record<string, unknown> => ({
  Caption: `m${i}`,
  Sender: 'Shop',
  Recipient: [to],
  SMSText: `message ${i}`,
  SmsTyp: 'Standard',
  SendDate: null,
});

/** A pacer over a book in memory, on the test's clock. */
function memoryPacer(rules: PaceRule[], clock: ManualClock): Pacer & { book: PaceBook } {
  const book = new PaceBook({ rules, critical: [] });
  return {
    book,
    settings: book.settings,
    reserve: (req) => Promise.resolve(book.reserve({ ...req, now: clock.now() })),
    settle: (id) => void book.settle(id),
    release: (id) => void book.release(id),
    lost: undefined,
    close: () => Promise.resolve(),
  };
}

describe('outbox: held until a time', () => {
  let dir: string;
  let clock: ManualClock;
  const opened: Outbox[] = [];
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'smsgw-held-'));
    clock = new ManualClock();
  });
  afterEach(async () => {
    for (const box of opened.splice(0)) await box.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function open(
    send: OutboxSender,
    extra: Partial<Parameters<typeof Outbox.open>[0]> = {},
  ): Promise<Outbox> {
    const box = await Outbox.open({
      store: new JournalStore({ file: path.join(dir, 'outbox.jsonl') }),
      send,
      clock,
      retryIntervalMs: 10,
      maxRetryIntervalMs: 20,
      ...extra,
    });
    opened.push(box);
    return box;
  }

  const calls: string[] = [];
  const recording: OutboxSender = (entry) => {
    calls.push(String(entry.params.Caption));
    return Promise.resolve({ JobId: calls.length, queued: false });
  };
  beforeEach(() => (calls.length = 0));

  it('is not attempted before its time, counts as held (not kept), survives a restart, then goes in order', async () => {
    const box = await open(recording);
    const release = clock.now() + 10 * 3_600_000;
    const heldTold: number[] = [];
    const accepted: string[] = [];
    const outcomes = Array.from({ length: 5 }, (_, i) =>
      box
        .submit('send', 'SendSMS', sms(i), {
          origin: 'node1',
          notBefore: release,
          topic: 'night',
          onAccepted: ({ id }) => accepted.push(id),
          onHeld: (t) => heldTold.push(t),
        })
        .catch((e: unknown) => e),
    );
    await until(() => accepted.length === 5, 'accepted');
    await turns();
    assert.deepEqual(calls, [], 'not attempted');
    assert.deepEqual([box.held, box.kept, box.heldFor('node1'), box.heldFor('other')], [5, 0, 5, 0]);
    assert.deepEqual(heldTold, [release, release, release, release, release]);
    assert.ok(box.list().every((e) => e.notBefore === release && e.topic === 'night' && !e.inFlight));
    // A retry of kept messages (the gateway back, Redis back) does not release what is held.
    await box.flush();
    assert.deepEqual(calls, []);
    await box.close();
    for (const o of await Promise.all(outcomes)) assert.match(String(o), /stays in the outbox/);

    const again = await open(recording);
    assert.deepEqual([again.held, again.kept, again.heldFor('node1')], [5, 0, 5], 'held after the restart');
    await clock.advanceTo(release - 1);
    assert.deepEqual(calls, []);
    await clock.advanceTo(release);
    await until(() => calls.length === 5, 'sent at its time');
    assert.deepEqual(calls, ['m0', 'm1', 'm2', 'm3', 'm4'], 'in submission order');
    await again.idle();
    assert.deepEqual([again.held, again.size], [0, 0]);
  });

  it('is cancelled by its topic: not sent, its caller refused (REJECTED), gone after a restart', async () => {
    const box = await open(recording);
    const release = clock.now() + 3_600_000;
    const a = box
      .submit('send', 'SendSMS', sms(1), { notBefore: release, topic: 'promo' })
      .catch((e: unknown) => e);
    const b = box
      .submit('send', 'SendSMS', sms(2), { notBefore: release, topic: 'alarm' })
      .catch((e: unknown) => e);
    await until(() => box.size === 2, 'accepted');
    const removed = await box.removeWhere((e) => e.topic === 'promo');
    assert.equal(removed.length, 1);
    assert.equal(((await a) as { code?: string }).code, 'REJECTED');
    assert.equal(box.held, 1);
    await box.close();
    await b;
    const again = await open(recording);
    assert.deepEqual(
      again.list().map((e) => e.topic),
      ['alarm'],
    );
    await clock.advanceTo(release);
    await until(() => calls.length === 1, 'the other sent');
    assert.deepEqual(calls, ['m2']);
  });

  it('behind the pacing: 60 messages to 3 numbers go out within each number’s rules, in order, none lost', async () => {
    const rules: PaceRule[] = [
      { count: 1, ms: MIN },
      { count: 5, ms: 15 * MIN },
      { count: 12, ms: 60 * MIN },
    ];
    const pacer = memoryPacer(rules, clock);
    const sent: Array<{ to: string; caption: string; at: number }> = [];
    const send: OutboxSender = (entry) => {
      sent.push({
        to: String((entry.params.Recipient as string[])[0]),
        caption: String(entry.params.Caption),
        at: clock.now(),
      });
      return Promise.resolve({ JobId: sent.length, queued: false });
    };
    const box = await open(
      pacedSender(
        {
          pacer,
          mode: 'wait',
          clock,
          keysOf: (e) => (e.params.Recipient as string[]).map((r) => r.replace(/^\+/, '')),
        },
        send,
      ),
      { keep: keepByDefault, hold: isPacedHold },
    );
    const numbers = ['+491701', '+491702', '+491703'];
    const done = Array.from({ length: 60 }, (_, i) => box.submit('send', 'SendSMS', sms(i, numbers[i % 3]!)));
    await until(() => box.stats.accepted === 60, 'accepted');
    await until(() => sent.length === 3 && box.held === 57, 'the first of each number sent, the rest held');
    // Twenty per number: the hour allows 12, so the last go in the second hour.
    while (sent.length < 60) {
      const next = clock.next;
      assert.ok(Number.isFinite(next), `a timer waits (${sent.length} sent)`);
      await clock.advanceTo(next);
      await box.idle();
    }
    await Promise.all(done);
    for (const n of numbers) {
      const mine = sent.filter((s) => s.to === n);
      assert.equal(mine.length, 20, `${n}: all sent once`);
      const order = mine.map((s) => Number(s.caption.slice(1)));
      assert.deepEqual(
        order,
        [...order].sort((x, y) => x - y),
        `${n}: in order`,
      );
      for (const r of rules)
        for (const end of mine.map((s) => s.at)) {
          const within = mine.filter((s) => s.at > end - r.ms && s.at <= end).length;
          assert.ok(within <= r.count, `${n}: ${within} within ${r.ms / MIN} min`);
        }
    }
    assert.deepEqual([box.held, box.kept, box.size], [0, 0, 0]);
  });
});
