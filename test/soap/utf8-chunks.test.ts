import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Utf8Chunks } from '../../src/soap/utf8-chunks';

/** The pieces of text the chunks give, the last one from end(). */
function piecesOf(bytes: Uint8Array, cuts: number[], holdMarkup = false): string[] {
  const d = new Utf8Chunks(holdMarkup);
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const p of [...points, bytes.length]) {
    out.push(d.decode(bytes.subarray(from, p)));
    from = p;
  }
  return [...out, d.end()];
}

const decodeIn = (bytes: Uint8Array, cuts: number[], holdMarkup = false): string =>
  piecesOf(bytes, cuts, holdMarkup).join('');

describe('UTF-8 chunk decoding', () => {
  it('decodes any text split at any byte the same as the whole', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        assert.equal(decodeIn(Buffer.from(text, 'utf8'), cuts), text);
      }),
      { numRuns: 500 },
    );
  });

  it('decodes large chunks (the stream-mode path) split anywhere, and invalid bytes in them', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        (piece, cuts) => {
          const text = piece.repeat(Math.ceil(30_000 / Buffer.byteLength(piece)));
          assert.equal(decodeIn(Buffer.from(text, 'utf8'), cuts), text);
          const bad = Buffer.concat([
            Buffer.from(text),
            Buffer.from([0xf0, 0x9f, 0xe2, 0x80, 0xff]),
            Buffer.from(text),
          ]);
          assert.equal(decodeIn(bad, cuts), new TextDecoder('utf-8', { ignoreBOM: true }).decode(bad));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('turns invalid or cut bytes into U+FFFD as a streaming TextDecoder does, and keeps a BOM', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.array(fc.nat(), { maxLength: 5 }), (bytes, cuts) => {
        const td = new TextDecoder('utf-8', { ignoreBOM: true });
        assert.equal(decodeIn(bytes, cuts), td.decode(bytes));
      }),
      { numRuns: 1000 },
    );
    assert.equal(decodeIn(Buffer.from('\uFEFF<a/>'), [1, 2]), '\uFEFF<a/>');
    assert.equal(decodeIn(Buffer.from([0xe2, 0x82]), []), '\uFFFD');
  });

  it("holding markup: the text is the same, and a chunk that ends inside a tag ends its text before the tag's '<'", () => {
    const xmlish = fc.string({
      unit: fc.constantFrom('<', '>', 'a', '/', ' ', 'ü', '—', '😀', '&amp;', '\r\n'),
    });
    fc.assert(
      fc.property(xmlish, fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        const bytes = Buffer.from(text, 'utf8');
        assert.equal(decodeIn(bytes, cuts, true), text);
      }),
      { numRuns: 1000 },
    );
    const doc = Buffer.from('<a><b>Grüße — 1</b><b>2</b></a>');
    const cut = doc.indexOf('2</b>') + 2; // inside the second </b>
    assert.deepEqual(piecesOf(doc, [cut], true), ['<a><b>Grüße — 1</b><b>2', '</b></a>', '']);
    // Without a '<' after its first byte, or with more than 4 KiB after it, a chunk's text is passed on whole.
    const long = Buffer.from(`<a>${'x'.repeat(5000)}`);
    assert.deepEqual(piecesOf(long, [long.length - 1], true), [`<a>${'x'.repeat(4999)}`, 'x', '']);
  });
});
