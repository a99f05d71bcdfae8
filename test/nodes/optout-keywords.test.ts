/**
 * Which replies are opt-out keywords (exactly one word of a list, after trimming and case folding), and how the
 * list compares numbers (one key everywhere; a national and an international form of one number are the same).
 */
import assert from 'node:assert/strict';
import { OptOutBook, maskNumber } from '../../src/nodes/optout/book';
import { keywordOf, keywordsOf } from '../../src/nodes/optout/keywords';
import { OPT_OUT_WORDS, judgeValue } from '../../src/nodes/fields/rule';
import { CONFIG_FIELDS } from '../../src/nodes/fields/config';

const DEFAULTS = keywordsOf(OPT_OUT_WORDS.optOutStop, OPT_OUT_WORDS.optOutStart, OPT_OUT_WORDS.optOutHelp);

describe('opt-out keywords: a reply counts only when it is exactly one keyword', () => {
  const cases: [string, string | undefined][] = [
    ['STOP', 'stop'],
    [' stop ', 'stop'],
    ['Stopp', 'stop'],
    ['STOP!', 'stop'],
    ['Stop.', 'stop'],
    ['\u200bSTOP\u200b', 'stop'],
    ['ＳＴＯＰ', 'stop'],
    ['abmelden', 'stop'],
    ['UNSUBSCRIBE', 'stop'],
    ['start', 'start'],
    ['Anmelden', 'start'],
    ['HELP', 'help'],
    ['hilfe', 'help'],
    ['please stop', undefined],
    ['STOP 12345', undefined],
    ['stop it', undefined],
    ['Cancel?', undefined],
    ['', undefined],
    ['   ', undefined],
    ['stopped', undefined],
    [`STOP${' '.repeat(200)}x`, undefined],
  ];
  for (const [reply, expected] of cases)
    it(`${JSON.stringify(reply)} -> ${expected ?? 'no keyword'}`, () => {
      assert.equal(keywordOf(reply, DEFAULTS), expected);
    });

  it('anything but a text is no keyword', () => {
    for (const v of [undefined, null, 42, { Text: 'STOP' }]) assert.equal(keywordOf(v, DEFAULTS), undefined);
  });

  it('configured lists replace the defaults', () => {
    const own = keywordsOf('NEIN; Aus', 'JA', 'INFO');
    assert.equal(keywordOf('aus', own), 'stop');
    assert.equal(keywordOf('STOP', own), undefined);
    assert.equal(keywordOf('ja', own), 'start');
    assert.equal(keywordOf('Info', own), 'help');
  });

  it('the settings refuse a word that is in two lists, and a blank list takes the defaults', () => {
    const field = CONFIG_FIELDS.optOutStart!;
    const sibling = (name: string): unknown => (name === 'optOutStop' ? 'STOP, START' : '');
    const refused = judgeValue(field, 'START', { sibling } as never);
    assert.equal(refused.ok, false);
    const taken = judgeValue(field, 'Go, GO,  weiter', { sibling: () => '' } as never);
    assert.deepEqual([taken.ok, taken.ok && taken.value], [true, 'go, weiter']);
  });
});

describe('opt-out list: numbers compared by one key', () => {
  const on = (book: OptOutBook, key: string): void => {
    book.apply({ key, out: true, source: 'reply' }, 1000);
  };

  it('a number on the list refuses its own key, and the national form of it (and the other way round)', () => {
    const book = new OptOutBook();
    on(book, '491701234567');
    assert.ok(book.refusing('491701234567'));
    assert.ok(book.refusing('01701234567'));
    assert.equal(book.refusing('491701234568'), undefined);
    const national = new OptOutBook();
    on(national, '01709876543');
    assert.ok(national.refusing('491709876543'));
    assert.ok(national.refusing('431709876543'));
    assert.equal(national.refusing('491709876544'), undefined);
  });

  it('START keeps the number (off the list) with when and how, and the log says both', () => {
    const book = new OptOutBook();
    on(book, '491701234567');
    book.apply({ key: '491701234567', out: false, source: 'reply' }, 2000);
    assert.equal(book.refusing('491701234567'), undefined);
    assert.equal(book.count, 0);
    assert.deepEqual(book.get('491701234567'), { out: false, since: 2000, source: 'reply' });
    assert.deepEqual(
      book.log.map((c) => [c.action, c.at]),
      [
        ['added', 1000],
        ['removed', 2000],
      ],
    );
  });

  it('a stored list reads back the same; odd values are counted (the list is then treated as lost)', () => {
    const book = new OptOutBook();
    on(book, '491701234567');
    const back = OptOutBook.from(JSON.parse(JSON.stringify(book.toJSON())));
    assert.equal(back.odd, 0);
    assert.ok(back.book.refusing('491701234567'));
    const odd = OptOutBook.from({
      version: 1,
      entries: { '491701234567': { o: 1, t: 'x', s: 'reply' } },
      log: [],
    });
    assert.equal(odd.odd, 1);
  });

  it('a number in a log line is masked', () => {
    assert.equal(maskNumber('491701234567'), '+4917******67');
  });
});
