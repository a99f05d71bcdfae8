import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCliArgs } from '../../../src/emulator/cli';
import type { GatewayState } from '../../../src/emulator/state';
import { T0, makeState, sendSms, typed, type Rec } from './helpers';

/** Sends `n` jobs with distinct captions, each finished (Erledigt) before the next is sent. */
function sendFinished(state: GatewayState, n: number, prefix = 'job'): number[] {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    ids.push(sendSms(state, { Caption: `${prefix}-${i}`, SMSText: `text ${prefix} ${i}` }).JobId);
    state.advance(700);
  }
  return ids;
}

const jobIds = (state: GatewayState): number[] => state.jobs().map((j) => j.id);

function dlrJobIds(state: GatewayState): number[] {
  const reports = typed<Rec[]>(state, 'information', 'QueryReceivedDLR', {
    StartDate: null,
    Limit: 0,
  }).Value!;
  return reports.map((r) => r['JobId'] as number);
}

describe('emulator state: bounded job retention (maxJobs)', () => {
  it('keeps at most maxJobs plus a tenth of it, forgetting the oldest finished jobs first', () => {
    const state = makeState({ maxJobs: 20 });
    const ids: number[] = [];
    for (let i = 0; i < 100; i++) {
      ids.push(...sendFinished(state, 1, `j${i}`));
      assert.ok(state.jobs().length <= 22, `at most 22 jobs kept, not ${state.jobs().length}`);
    }
    const kept = jobIds(state);
    assert.ok(kept.length >= 20, 'never fewer than maxJobs once there were more');
    assert.deepEqual(kept, ids.slice(-kept.length), 'the newest jobs are the ones kept');
  });

  it('keeps 10000 jobs per account by default and counts each account on its own', () => {
    const state = makeState({
      maxJobs: 5,
      accounts: [{ user: 'other', password: 'other-pw', balance: 100 }],
    });
    sendFinished(state, 30);
    const other = typed<{ JobId: number }>(state, 'send', 'SendSMS', {
      User: 'other',
      Password: 'other-pw',
      Caption: 'theirs',
      Sender: 'ACME',
      Recipient: ['+4917012345678'],
      SMSText: 'Hello',
      SmsTyp: 'Standard',
      SendDate: null,
    }).Value!;
    assert.deepEqual(jobIds(state).includes(other.JobId), true, "another account's job is not pushed out");
    assert.ok(state.jobs('demo').length <= 6);

    const roomy = makeState();
    const all = sendFinished(roomy, 50);
    assert.deepEqual(jobIds(roomy), all, 'the default limit is far above 50');
  });

  it('never forgets jobs that are pending, being sent or waiting for credit', () => {
    const state = makeState({ maxJobs: 5, balance: 1000 });
    const later = new Date(T0 + 86_400_000);
    const scheduled = [1, 2, 3].map(
      (i) => sendSms(state, { Caption: `later-${i}`, SMSText: `later ${i}`, SendDate: later }).JobId,
    );
    sendFinished(state, 40);
    const kept = jobIds(state);
    for (const id of scheduled) assert.ok(kept.includes(id), `scheduled job ${id} kept`);
    assert.ok(kept.length <= 6);

    state.setBalance('demo', 0);
    const queued = [1, 2, 3, 4, 5, 6, 7, 8].map(
      (i) => sendSms(state, { Caption: `queued-${i}`, SMSText: `queued ${i}` }).JobId,
    );
    const now = state.jobs();
    for (const id of queued) {
      assert.equal(now.find((j) => j.id === id)?.status, 'ZuWenigKontingent', `queued job ${id} kept`);
    }
    for (const id of scheduled) assert.ok(jobIds(state).includes(id));

    state.setBalance('demo', 1000);
    state.advance(86_400_000 + 700);
    const finished = state.jobs();
    for (const id of [...scheduled, ...queued]) {
      assert.equal(finished.find((j) => j.id === id)?.status, 'Erledigt', `job ${id} finished normally`);
    }
  });

  it('answers for a forgotten job as for an unknown one', () => {
    const state = makeState({ maxJobs: 5, duplicateWindowMs: 3_600_000 });
    const first = sendSms(state, { Caption: 'first-job', SMSText: 'first text' }).JobId;
    state.advance(700);
    const hlr = typed<{ JobId: number }>(state, 'send', 'SendHLR', {
      Caption: 'hlr-job',
      Recipient: '+4917012345678',
    }).Value!.JobId;
    state.advance(700);
    assert.equal(
      typed<Rec[]>(state, 'information', 'QueryHLRJobsByJobID', { JobID: hlr }).Value!.length,
      1,
      'the HLR result exists before',
    );
    sendFinished(state, 20);
    const kept = jobIds(state);
    assert.equal(kept.includes(first), false);
    assert.equal(kept.includes(hlr), false);

    const info = typed<Rec>(state, 'information', 'QueryJobInfoByJobCaption', {
      Caption: 'first-job',
      StartDate: null,
    }).Value!;
    assert.equal(info['Status'], 'JobNotFound');
    assert.equal('Job' in info, false);
    const jobs = typed<Rec[]>(state, 'information', 'QueryJobs', { StartDate: null, EndDate: null }).Value!;
    assert.equal(
      jobs.some((j) => j['Id'] === first),
      false,
    );
    const dlr = typed<Rec[]>(state, 'information', 'QueryReceivedDLRByJobID', { JobIdList: String(first) });
    assert.deepEqual(dlr.Value, []);
    assert.deepEqual(typed<Rec[]>(state, 'information', 'QueryHLRJobsByJobID', { JobID: hlr }).Value, []);
    assert.deepEqual(typed<Rec[]>(state, 'information', 'QueryNewHLRJobs', { Limit: 0 }).Value, []);

    const again = sendSms(state, { Caption: 'first-job', SMSText: 'first text' });
    assert.equal(again.Status, 'Ok', 'a forgotten job is no original of a duplicate');
    assert.notEqual(again.JobId, first);
    const dup = sendSms(state, { Caption: 'first-job', SMSText: 'first text' });
    assert.deepEqual(dup, { Status: 'DuplicateSMSJobFound', JobId: again.JobId }, 'kept jobs still are');
  });

  it('drops the reports of forgotten jobs from QueryReceivedDLR', () => {
    const state = makeState({ maxJobs: 10 });
    sendFinished(state, 60);
    const kept = jobIds(state);
    assert.deepEqual(dlrJobIds(state), kept, 'one report per kept job, none of the forgotten ones');
  });

  it('round-trips a trimmed state through the state file, and trims a larger file on load', () => {
    const dir = mkdtempSync(join(tmpdir(), 'smsgw-retention-'));
    try {
      const stateFile = join(dir, 'state.json');
      const a = makeState({ stateFile, maxJobs: 10 });
      sendFinished(a, 35);
      const pending = sendSms(a, { Caption: 'pending', SMSText: 'pending' }).JobId;
      const keptA = jobIds(a);
      const reportsA = dlrJobIds(a);
      a.close();

      const b = makeState({ stateFile, maxJobs: 10 });
      assert.deepEqual(jobIds(b), keptA);
      assert.deepEqual(dlrJobIds(b), reportsA);
      b.close();

      const c = makeState({ stateFile, maxJobs: 3 });
      const keptC = jobIds(c);
      assert.equal(keptC.length, 3, 'a file with more jobs is trimmed to the new limit');
      assert.ok(keptC.includes(pending), 'the pending job survives the trim');
      assert.deepEqual(dlrJobIds(c), keptC.slice(0, 2));
      c.advance(700);
      assert.equal(c.jobs().find((j) => j.id === pending)?.status, 'Erledigt');
      c.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes maxJobs as a whole number >= 1 or Infinity, also as --max-jobs', () => {
    for (const bad of [0, -1, 2.5, NaN]) assert.throws(() => makeState({ maxJobs: bad }), RangeError);
    const all = makeState({ maxJobs: Infinity });
    assert.equal(sendFinished(all, 30).length, jobIds(all).length);
    assert.equal(parseCliArgs(['--max-jobs', '500']).options.maxJobs, 500);
    assert.throws(() => parseCliArgs(['--max-jobs', '0']));
    assert.throws(() => parseCliArgs(['--max-jobs=abc']));
  });
});
