import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ByteTextChunks, utf8Of } from '../../src/soap/utf8-chunks';

/** The pieces of byte text the chunks give, the last one from end(). */
function piecesOf(bytes: Uint8Array, cuts: number[]): string[] {
  const d = new ByteTextChunks();
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const p of [...points, bytes.length]) {
    out.push(d.decode(bytes.subarray(from, p)));
    from = p;
  }
  return [...out, d.end()];
}

/** As the decoder reads it: each piece turned into characters on its own. */
const decodeIn = (bytes: Uint8Array, cuts: number[]): string => piecesOf(bytes, cuts).map(utf8Of).join('');

describe('UTF-8 chunks as byte text', () => {
  it('gives any text split at any byte, piece by piece, the same as the whole', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        assert.equal(decodeIn(Buffer.from(text, 'utf8'), cuts), text.replace(/^\uFEFF/, ''));
      }),
      { numRuns: 500 },
    );
  });

  it('large chunks split anywhere, and invalid bytes in them, read as TextDecoder reads the whole', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        (piece, cuts) => {
          const text = `x${piece.repeat(Math.ceil(30_000 / Buffer.byteLength(piece)))}`;
          assert.equal(decodeIn(Buffer.from(text, 'utf8'), cuts), text);
          const bad = Buffer.concat([
            Buffer.from(text),
            Buffer.from([0xf0, 0x9f, 0xe2, 0x80, 0xff]),
            Buffer.from(text),
          ]);
          assert.equal(decodeIn(bad, cuts), new TextDecoder('utf-8').decode(bad));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('turns invalid or cut bytes into U+FFFD as TextDecoder does, and drops a leading BOM even when cut', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.array(fc.nat(), { maxLength: 5 }), (bytes, cuts) => {
        assert.equal(decodeIn(bytes, cuts), new TextDecoder('utf-8').decode(bytes));
      }),
      { numRuns: 2000 },
    );
    for (const cut of [0, 1, 2, 3, 4]) assert.equal(decodeIn(Buffer.from('\uFEFF<a/>'), [cut]), '<a/>');
    assert.equal(decodeIn(Buffer.from('<a>\uFEFF</a>'), []), '<a>\uFEFF</a>');
    assert.equal(decodeIn(Buffer.from([0xe2, 0x82]), []), '\uFFFD');
  });

  it("is one-byte text, and a chunk that ends inside a tag ends its text before the tag's '<'", () => {
    const xmlish = fc.string({
      unit: fc.constantFrom('<', '>', 'a', '/', ' ', 'ü', '—', '😀', '&amp;', '\r\n'),
    });
    fc.assert(
      fc.property(xmlish, fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        const bytes = Buffer.from(text, 'utf8');
        const pieces = piecesOf(bytes, cuts);
        assert.equal(pieces.join(''), bytes.toString('latin1'));
        assert.equal(decodeIn(bytes, cuts), text);
      }),
      { numRuns: 1000 },
    );
    const doc = Buffer.from('<a><b>Grüße — 1</b><b>2</b></a>');
    const cut = doc.indexOf('2</b>') + 2; // inside the second </b>
    assert.deepEqual(piecesOf(doc, [cut]).map(utf8Of), ['<a><b>Grüße — 1</b><b>2', '</b></a>', '']);
    // Without a '<' after its first byte, or with more than 4 KiB after it, a chunk's text is passed on whole.
    const long = Buffer.from(`<a>${'x'.repeat(5000)}`);
    assert.deepEqual(piecesOf(long, [long.length - 1]), [`<a>${'x'.repeat(4999)}`, 'x', '']);
  });
});
