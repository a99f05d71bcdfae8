import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { SMSReport } from '../../src/client/types.generated';
import { stateText } from '../../src/store/state-text';
import {
  OVERLAP_MS,
  PAGE_LIMIT,
  SeenReports,
  readNewReports,
  type ReportCursor,
} from '../../src/nodes/polling/report-cursor';

const T0 = Date.UTC(2026, 10, 24, 12);

const report = (id: number | string, at: number): SMSReport =>
  ({
    Id: id,
    JobId: 1,
    Date: new Date(at),
    MsgCode: 0,
    DoneDate: null,
    CreateDate: null,
  }) as unknown as SMSReport;

/** One poll over `pages` (what the gateway answers to each request, in order); the reports handed on. */
async function poll(
  state: ReportCursor,
  pages: SMSReport[][],
  now: number,
): Promise<{ next: ReportCursor | undefined; fresh: SMSReport[]; odd: SMSReport[] }> {
  const fresh: SMSReport[] = [];
  const odd: SMSReport[] = [];
  let call = 0;
  const next = await readNewReports(state, {
    lookbackMs: 3_600_000,
    now,
    query: async () => {
      const page = pages[call++];
      if (!page) throw new Error('gateway down');
      return page;
    },
    onPage: (reports) => fresh.push(...reports),
    onUnusable: (reports) => odd.push(...reports),
  });
  return { next, fresh, odd };
}

const ids = (reports: SMSReport[]): unknown[] => reports.map((r) => r.Id);
const saved = (state: ReportCursor): unknown => JSON.parse(JSON.stringify(state));

describe('report cursor: the ids seen, kept as a Map between polls', () => {
  it('hands on the same reports and saves the same state as a cursor read back from its JSON at every poll', async () => {
    // Ids from a small range (repeats across polls), dates around a clock that moves by up to two minutes a poll
    // (some inside the one-minute overlap, some before it), now and then an Id kept as raw text.
    const reportArb = fc.record({
      id: fc.oneof(
        { weight: 9, arbitrary: fc.integer({ min: -3, max: 40 }) },
        { weight: 1, arbitrary: fc.constantFrom('7x', ' 8') },
      ),
      offset: fc.integer({ min: -90_000, max: 5_000 }),
    });
    const pollArb = fc.record({
      step: fc.integer({ min: 0, max: 120_000 }),
      reports: fc.array(reportArb, { maxLength: 12 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(pollArb, { minLength: 1, maxLength: 8 }), async (polls) => {
        let live: ReportCursor = { cursor: null, seen: {} };
        let reread: ReportCursor = { cursor: null, seen: {} };
        let clock = T0;
        for (const p of polls) {
          clock += p.step;
          const page = p.reports.map((r) => report(r.id, clock + r.offset));
          const a = await poll(live, [page], clock);
          const b = await poll(reread, [page], clock);
          assert.deepEqual([ids(a.fresh), ids(a.odd)], [ids(b.fresh), ids(b.odd)]);
          assert.ok(a.next && b.next && a.next.seen instanceof SeenReports);
          assert.deepEqual(saved(a.next), saved(b.next));
          live = a.next;
          reread = saved(b.next) as ReportCursor;
        }
      }),
      { numRuns: 300 },
    );
  });

  it('saves the ids as before: { "<id>": report date in ms }, pruned to the overlap window', async () => {
    const { next } = await poll(
      { cursor: new Date(T0).toISOString(), seen: {} },
      [[report(5, T0 + 1000), report(-2, T0 + 20_000), report(6, T0 + 70_000 + 3000)]],
      T0,
    );
    assert.deepEqual(saved(next!), {
      cursor: new Date(T0 + 73_000).toISOString(),
      // 5 is older than the newest report minus the overlap (73 s - 60 s): dropped.
      seen: { '-2': T0 + 20_000, '6': T0 + 73_000 },
    });
    assert.equal(OVERLAP_MS, 60_000);
  });

  it('keeps the ids a copy of the state would keep, in the same order: those before, then those added, inside the window', async () => {
    // The plain way, as a reference: copy the ids, add the page's new ones, drop those before the window.
    const reference = (
      before: Map<number, number>,
      page: SMSReport[],
      cursor: number,
    ): [number, number][] => {
      const seen = new Map(before);
      let newest = cursor - OVERLAP_MS;
      for (const r of page) {
        const at = (r.Date as unknown as Date).getTime();
        newest = Math.max(newest, at);
        if (!seen.has(r.Id as number)) seen.set(r.Id as number, at);
      }
      const keepFrom = Math.max(cursor, newest) - OVERLAP_MS;
      for (const [id, at] of seen) if (at < keepFrom) seen.delete(id);
      return [...seen];
    };
    // Dates on a 10 s grid: some exactly at the window's start.
    const entryArb = fc.tuple(
      fc.integer({ min: 0, max: 30 }),
      fc.integer({ min: -15, max: 0 }).map((n) => n * 10_000),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(entryArb, { selector: (e) => e[0], maxLength: 12 }),
        fc.array(entryArb, { maxLength: 12 }),
        async (old, fresh) => {
          const ids = new Map(old.map(([id, offset]) => [id, T0 + offset]));
          const state: ReportCursor = { cursor: new Date(T0).toISOString(), seen: new SeenReports(ids) };
          const page = fresh.map(([id, offset]) => report(id, T0 + offset));
          const { next } = await poll(state, [page], T0);
          assert.ok(next?.seen instanceof SeenReports);
          assert.deepEqual([...next.seen.ids], reference(ids, page, T0));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a state file holds the same text whether the ids are written from the Map or from their saved object', () => {
    // Ids in any order: integers that are object indexes (up to 2^32 - 2) and ones that are not (negative,
    // 2^32 - 1 and above, past 2^53), raw-text ids; the file lists the indexes ascending, then the rest as added.
    const idArb = fc.oneof(
      fc.integer({ min: 0, max: 60 }),
      fc.integer({ min: 1_000_000, max: 1_000_050 }),
      fc.constantFrom(-7, -1, 4294967294, 4294967295, 4294967296, 2 ** 53 + 2, 1e21),
      fc.constantFrom('odd:{"Id":"7x"}', 'odd:{"Id":" 8"}'),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(idArb, fc.integer({ min: T0 - 90_000, max: T0 })), { maxLength: 40 }),
        fc.boolean(),
        (entries, ascending) => {
          if (ascending)
            entries.sort((a, b) => (typeof a[0] === 'number' && typeof b[0] === 'number' ? a[0] - b[0] : 0));
          const seen = new SeenReports(new Map(entries));
          const cursor = new Date(T0).toISOString();
          assert.equal(stateText({ cursor, seen }), stateText({ cursor, seen: seen.toJSON() }));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('reads a state saved by an earlier version (integer ids and raw-text ids as object keys)', async () => {
    const odd = report('7x', T0 + 500);
    const before: ReportCursor = {
      cursor: new Date(T0 + 1000).toISOString(),
      seen: { '5': T0 + 1000, [`odd:${JSON.stringify(odd)}`]: T0 + 500 },
    };
    const { fresh, odd: unusable } = await poll(
      before,
      [[report(5, T0 + 1000), odd, report(6, T0 + 1000)]],
      T0,
    );
    assert.deepEqual(ids(fresh), [6]);
    assert.deepEqual(unusable, []);
  });

  it('a poll that fails, or is not taken up, leaves the state it started from as it was', async () => {
    const first = await poll({ cursor: new Date(T0).toISOString(), seen: {} }, [[report(1, T0 + 10)]], T0);
    const state = first.next!;
    const before = saved(state);
    // A full page is followed at once; the gateway fails on the follow-up: nothing handed on may count as seen.
    const full = Array.from({ length: PAGE_LIMIT }, (_, i) => report(100 + i, T0 + 20 + i));
    await assert.rejects(poll(state, [full], T0 + 30_000), /gateway down/);
    assert.deepEqual(saved(state), before);
    // A poll whose result the caller drops (its msgs were not all handed on) changes nothing either.
    const dropped = await poll(state, [[report(2, T0 + 20)]], T0 + 30_000);
    assert.deepEqual(ids(dropped.fresh), [2]);
    assert.deepEqual(saved(state), before);
    const again = await poll(state, [[report(1, T0 + 10), report(2, T0 + 20)]], T0 + 30_000);
    assert.deepEqual(ids(again.fresh), [2]);
  });
});
