/**
 * The ask node's settings as a flow written by hand (or imported without them) gives them: the dialog's defaults
 * (issue 20 §2: 5 minutes per step, one round, any reply acknowledges, nobody told), and the refusals at deploy.
 */
import assert from 'node:assert/strict';
import { nodeSettings } from '../../../src/nodes/smsgw-ask';

const def = (fields: Record<string, unknown> = {}) =>
  ({ id: 'ask', type: 'smsgw-ask', z: 'tab', name: '', gateway: 'cfg', ...fields }) as Parameters<
    typeof nodeSettings
  >[0];

describe('smsgw-ask settings (issue 20 §2)', () => {
  it('a node without its fields: 5 minutes per step, one round, any reply acknowledges, nobody told', () => {
    const s = nodeSettings(def());
    assert.equal(s.waitMs, 5 * 60_000);
    assert.equal(s.rounds, 1);
    assert.deepEqual([s.ack, s.pass], [[], []]);
    assert.equal(s.tell, 'none');
    assert.equal(s.tellCancel, false);
    assert.equal(s.critical, false);
    assert.equal(s.smsType, 'Standard');
    assert.equal(s.intervalMs, 30_000);
    // Blank fields (as a dialog saves an emptied field) are the defaults too.
    assert.equal(nodeSettings(def({ wait: '', rounds: ' ', interval: '' })).waitMs, 5 * 60_000);
  });

  it('the wait in its unit, at least a second; lists of answers in lower case', () => {
    assert.equal(nodeSettings(def({ wait: 2, waitUnit: 's' })).waitMs, 2000);
    assert.equal(nodeSettings(def({ wait: 0.5, waitUnit: 'h' })).waitMs, 1_800_000);
    assert.equal(nodeSettings(def({ wait: 0.2, waitUnit: 's' })).waitMs, 1000);
    const s = nodeSettings(def({ ack: '1, OK; yes', pass: '2 next', tell: 'asked', rounds: '2' }));
    assert.deepEqual([s.ack, s.pass, s.tell, s.rounds], [['1', 'ok', 'yes'], ['2', 'next'], 'asked', 2]);
  });

  it('refuses at deploy: an answer both acknowledging and passing on, pass-on answers alone, a bad wait or rounds', () => {
    assert.throws(() => nodeSettings(def({ ack: '1, 2', pass: '2' })), /"2" is both/);
    assert.throws(() => nodeSettings(def({ pass: '2' })), /pass-on answers need acknowledging answers/);
    assert.throws(() => nodeSettings(def({ wait: 'soon' })), /the wait per step must be a positive number/);
    assert.throws(() => nodeSettings(def({ rounds: 1.5 })), /rounds must be a positive whole number/);
    assert.throws(() => nodeSettings(def({ rounds: 0 })), /rounds must be a positive whole number/);
  });
});
