import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Utf8Chunks } from '../../src/soap/utf8-chunks';

function decodeIn(bytes: Uint8Array, cuts: number[]): string {
  const d = new Utf8Chunks();
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  let out = '';
  let from = 0;
  for (const p of [...points, bytes.length]) {
    out += d.decode(bytes.subarray(from, p));
    from = p;
  }
  return out + d.end();
}

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
});
