import assert from 'node:assert/strict';
import fc from 'fast-check';
import { analyzeText, GSM7_BASIC_TABLE, GSM7_EXTENSION_TABLE, isGsm7 } from '../../src/text';

const basicChars = GSM7_BASIC_TABLE.filter((c) => c !== '\u001b');
const extChars = Object.keys(GSM7_EXTENSION_TABLE);
const gsmChar = fc.constantFrom(...basicChars, ...extChars);
const basicChar = fc.constantFrom(...basicChars);

describe('analyzeText', () => {
  it('has 127 characters in the basic table and 10 in the extension table', () => {
    assert.equal(new Set(basicChars).size, 127);
    assert.equal(extChars.length, 10);
    assert.ok(isGsm7('Hello @£$¥ {€}'));
    assert.ok(!isGsm7('Grüße ç'), 'ç (lower case) is not in GSM 03.38');
  });

  it('counts GSM-7 single and multi-part boundaries', () => {
    assert.deepEqual(analyzeText(''), {
      encoding: 'GSM-7',
      units: 0,
      segments: 0,
      charactersLeft: 160,
      perSegment: 160,
    });
    assert.deepEqual(analyzeText('a'.repeat(160)), {
      encoding: 'GSM-7',
      units: 160,
      segments: 1,
      charactersLeft: 0,
      perSegment: 160,
    });
    assert.deepEqual(analyzeText('a'.repeat(161)), {
      encoding: 'GSM-7',
      units: 161,
      segments: 2,
      charactersLeft: 145,
      perSegment: 153,
    });
    assert.equal(analyzeText('a'.repeat(306)).segments, 2);
    assert.equal(analyzeText('a'.repeat(307)).segments, 3);
  });

  it('counts extension characters as two septets', () => {
    const r = analyzeText('€'.repeat(80));
    assert.equal(r.encoding, 'GSM-7');
    assert.equal(r.units, 160);
    assert.equal(r.segments, 1);
    assert.equal(analyzeText('€'.repeat(81)).segments, 2);
  });

  it('never splits an escape sequence across segments', () => {
    // 152 basic septets then '€': 154 septets in the first part would split the escape, so it moves on.
    const r = analyzeText('a'.repeat(152) + '€' + 'a'.repeat(10));
    assert.equal(r.units, 164);
    assert.equal(r.segments, 2);
    assert.equal(r.charactersLeft, 153 - 12);
  });

  it('switches to UCS-2 for any character outside GSM 03.38', () => {
    assert.deepEqual(analyzeText('Привет'), {
      encoding: 'UCS-2',
      units: 6,
      segments: 1,
      charactersLeft: 64,
      perSegment: 70,
    });
    assert.equal(analyzeText('x'.repeat(70) + 'ж').segments, 2);
    assert.equal(analyzeText('ж'.repeat(70)).segments, 1);
    assert.equal(analyzeText('ж'.repeat(134)).segments, 2);
    assert.equal(analyzeText('ж'.repeat(135)).segments, 3);
  });

  it('counts surrogate pairs as two UCS-2 units and keeps them whole', () => {
    assert.equal(analyzeText('😀').units, 2);
    assert.equal(analyzeText('😀'.repeat(35)).segments, 1);
    assert.equal(analyzeText('😀'.repeat(36)).segments, 2);
    const r = analyzeText('a' + '😀'.repeat(34)); // 69 units: fits one part
    assert.equal(r.charactersLeft, 1);
    // 66 units then a pair: 68 > 67 in the first part, so the pair opens the second part
    const s = analyzeText('a'.repeat(66) + '😀' + 'a'.repeat(3));
    assert.equal(s.segments, 2);
    assert.equal(s.charactersLeft, 67 - 5);
  });

  describe('properties', () => {
    it('GSM-only texts are GSM-7 and cost one or two septets per character', () => {
      fc.assert(
        fc.property(fc.array(gsmChar, { maxLength: 600 }), (chars) => {
          const text = chars.join('');
          const r = analyzeText(text);
          const expected = chars.reduce((n, c) => n + (extChars.includes(c) ? 2 : 1), 0);
          assert.equal(r.encoding, 'GSM-7');
          assert.equal(r.units, expected);
        }),
      );
    });

    it('basic-table texts need ceil(n/153) parts above 160', () => {
      fc.assert(
        fc.property(fc.array(basicChar, { minLength: 1, maxLength: 1200 }), (chars) => {
          const r = analyzeText(chars.join(''));
          const n = chars.length;
          assert.equal(r.segments, n <= 160 ? 1 : Math.ceil(n / 153));
          assert.equal(r.charactersLeft, n <= 160 ? 160 - n : 153 * r.segments - n);
        }),
      );
    });

    it('any non-GSM character makes the text UCS-2 counted in UTF-16 units', () => {
      fc.assert(
        fc.property(
          fc.string({ unit: 'grapheme', maxLength: 300 }),
          fc.constantFrom('ж', '😀', 'ç', '中'),
          (s, odd) => {
            const text = s + odd;
            const r = analyzeText(text);
            assert.equal(r.encoding, 'UCS-2');
            assert.equal(r.units, text.length);
          },
        ),
      );
    });

    it('is consistent: parts suffice, the last part is not empty, appending never shrinks', () => {
      fc.assert(
        fc.property(
          fc.string({ unit: fc.oneof(gsmChar, fc.constantFrom('ж', '😀')), maxLength: 700 }),
          gsmChar,
          (text, more) => {
            const r = analyzeText(text);
            assert.ok(r.segments * r.perSegment >= r.units);
            assert.ok(r.charactersLeft >= 0 && r.charactersLeft < r.perSegment + (r.units === 0 ? 1 : 0));
            if (r.segments > 1) assert.ok(r.units > (r.encoding === 'GSM-7' ? 160 : 70));
            const next = analyzeText(text + more);
            assert.ok(next.segments >= r.segments);
          },
        ),
      );
    });
  });
});
