import assert from 'node:assert/strict';
import { dateReader } from '../../src/soap/read-values';

describe('dateTime reader', () => {
  it('gives a new Date each time, also for a text it has just read', () => {
    const read = dateReader('utc');
    const a = read('2026-11-22T08:00:00');
    const b = read('2026-11-22T08:00:00');
    assert.ok(a && b);
    assert.notEqual(a, b);
    a.setUTCFullYear(1999);
    assert.equal(b.toISOString(), '2026-11-22T08:00:00.000Z');
    assert.equal(read('2026-11-22T08:00:00')?.toISOString(), '2026-11-22T08:00:00.000Z');
  });

  it('reads the next, different text afresh, and "no date" as null each time', () => {
    const read = dateReader('utc');
    assert.equal(read('2026-11-22T08:00:00+01:00')?.toISOString(), '2026-11-22T07:00:00.000Z');
    assert.equal(read('2026-11-22T08:00:00Z')?.toISOString(), '2026-11-22T08:00:00.000Z');
    assert.equal(read('0001-01-01T00:00:00'), null);
    assert.equal(read('0001-01-01T00:00:00'), null);
  });
});
