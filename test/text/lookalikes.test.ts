import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  analyzeText,
  GSM7_LOOKALIKES,
  isGsm7,
  lookalikeSwaps,
  replaceLookalikes,
  ucs2Chars,
} from '../../src/text';

const table = Object.keys(GSM7_LOOKALIKES);
/** Texts mixing GSM-7, the table's characters and letters outside GSM-7 (which must stay). */
const mixed = fc
  .tuple(
    fc.array(fc.constantFrom(...table, 'a', 'Z', ' ', '€', '{', 'ł', 'č', 'ó', '😀', '.', '"'), {
      maxLength: 400,
    }),
    // Many ellipses too: the one entry that is longer once replaced.
    fc.array(fc.constantFrom('…', 'ł', 'a', '’'), { maxLength: 300 }),
  )
  .map(([a, b]) => a.join('') + b.join(''));

describe('text: GSM-7 look-alikes', () => {
  it('every replacement is GSM-7 and no table entry is GSM-7 already', () => {
    for (const [from, to] of Object.entries(GSM7_LOOKALIKES)) {
      assert.equal(isGsm7(to), true, `${from} -> ${to}`);
      assert.equal(isGsm7(from), false, from);
    }
  });

  it('replaces typographic quotes, dashes, the ellipsis and odd spaces, and counts them', () => {
    assert.deepEqual(replaceLookalikes('„Hallo“ – it’s… here\u00a0now'), {
      text: `"Hallo" - it's... here now`,
      replaced: 6,
    });
    assert.deepEqual(replaceLookalikes('plain'), { text: 'plain', replaced: 0 });
  });

  it('leaves letters alone (no transliteration): ł, č stay', () => {
    assert.deepEqual(replaceLookalikes('Łódź — Brno č'), { text: 'Łódź - Brno č', replaced: 1 });
  });

  it('is idempotent, never turns GSM-7 into UCS-2 and never adds segments', () => {
    fc.assert(
      fc.property(mixed, (text) => {
        const once = replaceLookalikes(text);
        assert.deepEqual(replaceLookalikes(once.text), { text: once.text, replaced: 0 });
        if (isGsm7(text)) assert.equal(isGsm7(once.text), true);
        assert.ok(analyzeText(once.text).segments <= analyzeText(text).segments);
      }),
    );
  });

  it('keeps the ellipsis where its three dots would add a segment', () => {
    // Stays UCS-2 (ł): 70 characters are one segment, 72 with the dots would be two.
    const stays = 'ł' + '…' + 'a'.repeat(68);
    assert.deepEqual(replaceLookalikes(stays), { text: stays, replaced: 0 });
    // 70 ellipses: one UCS-2 segment, 210 dots would be two GSM-7 segments.
    assert.deepEqual(replaceLookalikes('…'.repeat(69) + '’'), { text: '…'.repeat(69) + "'", replaced: 1 });
    assert.deepEqual(replaceLookalikes('ok…'), { text: 'ok...', replaced: 1 });
  });

  it('names the characters that force UCS-2 with their positions in code points, at most the bound', () => {
    assert.deepEqual(ucs2Chars('a😀b’€'), [
      { char: '😀', at: 1 },
      { char: '’', at: 3 },
    ]);
    assert.deepEqual(ucs2Chars('plain € {}'), []);
    assert.equal(ucs2Chars('ł'.repeat(100)).length, 20);
  });

  it('lists what it replaces, by what and where, exactly as replaceLookalikes does', () => {
    assert.deepEqual(lookalikeSwaps('„Hi“ – ok…'), [
      { char: '„', with: '"', at: 0 },
      { char: '“', with: '"', at: 3 },
      { char: '–', with: '-', at: 5 },
      { char: '…', with: '...', at: 9 },
    ]);
    // The ellipsis kept where its dots would add a segment: not listed.
    assert.deepEqual(lookalikeSwaps('ł' + '…' + 'a'.repeat(68)), []);
    assert.equal(lookalikeSwaps('’'.repeat(100)).length, 20);
    fc.assert(
      fc.property(mixed, (text) => {
        const swaps = lookalikeSwaps(text, Infinity);
        assert.equal(swaps.length, replaceLookalikes(text).replaced);
        const chars = Array.from(text);
        for (const s of swaps) chars[s.at] = s.with;
        assert.equal(chars.join(''), replaceLookalikes(text).text);
      }),
    );
  });
});
