import { strict as assert } from 'node:assert';
import { makeState, typed, type JobInfo, type Rec } from './helpers';

describe('emulator state: HLR lookups', () => {
  it('produces dbHLRJob results after processing; QueryNewHLRJobs hands them out once', () => {
    const state = makeState();
    state.setSubscriberState('+4917000000001', 'unknown');
    const job = typed<JobInfo>(state, 'send', 'SendHLR', {
      Caption: 'hlr',
      Recipient: '+4917012345678,+4917000000001',
    }).Value!;
    assert.deepEqual(
      typed<Rec[]>(state, 'information', 'QueryNewHLRJobs', { Limit: 0 }).Value,
      [],
      'not processed yet',
    );
    state.advance(700);
    const first = typed<Rec[]>(state, 'information', 'QueryNewHLRJobs', { Limit: 1 }).Value!;
    assert.equal(first.length, 1);
    assert.equal(first[0]!['JobId'], job.JobId);
    assert.equal(first[0]!['Number'], '+4917012345678');
    assert.equal(first[0]!['Status'], 0);
    assert.equal(first[0]!['NecNetworkType'], 'GSM');
    assert.equal(first[0]!['NormNetCode'], '26201');
    const rest = typed<Rec[]>(state, 'information', 'QueryNewHLRJobs', { Limit: 0 }).Value!;
    assert.deepEqual(
      rest.map((h) => [h['Number'], h['Status'], h['GsmError'], h['NecValue']]),
      [['+4917000000001', 1, '1', 'UNKNOWN_SUBSCRIBER']],
    );
    assert.deepEqual(
      typed<Rec[]>(state, 'information', 'QueryNewHLRJobs', { Limit: 0 }).Value,
      [],
      'collected',
    );
    const byJob = typed<Rec[]>(state, 'information', 'QueryHLRJobsByJobID', { JobID: job.JobId }).Value!;
    assert.equal(byJob.length, 2, 'by job id even after collection');
    assert.ok(byJob.every((h) => h['ReciveDate'] instanceof Date && h['CreateDate'] instanceof Date));
  });

  it('charges the HLR price per number when the lookup runs', () => {
    const state = makeState({ prices: { HLR: 0.1 } });
    typed(state, 'send', 'SendHLR', { Caption: 'hlr', Recipient: '+4917012345678;+4917012345679' });
    state.finishJobs();
    assert.equal(typed<number>(state, 'information', 'QueryAccountBalance', {}).Value, 99.8);
  });
});
