/**
 * A checksum on every line a store writes, so that a changed byte is found instead of read as another number:
 * `<line>\t<crc32 of the line, 8 hex digits>`. JSON never holds a raw tab, so the last tab of a line starts its
 * seal, and a file with a tab in it was written by a version that seals. CRC-32 finds every change of up to
 * 32 bits in a row (one byte flipped, a few bytes garbled); the work is one pass over the bytes written.
 */
import { crc32 } from 'node:zlib';

/** Two hex digits per byte, made once: a seal per line is 5,000 of them for a page of delivery reports. */
const HEX2 = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
/** An unsigned 32-bit number as 8 lowercase hex digits (as `n.toString(16).padStart(8, '0')`). */
const hex = (n: number): string =>
  HEX2[n >>> 24]! + HEX2[(n >>> 16) & 255]! + HEX2[(n >>> 8) & 255]! + HEX2[n & 255]!;

/** The line with its seal. */
export const sealLine = (line: string): string => `${line}\t${hex(crc32(line))}`;

/** '0'-'9', 'a'-'f' as bytes. */
const HEX_BYTES = Buffer.from('0123456789abcdef', 'latin1');

/**
 * Lines sealed and ended by a newline, as the bytes to write: each line encoded once into one buffer, its
 * checksum taken over those bytes and written after them (the same bytes as `sealLine(line) + '\n'` for each,
 * encoded as UTF-8, without a string per line, a second encoding for the checksum, nor a join).
 */
export function sealLines(lines: readonly string[]): Buffer {
  // Each line's UTF-8 bytes, its seal and the newline (10).
  let size = 0;
  for (let i = 0; i < lines.length; i++) size += Buffer.byteLength(lines[i]!, 'utf8') + 10;
  const buf = Buffer.allocUnsafe(size);
  let at = 0;
  for (let i = 0; i < lines.length; i++) {
    const n = buf.write(lines[i]!, at, 'utf8');
    const c = crc32(buf.subarray(at, at + n));
    at += n;
    buf[at++] = 9;
    for (let shift = 28; shift >= 0; shift -= 4) buf[at++] = HEX_BYTES[(c >>> shift) & 15]!;
    buf[at++] = 10;
  }
  return buf.subarray(0, at);
}

/** The line without its seal, or undefined when the seal is missing or does not match. */
export function openLine(sealed: string): string | undefined {
  const i = sealed.length - 9;
  if (i < 0 || sealed.charCodeAt(i) !== 9) return undefined;
  const body = sealed.slice(0, i);
  return hex(crc32(body)) === sealed.slice(i + 1) ? body : undefined;
}

/** A file written with seals (a file of an older version has no raw tab). */
export const isSealed = (text: string): boolean => text.includes('\t');
