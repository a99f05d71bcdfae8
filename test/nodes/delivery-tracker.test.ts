import assert from 'node:assert/strict';
import { readStateFile } from '../store/read';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { GatewayClient } from '../../src/client';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import {
  DeliveryTracker,
  type DeliveryOutcome,
  type DeliveryTrackerOptions,
} from '../../src/nodes/send/delivery-tracker';
import { ReportStatuses } from '../../src/nodes/polling/report-status';
import type { SMSReport } from '../../src/client/types.generated';

const STATUSES = ReportStatuses.from(undefined, undefined);
/**
 * The tests move the tracker's clock by hand; the emulator's jobs end only at finishJobs() (its own delivery after
 * 0.7 s of real time could come before a loaded machine ticked: a report where the test expects none yet).
 */
const BY_HAND = { port: 0, timing: { processingMs: 3_600_000, deliveryMs: 3_600_000 } };

async function waitUntil(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('delivery tracker (shared QueryReceivedDLR poll)', () => {
  let emu: RunningEmulator;
  let client: GatewayClient;
  let userDir: string;
  let queries: number;
  let clock: number;
  const open: DeliveryTracker[] = [];

  before(async () => {
    emu = await startEmulator(BY_HAND);
    emu.control.setBalance('demo', 1_000_000);
    client = new GatewayClient({ baseUrl: emu.url, user: 'demo', password: 'demo-password' });
  });
  after(async () => {
    await client.close();
    await emu.close();
  });
  beforeEach(() => {
    userDir = mkdtempSync(path.join(tmpdir(), 'smsgw-tracker-'));
    queries = 0;
    clock = Date.now();
  });
  afterEach(async () => {
    for (const t of open.splice(0)) await t.close();
    rmSync(userDir, { recursive: true, force: true });
  });

  const tracker = (extra: Partial<DeliveryTrackerOptions> = {}): DeliveryTracker => trackerWith(extra);

  function trackerWith(extra: Partial<DeliveryTrackerOptions> = {}): DeliveryTracker {
    const t = new DeliveryTracker({
      userDir,
      id: 'cfg',
      query: (start, limit, signal) => {
        queries += 1;
        return client.information.queryReceivedDlr({ StartDate: start, Limit: limit }, { signal });
      },
      intervalMs: 3_600_000, // the tests tick by hand
      statuses: STATUSES,
      lookbackMs: 3_600_000,
      now: () => clock,
      ...extra,
    });
    open.push(t);
    return t;
  }

  async function send(recipients: string[]): Promise<number> {
    const r = await client.send.sendSms({
      Caption: 'track',
      Sender: '',
      Recipient: recipients,
      SMSText: 'x',
      SmsTyp: 'Standard',
      SendDate: null,
    });
    return r.JobId;
  }

  const collect = (t: DeliveryTracker, owner: string): DeliveryOutcome[] => {
    const got: DeliveryOutcome[] = [];
    t.subscribe(owner, (o) => got.push(o));
    return got;
  };

  it('hands on one outcome per job once every recipient has a final report, with counts', async () => {
    const t = tracker();
    const got = collect(t, 'n1');
    emu.control.setSubscriberState('+4917099900002', 'unreachable');
    const job = await send(['+4917099900001', '+4917099900002']);
    t.track({
      jobId: job,
      owner: 'n1',
      recipients: ['+4917099900001', '+4917099900002'],
      timeoutMs: 60_000,
      context: { topic: 'ctx' },
    });
    await t.tick();
    assert.equal(got.length, 0, 'nothing before the job finished');
    emu.control.finishJobs();
    await t.tick();
    assert.equal(got.length, 1);
    const o = got[0]!;
    assert.equal(o.JobId, job);
    assert.equal(o.outcome, 'final');
    assert.deepEqual([o.delivered, o.failed, o.missing], [1, 1, 0]);
    assert.deepEqual(o.reports.map((r) => r.Recipient).sort(), ['+4917099900001', '+4917099900002']);
    assert.deepEqual(o.context, { topic: 'ctx' });
    assert.equal(t.size, 0);
    await t.tick();
    assert.equal(got.length, 1, 'never twice');
  });

  it('polls once per tick for all tracked jobs, and not at all while nothing is tracked', async () => {
    const t = tracker();
    const got = collect(t, 'n1');
    await t.tick();
    assert.equal(queries, 0, 'idle: no request');
    assert.equal(t.isActive(), false);
    const jobs = [
      await send(['+4917099900011']),
      await send(['+4917099900012']),
      await send(['+4917099900013']),
    ];
    for (const j of jobs) t.track({ jobId: j, owner: 'n1', recipients: ['x'], timeoutMs: 60_000 });
    assert.equal(t.isActive(), true, 'tracking schedules the poll');
    emu.control.finishJobs();
    await t.tick();
    assert.equal(queries, 1);
    assert.deepEqual(got.map((o) => o.JobId).sort(), [...jobs].sort());
    assert.equal(t.isActive(), false, 'idle again once all jobs were handed on');
  });

  it('times out a job whose reports do not come by its deadline, with what it has', async () => {
    const t = tracker();
    const got = collect(t, 'n1');
    const job = await send(['+4917099900021']);
    t.track({ jobId: job, owner: 'n1', recipients: ['+4917099900021'], timeoutMs: 5_000 });
    await t.tick();
    assert.equal(got.length, 0);
    clock += 5_001;
    await t.tick();
    assert.equal(got.length, 1);
    assert.equal(got[0]!.outcome, 'timeout');
    assert.deepEqual([got[0]!.delivered, got[0]!.failed, got[0]!.missing], [0, 0, 1]);
  });

  it('times out even while the gateway cannot be reached, and reports the failure', async () => {
    const errors: unknown[] = [];
    const t = tracker({
      query: () => Promise.reject(new Error('down')),
      onError: (e) => errors.push(e),
    });
    const got = collect(t, 'n1');
    t.track({ jobId: 42, owner: 'n1', recipients: ['a'], timeoutMs: 1_000 });
    clock += 2_000;
    await t.tick();
    assert.equal(errors.length, 1);
    assert.deepEqual(
      got.map((o) => [o.JobId, o.outcome]),
      [[42, 'timeout']],
    );
  });

  describe('report states the lists do not know (the spec shows none)', () => {
    /** A gateway whose QueryReceivedDLR answers with these reports (one page, all at one date). */
    const reportsWith = (
      jobId: number,
      statuses: Array<[string, string]>,
    ): DeliveryTrackerOptions['query'] => {
      const at = new Date(clock);
      const reports = statuses.map(
        ([Recipient, Status], i) =>
          ({ Id: jobId * 10 + i, JobId: jobId, Recipient, Status, Date: at }) as unknown as SMSReport,
      );
      return () => Promise.resolve(reports);
    };

    it("SMPP's seven-letter states (DELIVRD, REJECTD) end a job like DELIVERED and REJECTED", async () => {
      const t = tracker({
        query: reportsWith(7001, [
          ['+491', 'DELIVRD'],
          ['+492', 'REJECTD'],
        ]),
      });
      const got = collect(t, 'n1');
      t.track({ jobId: 7001, owner: 'n1', recipients: ['+491', '+492'], timeoutMs: 60_000 });
      await t.tick();
      assert.equal(got.length, 1);
      assert.equal(got[0]!.outcome, 'final');
      assert.deepEqual([got[0]!.delivered, got[0]!.failed, got[0]!.unknown, got[0]!.missing], [1, 1, 0, 0]);
    });

    it('a state in neither list: warned once, never ends the job, which times out with the report counted as unknown', async () => {
      const unknown: Array<[string, number | string]> = [];
      const t = tracker({
        query: reportsWith(7002, [
          ['+491', 'DELIVERED'],
          ['+492', 'SOMETHING_NEW'],
          ['+493', 'SOMETHING_NEW'],
        ]),
        onUnknownStatus: (status, jobId) => unknown.push([status, jobId]),
      });
      const got = collect(t, 'n1');
      t.track({ jobId: 7002, owner: 'n1', recipients: ['+491', '+492', '+493', '+494'], timeoutMs: 5_000 });
      await t.tick();
      await t.tick();
      assert.equal(got.length, 0, 'not final: the unknown state is not taken for a final one');
      assert.deepEqual(unknown, [['SOMETHING_NEW', 7002]], 'one warning per state');
      clock += 5_001;
      await t.tick();
      assert.equal(got.length, 1);
      const o = got[0]!;
      assert.equal(o.outcome, 'timeout');
      assert.deepEqual([o.delivered, o.failed, o.unknown, o.missing], [1, 0, 2, 1]);
      assert.deepEqual(
        o.reports.map((r) => r.Status),
        ['DELIVERED', 'SOMETHING_NEW', 'SOMETHING_NEW'],
        'every report reaches the flow',
      );
      assert.equal(t.size, 0);
    });

    it('a known pending state is neither unknown nor final', async () => {
      const unknown: string[] = [];
      const t = tracker({
        query: reportsWith(7003, [['+491', 'ENROUTE']]),
        onUnknownStatus: (status) => unknown.push(status),
      });
      const got = collect(t, 'n1');
      t.track({ jobId: 7003, owner: 'n1', recipients: ['+491'], timeoutMs: 1_000 });
      await t.tick();
      clock += 1_001;
      await t.tick();
      assert.deepEqual(unknown, []);
      assert.deepEqual([got[0]!.outcome, got[0]!.unknown, got[0]!.missing], ['timeout', 0, 1]);
    });
  });

  describe('a report read before its job is tracked', () => {
    // An emulator of each test's own: no reports of other tests in the lookback.
    let own: RunningEmulator;
    let ownClient: GatewayClient;
    beforeEach(async () => {
      own = await startEmulator(BY_HAND);
      own.control.setBalance('demo', 1_000_000);
      ownClient = new GatewayClient({ baseUrl: own.url, user: 'demo', password: 'demo-password' });
    });
    afterEach(async () => {
      await ownClient.close();
      await own.close();
    });
    const tracker = (): DeliveryTracker =>
      trackerWith({
        query: (start, limit, signal) =>
          ownClient.information.queryReceivedDlr({ StartDate: start, Limit: limit }, { signal }),
      });
    const send = async (recipients: string[]): Promise<number> => {
      const r = await ownClient.send.sendSms({
        Caption: 'late',
        Sender: '',
        Recipient: recipients,
        SMSText: 'x',
        SmsTyp: 'Standard',
        SendDate: null,
      });
      own.control.finishJobs();
      return r.JobId;
    };
    /** A job tracked since before that never finishes: it keeps the tracker polling. */
    const busy = (t: DeliveryTracker): void =>
      t.track({ jobId: 999_999_999, owner: 'other', recipients: ['+4917099900050'], timeoutMs: 3_600_000 });

    it('a send under way keeps the reports no tracked job took; its job, tracked late, gets them and is final', async () => {
      const t = tracker();
      const got = collect(t, 'n1');
      busy(t);
      // A send whose answer was lost: its job is found by its reference only after the tracker read its report.
      const release = t.expect();
      const job = await send(['+4917099900051']);
      await t.tick();
      assert.equal(t.unmatchedSize, 1, 'kept for the send under way');
      t.track({ jobId: job, owner: 'n1', recipients: ['+4917099900051'], timeoutMs: 5_000 });
      release();
      assert.equal(t.unmatchedSize, 0, 'given to the job');
      await t.tick();
      clock += 5_001;
      await t.tick();
      assert.deepEqual(
        got.map((o) => [o.JobId, o.outcome, o.delivered]),
        [[job, 'final', 1]],
      );
      assert.equal(got[0]!.reports.length, 1, 'each report once');
    });

    it('after a job tracked late was final at once, the tracker polls on for the next jobs (its own timer)', async () => {
      const t = trackerWith({
        intervalMs: 20,
        now: Date.now,
        query: (start, limit, signal) =>
          ownClient.information.queryReceivedDlr({ StartDate: start, Limit: limit }, { signal }),
      });
      const got = collect(t, 'n1');
      busy(t);
      const release = t.expect();
      const early = await send(['+4917099900055']);
      // The tracker's own polls read its report and keep it for the send under way (a fixed 200 ms could end
      // before that read on a loaded machine: the job tracked below would then not be final at once).
      await waitUntil(() => t.unmatchedSize === 1);
      t.track({ jobId: early, owner: 'n1', recipients: ['+4917099900055'], timeoutMs: 60_000 });
      release();
      await waitUntil(() => got.length === 1);
      // A job tracked afterwards: no tick by hand, the tracker's timer must still be running.
      const later = await ownClient.send.sendSms({
        Caption: 'later',
        Sender: '',
        Recipient: ['+4917099900056'],
        SMSText: 'x',
        SmsTyp: 'Standard',
        SendDate: null,
      });
      t.track({ jobId: later.JobId, owner: 'n1', recipients: ['+4917099900056'], timeoutMs: 60_000 });
      own.control.finishJobs();
      await waitUntil(() => got.length === 2);
      assert.deepEqual(
        got.map((o) => [o.JobId, o.outcome]),
        [
          [early, 'final'],
          [later.JobId, 'final'],
        ],
      );
    });

    it('keeps nothing while no send is under way, and drops what it kept once the sends are done', async () => {
      const t = tracker();
      busy(t);
      await send(['+4917099900052']);
      await t.tick();
      assert.equal(t.unmatchedSize, 0, 'no send under way: a report of no tracked job is not kept');
      const release = t.expect();
      await send(['+4917099900053']);
      await t.tick();
      assert.equal(t.unmatchedSize, 1);
      release(); // the send failed: nobody will track its job
      assert.equal(t.unmatchedSize, 0);
    });

    it('reports read before a send began are not kept for it', async () => {
      const t = tracker();
      busy(t);
      const first = t.expect();
      await send(['+4917099900054']);
      await t.tick();
      assert.equal(t.unmatchedSize, 1);
      await new Promise((r) => setTimeout(r, 5));
      const second = t.expect();
      first();
      assert.equal(t.unmatchedSize, 0, 'read before the send still under way began');
      second();
    });
  });

  it('survives a restart: a new tracker from the same userDir resumes tracking (no context)', async () => {
    const first = tracker();
    const job = await send(['+4917099900031']);
    first.track({
      jobId: job,
      owner: 'n1',
      recipients: ['+4917099900031'],
      timeoutMs: 60_000,
      context: { a: 1 },
    });
    await first.close();
    const file = path.join(userDir, 'smsgw-state', 'smsgw-delivery.cfg.json');
    assert.ok(existsSync(file));
    assert.equal((readStateFile(file) as { jobs: unknown[] }).jobs.length, 1);

    emu.control.finishJobs();
    const second = tracker();
    const got = collect(second, 'n1');
    await second.tick();
    assert.deepEqual(
      got.map((o) => [o.JobId, o.outcome, o.context]),
      [[job, 'final', undefined]],
    );
    assert.ok(got[0]!.reports[0]!.Date instanceof Date);
    await second.close();
    assert.equal((readStateFile(file) as { jobs: unknown[] }).jobs.length, 0);
  });

  it('keeps a finished job until its node subscribes (redeploy), and drops the jobs of a deleted node', async () => {
    const t = tracker();
    const a = await send(['+4917099900041']);
    const b = await send(['+4917099900042']);
    t.track({ jobId: a, owner: 'gone-for-now', recipients: ['x'], timeoutMs: 60_000 });
    t.track({ jobId: b, owner: 'deleted', recipients: ['x'], timeoutMs: 60_000 });
    emu.control.finishJobs();
    await t.tick();
    assert.equal(t.size, 2, 'no listener yet: both kept');
    await t.forget('deleted');
    assert.equal(t.size, 1);
    const got = collect(t, 'gone-for-now');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(
      got.map((o) => o.JobId),
      [a],
    );
    assert.equal(t.size, 0);
  });
});
