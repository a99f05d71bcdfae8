import { strict as assert } from 'node:assert';
import type { GatewayState } from '../../../src/emulator';
import { parseCliArgs } from '../../../src/emulator/cli';
import { makeState, sendSms, typed, type JobInfo, type Rec } from './helpers';

const find = (state: GatewayState, Caption: string): Rec =>
  typed<Rec>(state, 'information', 'QueryJobInfoByJobCaption', { Caption, StartDate: null }).Value!;

const replies = (state: GatewayState, Caption: string): unknown[] =>
  typed<Rec[]>(state, 'information', 'QueryReceivedSMSByJobCaption', { Caption, StartDate: null }).Value!.map(
    (m) => m['Text'],
  );

/** Two jobs with the same flow caption and their own references, one other job, a reply to each. */
function threeJobs(state: GatewayState): { a: JobInfo; b: JobInfo } {
  const a = sendSms(state, { Caption: 'order 4711 #k3x9q2mz7a' });
  state.advance(1000);
  const b = sendSms(state, { Caption: 'order 4711 #m2n4p6q8r9' });
  state.advance(1000);
  const c = sendSms(state, { Caption: 'other order 4711' });
  for (const [job, text] of [
    [a, 'to a'],
    [b, 'to b'],
    [c, 'to c'],
  ] as const)
    state.injectInbound({ from: '+4917012345678', text, jobId: job.JobId });
  return { a, b };
}

describe('emulator state: the Caption of the ...ByJobCaption queries (captionMatch exact | prefix)', () => {
  it('exact (the default): only the whole caption finds a job or its replies', () => {
    const state = makeState();
    assert.equal(state.getCaptionMatch(), 'exact');
    const { a } = threeJobs(state);
    assert.equal((find(state, 'order 4711 #k3x9q2mz7a')['Job'] as Rec)['Id'], a.JobId);
    assert.equal(find(state, 'order 4711')['Status'], 'JobNotFound', 'not a prefix match');
    assert.equal(find(state, 'order 4711 #k3x9q2mz7')['Status'], 'JobNotFound');
    assert.deepEqual(replies(state, 'order 4711'), []);
    assert.deepEqual(replies(state, 'order 4711 #k3x9q2mz7a'), ['to a']);
    assert.deepEqual(replies(state, ''), ['to a', 'to b', 'to c'], 'an empty filter: every reply');
  });

  it('prefix (option or control API): every caption that starts with the filter, the newest job first', () => {
    for (const state of [makeState({ captionMatch: 'prefix' }), makeState()]) {
      if (state.getCaptionMatch() === 'exact') state.setCaptionMatch('prefix');
      const { a, b } = threeJobs(state);
      assert.equal((find(state, 'order 4711')['Job'] as Rec)['Id'], b.JobId, 'the newest of the two');
      assert.equal((find(state, 'order 4711 #k3x9q2mz7a')['Job'] as Rec)['Id'], a.JobId, 'the full caption');
      assert.equal(find(state, '4711')['Status'], 'JobNotFound', 'not a substring match');
      assert.equal(find(state, 'order 4711 #k3x9q2mz7a-more')['Status'], 'JobNotFound');
      assert.deepEqual(replies(state, 'order 4711'), ['to a', 'to b']);
      assert.deepEqual(replies(state, 'order 4711 #m2n4p6q8r9'), ['to b']);
    }
  });

  it('takes the mode as --caption-match and refuses one it does not know', () => {
    assert.equal(parseCliArgs(['--caption-match', 'prefix']).options.captionMatch, 'prefix');
    assert.equal(parseCliArgs(['--caption-match=exact']).options.captionMatch, 'exact');
    assert.throws(() => parseCliArgs(['--caption-match', 'substring']));
    assert.throws(() => makeState({ captionMatch: 'substring' as 'exact' }), RangeError);
    assert.throws(() => makeState().setCaptionMatch('contains' as 'exact'), RangeError);
  });
});
