/**
 * The opt-out list as CSV: what export writes, and what import reads of what people make of it in a spreadsheet
 * (a byte order mark, `;` from Excel, quotes, German headers), all or nothing with the first bad line named.
 */
import assert from 'node:assert/strict';
import { numberKey } from '../../src/nodes/ask/numbers';
import { OptOutBook } from '../../src/nodes/optout/book';
import { CSV_HEADER, listCsv, readCsv } from '../../src/nodes/optout/csv';

const keyOf = (n: string): string => numberKey(n, 'DE');
const T = Date.parse('2026-01-02T03:04:05.000Z');

describe('opt-out list as CSV', () => {
  it('export writes number,state,since,source; import reads it back to the same list', () => {
    const book = new OptOutBook();
    book.apply({ key: '491701234567', out: true, source: 'reply' }, T);
    book.apply({ key: '491709999999', out: false, source: 'flow' }, T + 1000);
    const csv = listCsv(book.entries());
    assert.equal(
      csv,
      `${CSV_HEADER}\r\n+491701234567,opted-out,2026-01-02T03:04:05.000Z,reply\r\n+491709999999,opted-in,2026-01-02T03:04:06.000Z,flow\r\n`,
    );
    const back = new OptOutBook();
    for (const r of readCsv(csv, keyOf, 0, 'test')) back.apply(r, 0);
    assert.deepEqual(
      back.entries().map(([k, e]) => [k, e.out, e.since, e.source]),
      book.entries().map(([k, e]) => [k, e.out, e.since, e.source]),
    );
  });

  it('reads a UTF-8 byte order mark, ";" separators, quotes, German headers and words, national numbers', () => {
    const csv =
      '\uFEFFNummer;Status;Seit\r\n"0170 1234567";abgemeldet;2026-01-02T03:04:05Z\r\n\r\n"+49 (170) 999-1";"angemeldet";\r\n';
    const r = readCsv(csv, keyOf, 7, 'test');
    assert.deepEqual(
      r.map((c) => [c.key, c.out, c.since, c.source]),
      [
        ['491701234567', true, T, 'import'],
        ['491709991', false, 7, 'import'],
      ],
    );
  });

  it('a file of numbers alone puts them all on the list', () => {
    const r = readCsv('+491701234567\n+491701234568\n', keyOf, 0, 'test');
    assert.deepEqual(
      r.map((c) => [c.key, c.out]),
      [
        ['491701234567', true],
        ['491701234568', true],
      ],
    );
  });

  it('all or nothing: the first line that cannot be read refuses the file, named', () => {
    const bad: [string, RegExp][] = [
      [
        `${CSV_HEADER}\n+491701234567,opted-out,,reply\nhello,opted-out,,reply\n`,
        /^line 3: "hello" is not a phone number; nothing was imported$/,
      ],
      [`${CSV_HEADER}\n+491701234567,maybe,,reply\n`, /^line 2: the state "maybe"/],
      [`${CSV_HEADER}\n+491701234567,opted-out,yesterday,reply\n`, /^line 2: "yesterday" is not a date/],
      [`${CSV_HEADER}\n+491701234567,opted-out,,fax\n`, /^line 2: the source "fax"/],
      ['phone;"x\n', /^line 1: a quoted cell is not closed/],
      ['', /holds no numbers/],
    ];
    for (const [csv, why] of bad)
      assert.throws(
        () => readCsv(csv, keyOf, 0, 'test'),
        (e: { code?: string; message?: string }) => e.code === 'VALIDATION' && why.test(String(e.message)),
        csv,
      );
  });
});
