/**
 * The config node's quiet hours (src/nodes/config/quiet-host.ts): the window read per recipient in the zone the
 * number's country implies, the configured zone for a country of several zones or a national number, a message to
 * several zones held until all of them are open, and the settings as the Quiet hours fields give them.
 */
import assert from 'node:assert/strict';
import { QuietHours, quietOf } from '../../src/nodes/config/quiet-host';
import type { SmsgwConfigDef } from '../../src/nodes/config/types';

const H = 3_600_000;
/** 21:00-08:00, configured zone UTC, per recipient. */
const quiet = new QuietHours({ start: 21 * 60, end: 8 * 60, zone: 'UTC', byRecipient: true });
/** 2024-06-01 22:00 UTC: 00:00 in Berlin (summer time), 18:00 in New York. */
const T = Date.UTC(2024, 5, 1, 22);

describe('nodes: quiet hours of a configuration', () => {
  it('a German number: the window in Europe/Berlin (held until 08:00 there, 06:00 UTC)', () => {
    assert.equal(quiet.openFrom(T, ['+49 170 1234567']), Date.UTC(2024, 5, 2, 6));
    // 0049 is the same number.
    assert.equal(quiet.openFrom(T, ['00491701234567']), Date.UTC(2024, 5, 2, 6));
  });

  it('a US number (several zones) and a national number: the configured zone (UTC: until 08:00 UTC)', () => {
    assert.equal(quiet.openFrom(T, ['+1 212 555 0100']), Date.UTC(2024, 5, 2, 8));
    assert.equal(quiet.openFrom(T, ['0170 1234567']), Date.UTC(2024, 5, 2, 8));
  });

  it('several recipients: held until every window is over; open at once when all are open', () => {
    assert.equal(quiet.openFrom(T, ['+491701234567', '+12125550100']), Date.UTC(2024, 5, 2, 8));
    // 12:00 UTC: 14:00 Berlin, open everywhere.
    assert.equal(quiet.openFrom(Date.UTC(2024, 5, 1, 12), ['+491701234567', '+12125550100']), undefined);
  });

  it('zones whose windows leave no common open time: Infinity (the gate refuses with QUIET_HOURS)', () => {
    // 16:00-10:00 local: Berlin (UTC+2) is open 08:00-14:00 UTC, Tokyo (UTC+9) 01:00-07:00 UTC: never both.
    const long = new QuietHours({ start: 16 * 60, end: 10 * 60, zone: 'UTC', byRecipient: true });
    assert.equal(long.openFrom(T, ['+491701234567', '+81312345678']), Infinity);
  });

  it('per recipient off: the configured zone for everyone', () => {
    const plain = new QuietHours({ start: 21 * 60, end: 8 * 60, zone: 'UTC', byRecipient: false });
    assert.equal(plain.openFrom(T, ['+491701234567']), Date.UTC(2024, 5, 2, 8));
    assert.equal(plain.openFrom(T + 11 * H, ['+491701234567']), undefined);
  });

  it("the settings: off, an empty window, blank zone = the host's", () => {
    const def = (v: Record<string, unknown>): SmsgwConfigDef =>
      ({
        id: 'c',
        type: 'smsgw-config',
        name: '',
        z: '',
        baseUrl: 'http://x',
        ...v,
      }) as unknown as SmsgwConfigDef;
    assert.equal(quietOf(def({ quietHours: false })), undefined);
    assert.equal(quietOf(def({ quietHours: true, quietStart: '08:00', quietEnd: '08:00' })), undefined);
    const s = quietOf(def({ quietHours: true, quietStart: '21:30', quietEnd: '7:15', quietZone: '' }));
    assert.deepEqual(
      { start: s?.start, end: s?.end, byRecipient: s?.byRecipient },
      { start: 21 * 60 + 30, end: 7 * 60 + 15, byRecipient: true },
    );
    assert.equal(s?.zone, Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  });
});
