/**
 * The spending guard in front of the outbox: a send over a limit is held (kept, durable) until its
 * window resets, and not tried again before; a retry after an unknown outcome does not count twice; a send that
 * surely failed does not count; a held critical message keeps its priority across a restart.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { GatewayError } from '../../src/errors';
import { JournalStore, Outbox, keepByDefault, type OutboxSender } from '../../src/reliability';
import { Budget, isBudgetHold, type BudgetSettings } from '../../src/reliability/budget';
import { FileLedger } from '../../src/reliability/budget-file';
import { budgetSender } from '../../src/reliability/budget-sender';

const sms = (i: number): Record<string, unknown> => ({
  Caption: `m${i}`,
  Sender: 'Shop',
  Recipient: ['+4917012345678'],
  SMSText: `alarm ${i}`,
  SmsTyp: 'Standard',
  SendDate: null,
});

const DAY = 24 * 3_600_000;

/** Waits until the outbox accepted `n` messages in all, then until nothing more can start. */
async function quiet(box: Outbox, n: number): Promise<void> {
  const end = Date.now() + 10_000;
  while (box.stats.accepted < n) {
    if (Date.now() > end) throw new Error(`only ${box.stats.accepted} accepted`);
    await new Promise((r) => setTimeout(r, 5));
  }
  await box.idle();
  // The settled callers hear it one turn later.
  await new Promise((r) => setImmediate(r));
}

describe('budget: in front of the outbox (hold, retries, restart)', () => {
  let dir: string;
  let t: number;
  const clock = { now: () => t };
  const opened: Outbox[] = [];
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'smsgw-budget-box-'));
    // Noon, local time: a day has room on either side.
    const d = new Date();
    t = new Date(d.getFullYear(), d.getMonth(), d.getDate(), 12).getTime();
  });
  afterEach(async () => {
    for (const box of opened.splice(0)) await box.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function setup(
    settings: BudgetSettings,
    send: OutboxSender,
  ): Promise<{ box: Outbox; budget: Budget; calls: () => number; attempts: () => number }> {
    const budget = new Budget(settings, await FileLedger.open(dir, 'cfg'), clock);
    let calls = 0;
    let attempts = 0;
    const counted: OutboxSender = (entry, options) => {
      calls++;
      return send(entry, options);
    };
    const guarded = budgetSender(() => Promise.resolve(budget), counted);
    const box = await Outbox.open({
      store: new JournalStore({ file: path.join(dir, 'outbox.jsonl') }),
      send: (entry, options) => {
        attempts++;
        return guarded(entry, options);
      },
      keep: (err) => keepByDefault(err) || isBudgetHold(err),
      retryIntervalMs: 10,
      maxRetryIntervalMs: 20,
    });
    opened.push(box);
    return { box, budget, calls: () => calls, attempts: () => attempts };
  }

  const sent: OutboxSender = (entry) => Promise.resolve({ JobId: entry.reference, queued: false });
  const dayCount = async (budget: Budget): Promise<number> =>
    (await budget.windows(true)).find((w) => w.window === 'day')!.count;

  it('over the daily limit a send is held until the day resets, not tried again before', async () => {
    const { box, budget, calls, attempts } = await setup({ limits: { day: 2 }, hold: true }, sent);
    const results = Array.from({ length: 5 }, (_, i) => box.submit('send', 'SendSMS', sms(i)));
    let settled = 0;
    for (const r of results) void r.then(() => settled++);
    await quiet(box, 5);
    assert.equal(settled, 2);
    assert.equal(box.kept, 3);
    // Each was tried once; with 10 ms between retries, a backoff would have tried them many times by now: a
    // held send waits for its window instead.
    assert.equal(attempts(), 5);
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(attempts(), 5);
    assert.equal(calls(), 2);
    assert.equal(await dayCount(budget), 2);
    // The next day: two more go, one is held again.
    t += DAY;
    await box.flush();
    await new Promise((r) => setImmediate(r));
    assert.equal(settled, 4);
    assert.equal(box.kept, 1);
    t += DAY;
    await box.flush();
    await Promise.all(results);
    assert.equal(calls(), 5);
    assert.equal(box.size, 0);
  });

  it('a retry after an unknown outcome does not count twice; a send that surely failed does not count', async () => {
    let attempts = 0;
    const flaky: OutboxSender = (entry) => {
      attempts++;
      if (attempts > 100)
        return Promise.reject(new GatewayError('REJECTED', 'blacklisted', { ambiguous: false }));
      if (attempts === 1)
        return Promise.reject(new GatewayError('TIMEOUT', 'answer lost', { ambiguous: true }));
      if (attempts === 2)
        return Promise.reject(new GatewayError('NETWORK', 'connect ECONNREFUSED', { ambiguous: false }));
      return sent(entry, undefined as never);
    };
    const { box, budget } = await setup({ limits: { day: 10 } }, flaky);
    const result = box.submit('send', 'SendSMS', sms(1));
    await quiet(box, 1);
    // Attempt 1 may have reached the gateway: counted, and it stays counted while the entry waits.
    assert.equal(await dayCount(budget), 1);
    await box.flush();
    // Attempt 2: refused before it was sent; attempt 1's count stays (it may still be out there).
    assert.equal(attempts, 2);
    assert.equal(await dayCount(budget), 1);
    await box.flush();
    await result;
    assert.equal(attempts, 3);
    assert.equal(await dayCount(budget), 1);

    // Surely not sent and then refused for good: nothing counted.
    const refused = box.submit('send', 'SendSMS', sms(2));
    attempts = 100;
    await assert.rejects(refused);
    assert.equal(await dayCount(budget), 1);
  });

  it('a held critical message keeps its priority across a restart and uses the reserve', async () => {
    const settings: BudgetSettings = { limits: { day: 1 }, reserve: 1, hold: true };
    const first = await setup(settings, sent);
    await first.budget.reserve('earlier', 2, { critical: true });
    const held = first.box.submit('send', 'SendSMS', sms(1), { priority: 'critical' });
    void held.catch(() => undefined);
    await quiet(first.box, 1);
    assert.equal(first.box.kept, 1);
    await first.box.close();
    opened.splice(0);
    // The next day, the normal share is used up already: only the reserve is left, for critical sends.
    t += DAY;
    const second = await setup(settings, sent);
    await second.budget.reserve('normal', 1);
    await second.box.flush();
    assert.equal(second.box.size, 0);
    assert.equal(await dayCount(second.budget), 2);
  });
});
