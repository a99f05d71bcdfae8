/**
 * The reply grammar (src/nodes/ask/grammar.ts): every form the help names, what is not an answer, and properties
 * over generated replies (a reply is read the same whatever follows its first two words; the code a reply names is
 * always one of the sender's; nothing throws).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseReply, type Words } from '../../../src/nodes/ask/grammar';

const DEFAULTS: Words = { ack: ['1', 'ok', 'ja'], pass: ['2', 'busy', 'besetzt'] };
const OLD: Words = { ack: ['1'], pass: ['2'] };
const ANY: Words = { ack: [], pass: [] };
const codes =
  (...open: string[]) =>
  (c: string): boolean =>
    open.includes(c);

describe('ask reply grammar', () => {
  it('reads the answer words of each list, English and German, in any case', () => {
    for (const [text, action, answer] of [
      ['1', 'ack', '1'],
      ['OK', 'ack', 'ok'],
      ['Ja', 'ack', 'ja'],
      ['2', 'pass', '2'],
      ['busy', 'pass', 'busy'],
      ['Besetzt', 'pass', 'besetzt'],
      ['  ok, on my way', 'ack', 'ok'],
      ['１', 'ack', '1'], // a full-width digit from a phone keyboard
    ] as const)
      assert.deepEqual(parseReply(text, DEFAULTS, codes('a')), { action, answer }, text);
  });

  it('the code right after the word or as the second word names the question; before the word it is no answer', () => {
    const open = codes('a', 'b', 'aa');
    assert.deepEqual(parseReply('1a', DEFAULTS, open), { action: 'ack', answer: '1', code: 'a' });
    assert.deepEqual(parseReply('1 b', DEFAULTS, open), { action: 'ack', answer: '1', code: 'b' });
    assert.deepEqual(parseReply('ok b thanks', DEFAULTS, open), { action: 'ack', answer: 'ok', code: 'b' });
    assert.deepEqual(parseReply('oka', DEFAULTS, open), { action: 'ack', answer: 'ok', code: 'a' });
    assert.deepEqual(parseReply('2aa', DEFAULTS, open), { action: 'pass', answer: '2', code: 'aa' });
    assert.deepEqual(parseReply('busy, a', DEFAULTS, open), { action: 'pass', answer: 'busy', code: 'a' });
    assert.equal(parseReply('a ok', DEFAULTS, open), undefined);
    // A second word that is no open code is a comment: the answer without a code.
    assert.deepEqual(parseReply('ok i am on my way', DEFAULTS, open), { action: 'ack', answer: 'ok' });
    // A code that is not one of the sender's: no answer (it may be an old question's).
    assert.equal(parseReply('1c', DEFAULTS, open), undefined);
  });

  it('words count whole: "okay", "10", "jab" (no code b open) are no answers', () => {
    for (const text of ['okay', '10', 'jab', 'what?', '', '   ', '*', '5a', '-1'])
      assert.equal(parseReply(text, DEFAULTS, codes('a')), undefined, text);
  });

  it('"1*", "ok *", "ja*" acknowledge all; "2*" is no answer', () => {
    for (const text of ['1*', 'ok *', 'ja*', '1 * all of them'])
      assert.deepEqual(parseReply(text, DEFAULTS, codes('a')), {
        action: 'ack',
        answer: text.match(/^\w+/)![0],
        all: true,
      });
    assert.equal(parseReply('2*', DEFAULTS, codes('a')), undefined);
    assert.equal(parseReply('busy *', DEFAULTS, codes('a')), undefined);
  });

  it('a flow saved with the old words 1 and 2 reads 1a and 2a as before', () => {
    assert.deepEqual(parseReply('1a', OLD, codes('a')), { action: 'ack', answer: '1', code: 'a' });
    assert.deepEqual(parseReply('2a', OLD, codes('a')), { action: 'pass', answer: '2', code: 'a' });
    assert.deepEqual(parseReply('1B', OLD, codes('b')), { action: 'ack', answer: '1', code: 'b' });
    assert.equal(parseReply('ok', OLD, codes('a')), undefined);
  });

  it('the longer word wins: with the words "1" and "1a" the reply "1a" is that word', () => {
    const words: Words = { ack: ['1', '1a'], pass: [] };
    assert.deepEqual(parseReply('1a', words, codes('a')), { action: 'ack', answer: '1a' });
    assert.deepEqual(parseReply('1a a', words, codes('a')), { action: 'ack', answer: '1a', code: 'a' });
  });

  it('with no Acknowledge words any reply acknowledges; a code, or digits and a code, name the question', () => {
    assert.deepEqual(parseReply('b ok, I go', ANY, codes('b')), {
      action: 'ack',
      answer: 'b ok, I go',
      code: 'b',
    });
    assert.deepEqual(parseReply('1b', ANY, codes('b')), { action: 'ack', answer: '1b', code: 'b' });
    assert.deepEqual(parseReply('on my way', ANY, codes('b')), { action: 'ack', answer: 'on my way' });
  });

  const word = fc.stringMatching(/^[a-z0-9]{1,6}$/);
  const text = fc.string({ maxLength: 60 });

  it('property: what follows the first two words never changes what a reply says (a third word, any text)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('1', 'ok', '2', 'ja', 'busy', '1a', 'ok a', '1*', 'x'),
        text,
        (start, tail) => {
          const open = codes('a', 'b');
          assert.deepEqual(
            parseReply(`${start} zz ${tail}`, DEFAULTS, open),
            parseReply(`${start} zz`, DEFAULTS, open),
          );
        },
      ),
    );
  });

  it('property: a code read is one of the open codes; an answer read is one of the words; nothing throws', () => {
    fc.assert(
      fc.property(
        fc.array(word, { maxLength: 4 }),
        fc.array(word, { maxLength: 4 }),
        fc.array(fc.stringMatching(/^[a-z]{1,2}$/), { maxLength: 3 }),
        fc.oneof(
          text,
          fc.tuple(word, fc.constantFrom('', ' ', '*', ', '), word).map((p) => p.join('')),
        ),
        (ack, pass, open, reply) => {
          const words: Words = { ack, pass: pass.filter((p) => !ack.includes(p)) };
          const p = parseReply(reply, words, codes(...open));
          if (!p) return;
          if (p.code !== undefined) assert.ok(open.includes(p.code));
          if (ack.length > 0) assert.ok([...words.ack, ...words.pass].includes(p.answer), p.answer);
          if (p.all) assert.equal(p.action, 'ack');
          if (p.action === 'pass') assert.ok(words.pass.includes(p.answer));
        },
      ),
    );
  });

  it('property: a reply of many pages is read in bounded time and the same as its first 1000 characters', () => {
    const long = `1a ${'x'.repeat(100_000)}`;
    assert.deepEqual(parseReply(long, DEFAULTS, codes('a')), { action: 'ack', answer: '1', code: 'a' });
  });
});
