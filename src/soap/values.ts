/**
 * Value codecs shared by the client and the emulator: how XML Schema / .NET write and read each
 * primitive (asmx-wire.md section 8 for SOAP, section 7.2 for HTTP GET/POST parameters).
 */

export class ValueFormatError extends Error {
  constructor(
    readonly xmlType: string,
    readonly text: string,
  ) {
    super(`'${text.length > 40 ? text.slice(0, 40) + '…' : text}' is not a valid ${xmlType}`);
    this.name = 'ValueFormatError';
  }
}

// ---------- dateTime

const DATE_TIME_RE =
  /^\s*(-?\d{4,})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?\s*$/;

/** .NET's DateTime.MinValue: what a missing element deserializes to, used as "no date". */
export const MIN_DATE_TEXT = '0001-01-01T00:00:00';

export interface DateReadOptions {
  /** How to read a value without zone: as UTC (default) or as the local time of this process. */
  zoneless?: 'utc' | 'local';
}

/** Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear does not. */
function utc(f: readonly [number, number, number, number, number, number, number]): number {
  const d = new Date(0);
  d.setUTCFullYear(f[0], f[1], f[2]);
  d.setUTCHours(f[3], f[4], f[5], f[6]);
  return d.getTime();
}

/** Reads an xsd:dateTime (or date-only) value; `0001-01-01T00:00:00` becomes null. */
export function parseDateTime(text: string, opts: DateReadOptions = {}): Date | null {
  const m = DATE_TIME_RE.exec(text);
  if (!m) throw new ValueFormatError('dateTime', text);
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m;
  const year = Number(y);
  if (
    year <= 1 &&
    Number(mo) === 1 &&
    Number(d) === 1 &&
    Number(h) === 0 &&
    Number(mi) === 0 &&
    Number(s) === 0
  ) {
    return null;
  }
  const ms = frac ? Math.round(Number(`0.${frac}`) * 1000) : 0;
  const fields = [year, Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms] as const;
  let time: number;
  if (zone) {
    time = utc(fields);
    if (zone !== 'Z') {
      const sign = zone.startsWith('-') ? -1 : 1;
      const digits = zone.slice(1).replace(':', '');
      time -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
    }
  } else if (opts.zoneless === 'local') {
    const local = new Date(2000, 0, 1);
    local.setFullYear(fields[0], fields[1], fields[2]);
    local.setHours(fields[3], fields[4], fields[5], fields[6]);
    time = local.getTime();
  } else {
    time = utc(fields);
  }
  const date = new Date(time);
  if (
    Number.isNaN(time) ||
    Number(mo) > 12 ||
    Number(d) > 31 ||
    Number(h) > 24 ||
    Number(mi) > 59 ||
    Number(s) > 60
  ) {
    throw new ValueFormatError('dateTime', text);
  }
  return date;
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** Writes a Date as xsd:dateTime in UTC (`2026-11-22T10:00:00Z`, milliseconds only when not zero). */
export function formatDateTime(value: Date): string {
  if (Number.isNaN(value.getTime())) throw new ValueFormatError('dateTime', String(value));
  const ms = value.getUTCMilliseconds();
  return (
    `${pad(value.getUTCFullYear(), 4)}-${pad(value.getUTCMonth() + 1)}-${pad(value.getUTCDate())}` +
    `T${pad(value.getUTCHours())}:${pad(value.getUTCMinutes())}:${pad(value.getUTCSeconds())}` +
    (ms ? `.${pad(ms, 3).replace(/0+$/, '')}` : '') +
    'Z'
  );
}

/**
 * Writes a Date the way ASMX writes a DateTime of Kind=Local: with the given offset (minutes east of UTC),
 * e.g. `2026-11-22T10:00:00.25+01:00`. The emulator uses it for server-side timestamps.
 */
export function formatDateTimeWithOffset(value: Date, offsetMinutes = 0): string {
  const local = new Date(value.getTime() + offsetMinutes * 60_000);
  const base = formatDateTime(local).slice(0, -1);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${base}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

// ---------- numbers

const INT_RE = /^\s*[+-]?\d+\s*$/;

export function parseInt32(text: string): number {
  if (!INT_RE.test(text)) throw new ValueFormatError('int', text);
  const n = Number(text.trim());
  if (n > 2147483647 || n < -2147483648) throw new ValueFormatError('int', text);
  return n;
}

export function formatInt(value: number): string {
  if (!Number.isInteger(value)) throw new ValueFormatError('int', String(value));
  return String(value);
}

const DOUBLE_RE = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

/** Reads xsd:double as .NET writes it (`INF`, `-INF`, `NaN`, `1E+21`) and also `Infinity`. */
export function parseDouble(text: string): number {
  const s = text.trim();
  switch (s) {
    case 'INF':
    case 'Infinity':
    case '+INF':
    case '+Infinity':
      return Infinity;
    case '-INF':
    case '-Infinity':
      return -Infinity;
    case 'NaN':
      return NaN;
  }
  if (!DOUBLE_RE.test(s)) throw new ValueFormatError('double', text);
  return Number(s);
}

/** Writes a double like .NET's round-trip format: `12.5`, `1E+21`, `1E-07`, `INF`, `-INF`, `NaN`, `-0`. */
export function formatDouble(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'INF';
  if (value === -Infinity) return '-INF';
  if (Object.is(value, -0)) return '-0';
  const s = String(value);
  const e = s.indexOf('e');
  if (e < 0) return s;
  const exp = s.slice(e + 1);
  const sign = exp.startsWith('-') ? '-' : '+';
  const digits = exp.replace(/^[+-]/, '').padStart(2, '0');
  return `${s.slice(0, e)}E${sign}${digits}`;
}

/** HTTP GET/POST parameters go through Convert.ChangeType, which wants `Infinity`, not `INF`. */
export function formatDoubleParam(value: number): string {
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  return formatDouble(value);
}

// ---------- booleans

/** SOAP reads only lower-case `true`/`false`/`1`/`0`; GET/POST parameters accept any case (`lenient`). */
export function parseBoolean(text: string, lenient = false): boolean {
  const s = lenient ? text.trim().toLowerCase() : text.trim();
  if (s === 'true' || (!lenient && s === '1')) return true;
  if (s === 'false' || (!lenient && s === '0')) return false;
  throw new ValueFormatError('boolean', text);
}

export const formatBoolean = (value: boolean): string => (value ? 'true' : 'false');

// ---------- base64Binary

const BASE64_RE = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

export function parseBase64(text: string): Buffer {
  if (!BASE64_RE.test(text)) throw new ValueFormatError('base64Binary', text);
  return Buffer.from(text.replace(/\s+/g, ''), 'base64');
}

export const formatBase64 = (value: Uint8Array): string => Buffer.from(value).toString('base64');
