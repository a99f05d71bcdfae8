/**
 * The spending guard's windows: rolling hour, calendar day and month in local time, across
 * midnights, month ends and clock changes. The process time zone is switched per test (Node honours a change
 * of process.env.TZ at run time) and the clock is injected.
 */
import assert from 'node:assert/strict';
import { Budget } from '../../src/reliability/budget';
import { FileLedger } from '../../src/reliability/budget-file';
import { dayOf, HOUR_MS, leavesHourAt, monthOf, secondOf } from '../../src/reliability/budget-windows';

/** Runs `fn` with the process in time zone `tz`. */
async function inZone<T>(tz: string, fn: () => T | Promise<T>): Promise<T> {
  const before = process.env.TZ;
  process.env.TZ = tz;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  }
}

/** A clock the test moves. */
const clock = (start: number): { now(): number; set(t: number): void; add(ms: number): void } => {
  let t = start;
  return {
    now: () => t,
    set: (v) => {
      t = v;
    },
    add: (ms) => {
      t += ms;
    },
  };
};

const H = HOUR_MS;

describe('budget windows: rolling hour, local day and month', () => {
  it('a day is named by its local date and ends at the next local midnight (23 and 25 hours on clock changes)', () =>
    inZone('Europe/Berlin', () => {
      // 2024-03-31: clocks go from 02:00 to 03:00 (CET → CEST).
      const spring = dayOf(Date.parse('2024-03-31T12:00:00+02:00'));
      assert.equal(spring.id, '2024-03-31');
      assert.equal(spring.start, Date.parse('2024-03-31T00:00:00+01:00'));
      assert.equal(spring.end, Date.parse('2024-04-01T00:00:00+02:00'));
      assert.equal(spring.end - spring.start, 23 * H);
      // 2024-10-27: clocks go from 03:00 back to 02:00.
      const autumn = dayOf(Date.parse('2024-10-27T02:30:00+01:00'));
      assert.equal(autumn.id, '2024-10-27');
      assert.equal(autumn.end - autumn.start, 25 * H);
      // One millisecond before local midnight is still the old day; midnight starts the new one.
      const midnight = Date.parse('2024-06-15T00:00:00+02:00');
      assert.equal(dayOf(midnight - 1).id, '2024-06-14');
      assert.equal(dayOf(midnight).id, '2024-06-15');
      // ... although it is still the 14th in UTC.
      assert.equal(new Date(midnight).toISOString().slice(0, 10), '2024-06-14');
    }));

  it('a month ends at the first local midnight of the next month (also over the year end and a clock change)', () =>
    inZone('Europe/Berlin', () => {
      const march = monthOf(Date.parse('2024-03-31T23:59:59+02:00'));
      assert.equal(march.id, '2024-03');
      assert.equal(march.end, Date.parse('2024-04-01T00:00:00+02:00'));
      assert.equal(march.start, Date.parse('2024-03-01T00:00:00+01:00'));
      const december = monthOf(Date.parse('2024-12-31T23:00:00+01:00'));
      assert.equal(december.id, '2024-12');
      assert.equal(december.end, Date.parse('2025-01-01T00:00:00+01:00'));
      assert.equal(monthOf(december.end).id, '2025-01');
    }));

  it('a day whose midnight does not exist (clocks change at 00:00) starts at the first valid time', () =>
    inZone('America/Sao_Paulo', () => {
      // 2018-11-04: 00:00 became 01:00 in São Paulo.
      const day = dayOf(Date.parse('2018-11-04T12:00:00-02:00'));
      assert.equal(day.id, '2018-11-04');
      assert.equal(day.start, Date.parse('2018-11-04T01:00:00-02:00'));
      assert.equal(dayOf(day.start - 1).id, '2018-11-03');
    }));

  it('the rolling hour counts a send for a full hour after its second, whatever the clock change', () => {
    const t = Date.parse('2024-10-27T00:59:59.700Z');
    const sec = secondOf(t);
    assert.equal(leavesHourAt(sec), Date.parse('2024-10-27T02:00:00.000Z'));
    assert.ok(leavesHourAt(sec) - t >= H);
    assert.ok(leavesHourAt(sec) - t <= H + 1000);
  });

  it('a daily limit resets at local midnight, on the day the clocks change too', () =>
    inZone('Europe/Berlin', async () => {
      const c = clock(Date.parse('2024-03-31T23:58:00+02:00'));
      const budget = new Budget({ limits: { day: 3 } }, await FileLedger.open(undefined, 'cfg'), c);
      for (const k of ['a', 'b', 'c']) await budget.reserve(k, 1);
      const refused = await budget.reserve('d', 1).catch((e: unknown) => e);
      assert.equal((refused as { code?: string }).code, 'BUDGET');
      // The message names the limit and when it resets, in local time.
      assert.match(
        String((refused as Error).message),
        /daily limit of 3 reached \(3 counted.*it resets at 2024-04-01 00:00 local time/,
      );
      assert.equal((refused as { retryAt?: number }).retryAt, Date.parse('2024-04-01T00:00:00+02:00'));
      c.set(Date.parse('2024-04-01T00:00:00+02:00'));
      await budget.reserve('d', 1);
      assert.deepEqual(
        (await budget.windows(true)).map((w) => [w.window, w.count]),
        [['day', 1]],
      );
    }));

  it('a monthly limit resets at the first local midnight of the next month; the day before does not reset it', () =>
    inZone('Europe/Berlin', async () => {
      const c = clock(Date.parse('2024-10-30T10:00:00+01:00'));
      const budget = new Budget(
        { limits: { month: 2, day: 10 } },
        await FileLedger.open(undefined, 'cfg'),
        c,
      );
      await budget.reserve('a', 1);
      c.set(Date.parse('2024-10-31T10:00:00+01:00'));
      await budget.reserve('b', 1);
      const refused = (await budget.reserve('c', 1).catch((e: unknown) => e)) as {
        code: string;
        retryAt: number;
      };
      assert.equal(refused.code, 'BUDGET');
      assert.equal(refused.retryAt, Date.parse('2024-11-01T00:00:00+01:00'));
      c.set(refused.retryAt - 1);
      await assert.rejects(budget.reserve('c', 1), { code: 'BUDGET' });
      c.set(refused.retryAt);
      await budget.reserve('c', 1);
    }));

  it("the rolling hour frees a send's count an hour after it, and the error says from when", async () => {
    const c = clock(Date.parse('2024-05-03T10:00:00.250Z'));
    const budget = new Budget({ limits: { hour: 2 } }, await FileLedger.open(undefined, 'cfg'), c);
    await budget.reserve('a', 1);
    c.add(20 * 60_000);
    await budget.reserve('b', 1);
    assert.equal((await budget.windows(true))[0]!.count, 2);
    const refused = (await budget.reserve('c', 1).catch((e: unknown) => e)) as {
      code: string;
      retryAt: number;
      message: string;
    };
    assert.equal(refused.code, 'BUDGET');
    // 'a' was counted in the second 10:00:00 and leaves at 11:00:01: from then one more fits.
    assert.equal(refused.retryAt, Date.parse('2024-05-03T11:00:01.000Z'));
    assert.match(refused.message, /hourly limit of 2 reached \(2 counted.*room again from/);
    c.set(refused.retryAt - 1);
    await assert.rejects(budget.reserve('c', 1), { code: 'BUDGET' });
    c.set(refused.retryAt);
    await budget.reserve('c', 1);
    // A send of 2 needs both 'b' (leaves at 10:20:01) and 'c' (counted in the second 11:00:01) gone.
    const big = (await budget.reserve('d', 2).catch((e: unknown) => e)) as { retryAt: number };
    assert.equal(big.retryAt, Date.parse('2024-05-03T12:00:02.000Z'));
  });
});
