/** Date text and field sanitizing of the older service's delimited strings. */

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** `yyyy-MM-dd HH:mm:ss` in the configured zone. */
export function formatLegacyDate(ms: number, offsetMinutes: number): string {
  const d = new Date(ms + offsetMinutes * 60_000);
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
  );
}

const ISO_RE =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;
const GERMAN_RE = /^(\d{1,2})\.(\d{1,2})\.(\d{4})(?:[ T,]+(\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;

function build(
  y: number,
  mo: number,
  d: number,
  h: number,
  mi: number,
  s: number,
  ms: number,
  zoneMinutes: number,
): number | undefined {
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 24 || mi > 59 || s > 60) return undefined;
  return Date.UTC(y, mo - 1, d, h, mi, s, ms) - zoneMinutes * 60_000;
}

function zoneOf(zone: string | undefined, fallback: number): number {
  if (!zone) return fallback;
  if (zone.toUpperCase() === 'Z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2)));
}

/**
 * Reads a date the older service receives as text: ISO (`2026-11-22T10:00:00Z`, `2026-11-22 10:00`),
 * German (`22.11.2026 10:00[:00]`) or epoch milliseconds. Text without zone is in the configured zone.
 * Returns null for empty text and undefined for text that is not a date.
 */
export function parseLegacyDate(text: string | undefined, offsetMinutes: number): number | null | undefined {
  const s = (text ?? '').trim();
  if (s === '') return null;
  const iso = ISO_RE.exec(s);
  if (iso) {
    const [, y, mo, d, h = '0', mi = '0', sec = '0', frac = '', zone] = iso;
    if (Number(y) <= 1) return null; // .NET's DateTime.MinValue
    const ms = frac ? Math.round(Number(`0.${frac}`) * 1000) : 0;
    return build(
      Number(y),
      Number(mo),
      Number(d),
      Number(h),
      Number(mi),
      Number(sec),
      ms,
      zoneOf(zone, offsetMinutes),
    );
  }
  const de = GERMAN_RE.exec(s);
  if (de) {
    const [, d, mo, y, h = '0', mi = '0', sec = '0'] = de;
    return build(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(sec), 0, offsetMinutes);
  }
  if (/^\d{10,13}$/.test(s)) return Number(s);
  return undefined;
}

/** Field text inside a delimited record: separators and line breaks become spaces. */
export function cleanField(text: string, recordSeparator = '\n'): string {
  let out = text.replace(/[;\r\n]/g, ' ');
  if (recordSeparator !== '' && recordSeparator !== '\n' && out.includes(recordSeparator)) {
    out = out.split(recordSeparator).join(' ');
  }
  return out;
}

/**
 * The caller's record separator, as the real service most likely uses it (docs/assumptions.md): appended
 * verbatim after each record. No escape is expanded (`\n` typed as two characters stays two characters) and an
 * empty or omitted value separates nothing, so the records run together: our client never asks for that.
 */
export function recordSeparator(text: string | undefined): string {
  return text ?? '';
}
