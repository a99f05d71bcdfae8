/**
 * Quiet hours: when a window of local time holds a message and when it ends, across midnight, clock changes and
 * several zones; the zone a number implies.
 */
import assert from 'node:assert/strict';
import {
  clockMinutes,
  isTimeZone,
  openFrom,
  quietUntil,
  wallTime,
  type QuietWindow,
} from '../../src/reliability/quiet-hours';
import { zoneOfNumber } from '../../src/reliability/recipient-zone';

const at = (iso: string): number => Date.parse(iso);
const iso = (t: number | undefined): string | undefined =>
  t === undefined ? undefined : Number.isFinite(t) ? new Date(t).toISOString() : String(t);
const window = (start: string, end: string, zone: string): QuietWindow => ({
  start: clockMinutes(start)!,
  end: clockMinutes(end)!,
  zone,
});

describe('quiet hours: windows of local time', () => {
  const night = window('21:00', '08:00', 'Europe/Berlin');

  it('reads HH:MM and IANA zones, and nothing else', () => {
    assert.equal(clockMinutes('21:00'), 1260);
    assert.equal(clockMinutes('8:05'), 485);
    assert.equal(clockMinutes(' 00:00 '), 0);
    for (const bad of ['24:00', '21:60', '2100', '21', '', 'nine', undefined, 2100])
      assert.equal(clockMinutes(bad), undefined, String(bad));
    assert.ok(isTimeZone('Europe/Berlin'));
    assert.ok(isTimeZone('UTC'));
    for (const bad of ['Europe/Atlantis', '', 'CET+1', 42]) assert.equal(isTimeZone(bad), false, String(bad));
  });

  it('a window over midnight holds from its start until its end, local time (summer: UTC+2)', () => {
    assert.equal(iso(quietUntil(at('2024-06-01T18:59:59Z'), night)), undefined, '20:59:59 is open');
    assert.equal(
      iso(quietUntil(at('2024-06-01T19:00:00Z'), night)),
      '2024-06-02T06:00:00.000Z',
      '21:00 held',
    );
    assert.equal(iso(quietUntil(at('2024-06-01T22:30:00Z'), night)), '2024-06-02T06:00:00.000Z');
    assert.equal(iso(quietUntil(at('2024-06-02T05:59:59Z'), night)), '2024-06-02T06:00:00.000Z');
    assert.equal(iso(quietUntil(at('2024-06-02T06:00:00Z'), night)), undefined, '08:00 is open');
  });

  it('a window within a day (12:00-14:00) holds only then', () => {
    const lunch = window('12:00', '14:00', 'UTC');
    assert.equal(iso(quietUntil(at('2024-06-01T11:59:00Z'), lunch)), undefined);
    assert.equal(iso(quietUntil(at('2024-06-01T12:00:00Z'), lunch)), '2024-06-01T14:00:00.000Z');
    assert.equal(iso(quietUntil(at('2024-06-01T14:00:00Z'), lunch)), undefined);
    assert.equal(iso(quietUntil(at('2024-06-01T12:00:00Z'), window('12:00', '12:00', 'UTC'))), undefined);
  });

  it('ends at the local time also when the clocks change in the night (Berlin, New York)', () => {
    // Spring forward: 02:00 becomes 03:00 on 31 March 2024; 08:00 that day is 06:00 UTC (UTC+2).
    assert.equal(iso(quietUntil(at('2024-03-30T22:00:00Z'), night)), '2024-03-31T06:00:00.000Z');
    // Fall back: 03:00 becomes 02:00 on 27 October 2024; 08:00 that day is 07:00 UTC (UTC+1).
    assert.equal(iso(quietUntil(at('2024-10-26T22:00:00Z'), night)), '2024-10-27T07:00:00.000Z');
    const ny = window('22:00', '07:00', 'America/New_York');
    // 10 March 2024: 07:00 EDT is 11:00 UTC; the night began in EST.
    assert.equal(iso(quietUntil(at('2024-03-10T04:00:00Z'), ny)), '2024-03-10T11:00:00.000Z');
  });

  it('an end the clock skips ends at the jump; one that comes twice ends at the first', () => {
    const early = window('01:00', '02:30', 'Europe/Berlin');
    // 02:30 does not exist on 31 March 2024: the window ends when 02:00 becomes 03:00 (01:00 UTC).
    assert.equal(iso(quietUntil(at('2024-03-31T00:10:00Z'), early)), '2024-03-31T01:00:00.000Z');
    // 02:30 comes twice on 27 October 2024: first at 00:30 UTC (still UTC+2).
    assert.equal(iso(quietUntil(at('2024-10-26T23:10:00Z'), early)), '2024-10-27T00:30:00.000Z');
  });

  it('several zones: from the first moment all of them are open; Infinity when they share none', () => {
    const la = window('21:00', '08:00', 'America/Los_Angeles');
    // 22:00 in Berlin, 13:00 in LA: Berlin holds until 08:00 (06:00 UTC), LA is in its night then until 15:00 UTC.
    assert.equal(iso(openFrom(at('2024-06-01T20:00:00Z'), [night, la])), '2024-06-02T15:00:00.000Z');
    // 18:00 in Berlin, 09:00 in LA: both open.
    assert.equal(openFrom(at('2024-06-01T16:00:00Z'), [night, la]), undefined);
    // 14:00 in Berlin, 05:00 in LA: LA holds until its 08:00.
    assert.equal(iso(openFrom(at('2024-06-01T12:00:00Z'), [night, la])), '2024-06-01T15:00:00.000Z');
    const long = window('18:00', '10:00', 'Europe/Berlin');
    assert.equal(
      openFrom(at('2024-06-01T20:00:00Z'), [long, { ...long, zone: 'America/Los_Angeles' }]),
      Infinity,
    );
  });

  it('wall time follows the zone (the offset read through Intl)', () => {
    assert.equal(
      wallTime(at('2024-01-15T12:00:00Z'), 'Europe/Berlin') - at('2024-01-15T12:00:00Z'),
      3_600_000,
    );
    assert.equal(
      wallTime(at('2024-07-15T12:00:00Z'), 'Europe/Berlin') - at('2024-07-15T12:00:00Z'),
      7_200_000,
    );
    assert.equal(
      wallTime(at('2024-07-15T12:00:00Z'), 'Asia/Kathmandu') - at('2024-07-15T12:00:00Z'),
      20_700_000,
    );
  });
});

describe('quiet hours: the zone a number implies', () => {
  it('a country with one zone gives it; zones with the same offsets all year count as one', () => {
    assert.equal(zoneOfNumber('491701234567'), 'Europe/Berlin');
    assert.equal(zoneOfNumber('4369912345678'), 'Europe/Vienna');
    assert.equal(zoneOfNumber('41791234567'), 'Europe/Zurich');
    // The UK shares +44 with Guernsey, Jersey and the Isle of Man: the same time all year.
    assert.equal(zoneOfNumber('447700900123'), 'Europe/London');
  });

  it('a country whose zones differ, a national number or a name gives none (the configured zone applies)', () => {
    for (const n of [
      '12125551234',
      '61412345678',
      '34612345678',
      '351912345678',
      '01701234567',
      'text:alarm',
    ])
      assert.equal(zoneOfNumber(n), undefined, n);
  });
});
