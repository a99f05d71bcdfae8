/**
 * A checksum on every line a store writes, so that a changed byte is found instead of read as another number:
 * `<line>\t<crc32 of the line, 8 hex digits>`. JSON never holds a raw tab, so the last tab of a line starts its
 * seal, and a file with a tab in it was written by a version that seals. CRC-32 finds every change of up to
 * 32 bits in a row (one byte flipped, a few bytes garbled); the work is one pass over the bytes written.
 */
import { crc32 } from 'node:zlib';

const hex = (n: number): string => n.toString(16).padStart(8, '0');

/** The line with its seal. */
export const sealLine = (line: string): string => `${line}\t${hex(crc32(line))}`;

/** The line without its seal, or undefined when the seal is missing or does not match. */
export function openLine(sealed: string): string | undefined {
  const i = sealed.length - 9;
  if (i < 0 || sealed.charCodeAt(i) !== 9) return undefined;
  const body = sealed.slice(0, i);
  return hex(crc32(body)) === sealed.slice(i + 1) ? body : undefined;
}

/** A file written with seals (a file of an older version has no raw tab). */
export const isSealed = (text: string): boolean => text.includes('\t');
