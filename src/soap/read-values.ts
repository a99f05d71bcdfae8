/**
 * Fast readers for the response decoder: the common exact layouts are read with char codes, anything
 * unusual falls back to the strict codecs of values.ts (which also produce the error).
 */
import {
  MIN_DATE_TEXT,
  ValueFormatError,
  parseBase64,
  parseDateTime,
  parseDouble,
  parseInt32,
} from './values';

export type Reader = (text: string) => unknown;

export function readInt(s: string): number {
  const n = s.length;
  if (n === 0 || n > 11) return parseInt32(s);
  let i = 0;
  let neg = false;
  if (s.charCodeAt(0) === 45) {
    if (n === 1) return parseInt32(s);
    neg = true;
    i = 1;
  }
  let v = 0;
  for (; i < n; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return parseInt32(s);
    v = v * 10 + d;
  }
  if (neg) v = -v;
  if (v > 2147483647 || v < -2147483648) return parseInt32(s);
  return v === 0 ? 0 : v;
}

export const readDouble: Reader = (s) => parseDouble(s);

export function readBoolean(s: string): boolean {
  switch (s) {
    case 'true':
    case '1':
      return true;
    case 'false':
    case '0':
      return false;
  }
  // Tolerant: ASMX writes lower case, but other stacks write True/False.
  const t = s.trim().toLowerCase();
  if (t === 'true' || t === '1') return true;
  if (t === 'false' || t === '0') return false;
  throw new ValueFormatError('boolean', s);
}

export const readString: Reader = (s) => s;

export const readBase64: Reader = (s) => parseBase64(s);

/** Any non-empty name (an open enum: more members exist than the spec lists); empty text is an error. */
export function readEnum(s: string): string {
  if (s.length > 0 && s.charCodeAt(0) > 32 && s.charCodeAt(s.length - 1) > 32) return s;
  const t = s.trim();
  if (!t) throw new ValueFormatError('enum', s);
  return t;
}

/**
 * One enum's listed names. Anything else throws, so the decoder keeps it as the text the service wrote and warns
 * once (see docs/assumptions.md): a new member must neither fail a page nor pass unnoticed.
 */
export function memberReader(name: string, members: readonly string[]): Reader {
  const known = new Set(members);
  return (s) => {
    const v = readEnum(s);
    if (!known.has(v)) throw new ValueFormatError(name, s);
    return v;
  };
}

const digit = (s: string, i: number): number => {
  const d = s.charCodeAt(i) - 48;
  return d >= 0 && d <= 9 ? d : -1000000;
};
const two = (s: string, i: number): number => digit(s, i) * 10 + digit(s, i + 1);

/** Days since 1970-01-01 of a proleptic Gregorian date, year >= 100 (H. Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  if (m <= 2) y -= 1;
  const era = (y / 400) | 0;
  const yoe = y - era * 400;
  const doy = (((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) | 0) + d - 1;
  const doe = yoe * 365 + ((yoe / 4) | 0) - ((yoe / 100) | 0) + doy;
  return era * 146097 + doe - 719468;
}

const MONTH_DAYS = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/**
 * xsd:dateTime → Date (null for 0001-01-01T00:00:00). Fast path: `YYYY-MM-DDTHH:MM:SS[.f{1,9}][Z|±HH:MM]`
 * with valid ranges; everything else (date-only, spaces, odd years) goes through parseDateTime. Fractions are
 * rounded half-up to milliseconds.
 */
export function dateReader(
  zoneless: 'utc' | 'local',
  /** The older service's text dates: also `yyyy-MM-dd HH:mm:ss`, and its own reader for everything else. */
  legacy?: (s: string) => Date | null,
): (s: string) => Date | null {
  const slow = legacy ?? ((s: string): Date | null => parseDateTime(s, { zoneless }));
  // Lists repeat dates (a job's reports share its CreateDate): the last text read is remembered. Bounded: one
  // short string (it may be a slice of the chunk it came from, so at most one chunk stays alive a little longer).
  let lastText = '';
  let lastTime = 0;
  const read = (s: string): Date | null => {
    if (s === lastText) return new Date(lastTime);
    // DateTime.MinValue ("no date", e.g. a report not done yet): common in lists, and below the fast path's years.
    if (s === MIN_DATE_TEXT) return null;
    const d = parse(s);
    if (d !== null) {
      lastText = s;
      lastTime = d.getTime();
    }
    return d;
  };
  const parse = (s: string): Date | null => {
    const n = s.length;
    const sep = s.charCodeAt(10);
    if (
      n < 19 ||
      s.charCodeAt(4) !== 45 ||
      s.charCodeAt(7) !== 45 ||
      (sep !== 84 && (sep !== 32 || !legacy))
    ) {
      return slow(s);
    }
    if (s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return slow(s);
    const y = two(s, 0) * 100 + two(s, 2);
    const mo = two(s, 5);
    const d = two(s, 8);
    const h = two(s, 11);
    const mi = two(s, 14);
    const sec = two(s, 17);
    if (
      y < 100 ||
      mo < 1 ||
      mo > 12 ||
      d < 1 ||
      d > 31 ||
      h < 0 ||
      h > 23 ||
      mi < 0 ||
      mi > 59 ||
      sec < 0 ||
      sec > 59
    ) {
      return slow(s); // also years below 100 (MinValue included): rare, and Date maps 0–99 to 1900+
    }
    let i = 19;
    let ms = 0;
    if (i < n && s.charCodeAt(i) === 46) {
      const start = ++i;
      let scale = 100;
      while (i < n) {
        const c = digit(s, i);
        if (c < 0) break;
        if (scale >= 1) ms += c * scale;
        else if (scale > 0.05 && c >= 5) ms += 1; // the fourth digit rounds
        scale /= 10;
        i++;
      }
      if (i === start || i - start > 9) return slow(s);
    }
    let offset = 0;
    let zoned = false;
    if (i < n) {
      const c = s.charCodeAt(i);
      if (c === 90 && i + 1 === n) zoned = true;
      else if ((c === 43 || c === 45) && i + 6 === n && s.charCodeAt(i + 3) === 58) {
        const oh = two(s, i + 1);
        const om = two(s, i + 4);
        if (oh < 0 || om < 0 || om > 59) return slow(s);
        offset = (c === 45 ? -1 : 1) * (oh * 60 + om);
        zoned = true;
      } else return slow(s);
    }
    if (!zoned && zoneless === 'local') return new Date(y, mo - 1, d, h, mi, sec, ms);
    if (d > 28 && (d > (MONTH_DAYS[mo] as number) || (mo === 2 && !isLeap(y)))) return slow(s);
    const t = daysFromCivil(y, mo, d) * 86400000 + ((h * 60 + mi - offset) * 60 + sec) * 1000 + ms;
    return new Date(t);
  };
  return read;
}
