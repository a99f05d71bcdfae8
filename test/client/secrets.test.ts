/**
 * The masking of passwords in texts that leave the client (src/client/secrets.ts): any spelling, whole values
 * only, and a bounded amount of work on a hostile text.
 */
import assert from 'node:assert/strict';
import { makeCleaner, MAX_CLEAN_CHARS, SECRET_MASK } from '../../src/client/secrets';

describe('client: password masking', () => {
  it('masks whole values only: a short password stays inside words, and is masked where it stands alone', () => {
    const clean = makeCleaner('p');
    assert.equal(
      clean('response soapaction pp p <Password>p</Password> ?Password=p&x=1 "p".'),
      `response soapaction pp ${SECRET_MASK} <Password>${SECRET_MASK}</Password> ?Password=${SECRET_MASK}&x=1 "${SECRET_MASK}".`,
    );
    // letters and digits of any script join a word
    assert.equal(makeCleaner('abc')('xabc abcé 1abc abc_ abc'), `xabc abcé 1abc abc_ ${SECRET_MASK}`);
    // a password that begins or ends with punctuation is a whole value wherever it stands
    assert.equal(makeCleaner('!x')('a!x b'), `a${SECRET_MASK} b`);
  });

  it('finds every spelling, also mixed and encoded twice, and masks the characters it came from', () => {
    const clean = makeCleaner('a&b c+ü');
    for (const spelling of [
      'a&b c+ü',
      'a&amp;b c+&#xFC;',
      'a%26b+c%2B%C3%BC', // form
      'a%26b%20c%2b%c3%bc',
      'a&amp;amp;b c+&amp;#252;', // XML-escaped twice
      'a%2526b%2520c%252B%25C3%25BC', // percent-encoded twice
      '&#97;&#x26;&#98;&#32;&#99;&#43;&#252;', // every character a reference
    ]) {
      assert.equal(clean(`[${spelling}]`), `[${SECRET_MASK}]`, spelling);
    }
    // a longer password holding a shorter one is masked whole, the shorter one where it stands alone
    assert.equal(makeCleaner('pass', 'pass word')('pass word, pass'), `${SECRET_MASK}, ${SECRET_MASK}`);
  });

  it('a text longer than MAX_CLEAN_CHARS is cut there (…), a password across the cut masked whole', () => {
    const clean = makeCleaner('S3cr3t-Value');
    const head = `S3cr3t-Value ${'x'.repeat(MAX_CLEAN_CHARS - 20)} `;
    const text = head + 'S3cr%33t-Value' + ' tail'.repeat(100_000);
    const out = clean(text);
    assert.ok(out.startsWith(`${SECRET_MASK} x`));
    assert.ok(out.endsWith(`${SECRET_MASK}…`), out.slice(-40));
    assert.ok(!/S3cr|%33t|Value/.test(out));
    assert.ok(out.length < MAX_CLEAN_CHARS + 20);
    // without any secret as well
    assert.equal(makeCleaner()('y'.repeat(MAX_CLEAN_CHARS + 5)), `${'y'.repeat(MAX_CLEAN_CHARS)}…`);
    assert.equal(clean('short'), 'short');
  });
});
