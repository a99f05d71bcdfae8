import { strict as assert } from 'node:assert';
import { countSegments } from '../../../src/emulator/state';

describe('emulator state: SMS segments', () => {
  it('fits 160 GSM-7 characters in one SMS and splits 161 into two parts of 153', () => {
    assert.deepEqual(countSegments('a'.repeat(160)), {
      encoding: 'gsm7',
      units: 160,
      fitsSingle: true,
      segments: 1,
    });
    const long = countSegments('a'.repeat(161));
    assert.equal(long.fitsSingle, false);
    assert.equal(long.segments, 2);
    assert.equal(countSegments('a'.repeat(306)).segments, 2);
    assert.equal(countSegments('a'.repeat(307)).segments, 3);
  });

  it('counts extension-table characters as two septets', () => {
    assert.equal(countSegments('€').units, 2);
    assert.equal(countSegments('[x]').units, 5);
    assert.equal(countSegments('€'.repeat(80)).fitsSingle, true);
    assert.equal(countSegments('€'.repeat(80) + 'a').segments, 2);
  });

  it('keeps German umlauts of the basic table in GSM-7', () => {
    assert.equal(countSegments('Grüße aus Köln, Ä Ö Ü ß').encoding, 'gsm7');
  });

  it('switches to UCS-2 for characters outside GSM 03.38: 70 single, 67 per part', () => {
    const one = countSegments('ç'.repeat(70)); // ç (small) is not in GSM-7, only Ç is
    assert.equal(one.encoding, 'ucs2');
    assert.equal(one.segments, 1);
    assert.equal(countSegments('ç'.repeat(71)).segments, 2);
    assert.equal(countSegments('ç'.repeat(135)).segments, 3);
    assert.equal(countSegments('😀').units, 2, 'a surrogate pair takes two UCS-2 units');
  });
});
