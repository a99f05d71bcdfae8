import assert from 'node:assert/strict';
import { GatewayError } from '../../src/errors';
import {
  captionHasReference,
  captionWithReference,
  classifyFailure,
  createReference,
  newSafeSendStats,
  safeSend,
  type Attempted,
} from '../../src/reliability';
import { resolveReferenceOptions } from '../../src/reliability/reference';
import { resolveSafeRetryOptions } from '../../src/reliability/safe-send';

const fast = resolveSafeRetryOptions({ backoffMs: 1, settleMs: 1, maxAttempts: 3, lookupAttempts: 2 });
const ambiguous = (): GatewayError =>
  new GatewayError('NETWORK', 'connection lost before a response arrived', {
    operation: 'SendSMS',
    ambiguous: true,
  });
const refused = (): GatewayError => new GatewayError('NETWORK', 'ECONNREFUSED', { ambiguous: false });

/** A scripted plan: each attempt/lookup takes the next scripted outcome. */
function plan(
  attempts: Array<Attempted<string> | GatewayError>,
  lookups: Array<string | undefined | GatewayError>,
) {
  const log: string[] = [];
  const stats = newSafeSendStats();
  return {
    log,
    stats,
    plan: {
      reference: 'abcd2345xy',
      stats,
      attempt: async (): Promise<Attempted<string>> => {
        const next = attempts.shift();
        log.push('send');
        if (next instanceof GatewayError) throw next;
        if (!next) throw new Error('unexpected attempt');
        return next;
      },
      lookup: async (): Promise<string | undefined> => {
        log.push('lookup');
        const next = lookups.shift();
        if (next instanceof GatewayError) throw next;
        return next;
      },
    },
  };
}

describe('reliability: safe send rules', () => {
  it('classifies failures: ambiguous, retry (surely not sent), final', () => {
    assert.equal(classifyFailure(ambiguous()), 'ambiguous');
    assert.equal(classifyFailure(refused()), 'retry');
    assert.equal(classifyFailure(new GatewayError('HTTP', '503', { httpStatus: 503 })), 'retry');
    assert.equal(
      classifyFailure(new GatewayError('TIMEOUT', 'no connection in time', { ambiguous: false })),
      'retry',
    );
    assert.equal(classifyFailure(new GatewayError('PARSE', 'cut', { ambiguous: true })), 'ambiguous');
    assert.equal(classifyFailure(new GatewayError('HTTP', '404', { httpStatus: 404 })), 'final');
    assert.equal(classifyFailure(new GatewayError('REJECTED', 'NoRecipientFound')), 'final');
    assert.equal(classifyFailure(new GatewayError('AUTH', 'InvalidUser')), 'final');
    assert.equal(classifyFailure(new GatewayError('FAULT', 'Server was unable')), 'final');
    assert.equal(classifyFailure(new Error('bug')), 'final');
  });

  it('refused, refused, sent: retried directly without a lookup', async () => {
    const t = plan([refused(), refused(), { kind: 'ok', value: 'job' }], []);
    const r = await safeSend(t.plan, fast);
    assert.deepEqual(r, { value: 'job', recovered: false, attempts: 3 });
    assert.deepEqual(t.log, ['send', 'send', 'send']);
  });

  it('ambiguous, then found: resolves with the job, one attempt', async () => {
    const t = plan([ambiguous()], ['job-1']);
    assert.deepEqual(await safeSend(t.plan, fast), { value: 'job-1', recovered: true, attempts: 1 });
    assert.deepEqual(t.log, ['send', 'lookup']);
  });

  it('ambiguous, not found, retried; a lookup that fails once is repeated', async () => {
    const t = plan(
      [ambiguous(), { kind: 'ok', value: 'job' }],
      [new GatewayError('TIMEOUT', 't', { ambiguous: true }), undefined],
    );
    assert.equal((await safeSend(t.plan, fast)).value, 'job');
    assert.deepEqual(t.log, ['send', 'lookup', 'lookup', 'send']);
    assert.equal(t.stats.lookupFailures, 1);
  });

  it('a lookup that cannot be done: ambiguous error with the reference, never a second attempt', async () => {
    const t = plan([ambiguous()], [refused(), refused()]);
    await assert.rejects(safeSend(t.plan, fast), (e: GatewayError) => {
      assert.equal(e.ambiguous, true);
      assert.equal(e.code, 'NETWORK');
      assert.match(
        e.message,
        /^SendSMS: connection lost.*lookup of the reference failed.*reference abcd2345xy/,
      );
      return true;
    });
    assert.deepEqual(t.log, ['send', 'lookup', 'lookup']);
  });

  it('a refused login on the lookup is not repeated', async () => {
    const t = plan([ambiguous()], [new GatewayError('AUTH', 'login refused: InvalidUser')]);
    await assert.rejects(safeSend(t.plan, fast), (e: GatewayError) => e.ambiguous);
    assert.deepEqual(t.log, ['send', 'lookup']);
  });

  it('every attempt ambiguous and never found: looks up once more, then fails as ambiguous', async () => {
    const t = plan([ambiguous(), ambiguous(), ambiguous()], [undefined, undefined, undefined, undefined]);
    await assert.rejects(
      safeSend(t.plan, fast),
      (e: GatewayError) => e.ambiguous && /after 3 attempts/.test(e.message),
    );
    assert.deepEqual(t.log, ['send', 'lookup', 'send', 'lookup', 'send', 'lookup']);
  });

  it('unambiguous refusals are thrown at once', async () => {
    const t = plan([new GatewayError('REJECTED', 'refused: MsgTextBlacklistFound')], []);
    await assert.rejects(safeSend(t.plan, fast), (e: GatewayError) => e.code === 'REJECTED' && !e.ambiguous);
    assert.deepEqual(t.log, ['send']);
  });

  it('DuplicateSMSJobFound: the caller’s own duplicate on a first attempt is refused; after a retry it is ours', async () => {
    const dup = (value?: string): Attempted<string> => ({
      kind: 'duplicate',
      value,
      error: new GatewayError('REJECTED', 'refused: DuplicateSMSJobFound'),
    });
    await assert.rejects(
      safeSend(plan([dup('x')], []).plan, fast),
      (e: GatewayError) => e.code === 'REJECTED',
    );
    const named = plan([ambiguous(), dup('job-9')], [undefined]);
    assert.deepEqual(await safeSend(named.plan, fast), { value: 'job-9', recovered: true, attempts: 2 });
    const unnamed = plan([ambiguous(), dup()], [undefined, 'job-7']);
    assert.equal((await safeSend(unnamed.plan, fast)).value, 'job-7');
    assert.equal(unnamed.stats.duplicatesResolved, 1);
  });

  it('lookupFirst (an outbox entry that may be out): looks up before any attempt', async () => {
    const t = plan([], ['job-3']);
    assert.equal((await safeSend({ ...t.plan, lookupFirst: true }, fast)).value, 'job-3');
    assert.deepEqual(t.log, ['lookup']);
  });

  it('without a lookup an ambiguous failure is final', async () => {
    const t = plan([ambiguous()], []);
    await assert.rejects(safeSend({ ...t.plan, lookup: undefined }, fast), (e: GatewayError) =>
      /no reference to look it up/.test(e.message),
    );
    assert.deepEqual(t.log, ['send']);
  });

  it('references: letters and digits, unique, added as suffix or prefix, found in a cleaned caption', () => {
    const refs = new Set(Array.from({ length: 10_000 }, () => createReference()));
    assert.equal(refs.size, 10_000);
    for (const r of refs) assert.match(r, /^[a-z2-9]{10}$/);
    assert.equal(captionWithReference('order 1', 'k3x9'), 'order 1 #k3x9');
    assert.equal(captionWithReference('', 'k3x9'), 'k3x9');
    const prefix = resolveReferenceOptions({ position: 'prefix', separator: ':' });
    assert.equal(captionWithReference('order 1', 'k3x9', prefix), 'k3x9:order 1');
    assert.ok(captionHasReference('ORDER 1 #K3X9 ', 'k3x9'));
    assert.ok(!captionHasReference('order 1 #k3x8', 'k3x9'));
    assert.throws(() => resolveReferenceOptions({ separator: ';' }), /separator/);
    assert.throws(() => resolveReferenceOptions({ length: 2 }), /length/);
  });
});
