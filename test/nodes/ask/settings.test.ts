/**
 * The ask node's settings as a flow written by hand (or imported without them) gives them: the dialog's defaults
 * (5 minutes per step, one round, any reply acknowledges, nobody told), and the refusals at deploy.
 */
import assert from 'node:assert/strict';
import { nodeSettings } from '../../../src/nodes/smsgw-ask';

const def = (fields: Record<string, unknown> = {}) =>
  ({
    id: 'ask',
    type: 'smsgw-ask',
    z: 'tab',
    name: '',
    gateway: 'cfg',
    numbers: '+4917012345678',
    ...fields,
  }) as Parameters<typeof nodeSettings>[0];

describe('smsgw-ask settings', () => {
  it('a node without its fields: 5 minutes per step, one round, any reply acknowledges, nobody told', () => {
    const s = nodeSettings(def());
    assert.equal(s.waitMs, 5 * 60_000);
    assert.equal(s.rounds, 1);
    assert.deepEqual([s.ack, s.pass], [[], []]);
    assert.equal(s.tell, 'none');
    assert.equal(s.tellCancel, false);
    // Answers to a person: on, at most 5 per number per 10 minutes.
    assert.deepEqual([s.tellLate, s.replyLimit, s.replyWindowMs], [true, 5, 600_000]);
    assert.equal(s.critical, false);
    assert.equal(s.smsType, 'Standard');
    assert.equal(s.intervalMs, 30_000);
    // Blank fields (as a dialog saves an emptied field) are the defaults too.
    assert.equal(nodeSettings(def({ wait: '', rounds: ' ', interval: '' })).waitMs, 5 * 60_000);
    const t = nodeSettings(def({ tellLate: false, replyLimit: '0', replyWindow: '30' }));
    assert.deepEqual([t.tellLate, t.replyLimit, t.replyWindowMs], [false, 0, 1_800_000]);
  });

  it('the wait in its unit, at least a second; lists of answers in lower case', () => {
    assert.equal(nodeSettings(def({ wait: 2, waitUnit: 's' })).waitMs, 2000);
    assert.equal(nodeSettings(def({ wait: 0.5, waitUnit: 'h' })).waitMs, 1_800_000);
    assert.equal(nodeSettings(def({ wait: 0.2, waitUnit: 's' })).waitMs, 1000);
    const s = nodeSettings(def({ ack: '1, OK; yes', pass: '2 next', tell: 'asked', rounds: '2' }));
    assert.deepEqual([s.ack, s.pass, s.tell, s.rounds], [['1', 'ok', 'yes'], ['2', 'next'], 'asked', 2]);
  });

  it('refuses at deploy, every refused field in one error: overlapping or lone pass-on answers, a bad wait or rounds', () => {
    const pass = 'Pass on: words of letters and digits other than those of Acknowledge, or blank (none)';
    const ack =
      'Acknowledge: words of letters and digits, separated by commas or spaces; blank (any reply acknowledges) only while Pass on is blank, or blank (any reply acknowledges)';
    assert.throws(
      () => nodeSettings(def({ ack: '1, 2', pass: '2' })),
      (e: Error) => e.message.includes(pass),
    );
    // Pass-on words beside a blank Acknowledge (any reply acknowledges): refused on Acknowledge
    assert.throws(
      () => nodeSettings(def({ ack: '', pass: '2' })),
      (e: Error) => e.message.includes(ack) && !e.message.includes('Pass on:'),
    );
    // The reply grammar reads words of letters and digits only: "ok!" or "2-x" could never be replied.
    assert.throws(
      () => nodeSettings(def({ ack: '1, ok!', pass: '2-x' })),
      (e: Error) => e.message.includes(ack) && e.message.includes(pass),
    );
    assert.throws(
      () => nodeSettings(def({ wait: 'soon' })),
      (e: Error) =>
        e.message.includes('Wait per step: a number above 0, at most 35791 (minutes), or blank (default 5)'),
    );
    assert.throws(
      () => nodeSettings(def({ rounds: 1.5, interval: 0, numbers: '' })),
      (e: Error) =>
        e.message ===
        'Settings refused, the node does nothing until they are fixed: ' +
          'On-call list: required (one or more phone numbers); ' +
          'Rounds: a whole number from 1 to 100, or blank (default 1); ' +
          'Check replies every: a number from 1 to 2147483 (seconds), or blank (default 30)',
    );
  });

  it('no wait reaches a timer beyond what it holds: the largest wait depends on its unit', () => {
    assert.equal(nodeSettings(def({ wait: 596, waitUnit: 'h' })).waitMs, 596 * 3_600_000);
    assert.throws(() => nodeSettings(def({ wait: 597, waitUnit: 'h' })), /at most 596 \(hours\), or blank/);
    assert.equal(nodeSettings(def({ wait: 2_147_483, waitUnit: 's' })).waitMs, 2_147_483_000);
    assert.throws(
      () => nodeSettings(def({ wait: 1e12, waitUnit: 's' })),
      /at most 2147483 \(seconds\), or blank/,
    );
  });
});
