import assert from 'node:assert/strict';
import fc from 'fast-check';
import { openLine, sealLine, sealLines } from '../../src/store/seal';

/** The bytes a journal wrote before its batches were sealed in one buffer: each line sealed as text, then encoded. */
const asText = (lines: readonly string[]): Buffer =>
  Buffer.from(lines.map((l) => sealLine(l) + '\n').join(''), 'utf8');

describe('store: sealed lines written as one buffer', () => {
  it('are the same bytes as each line sealed as text, for any text (beyond ASCII, surrogate pairs, lone ones)', () => {
    const cases = [
      [],
      [''],
      ['{"add":{"id":"a","params":{"SMSText":"Gefrierschrank: −18 °C ✓ 😀"}}}', '{"remove":"a"}'],
      ['\ud800 lone', 'x\udfff', 'a\tb', '{"remove":"' + 'z'.repeat(70_000) + '"}'],
    ];
    for (const lines of cases) assert.deepEqual(sealLines(lines), asText(lines));
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary' }), { maxLength: 20 }), (lines) => {
        assert.deepEqual(sealLines(lines), asText(lines));
      }),
      { numRuns: 300 },
    );
  });

  it('each line opens again to the text it sealed', () => {
    const lines = ['{"version":3}', '{"update":{"id":"é","attempts":1}}'];
    const read = sealLines(lines).toString('utf8').split('\n').slice(0, -1).map(openLine);
    assert.deepEqual(read, lines);
  });
});
