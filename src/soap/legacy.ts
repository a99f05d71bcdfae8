/**
 * The older service's result strings (legacy-string-service.md): send results, the balance and the
 * delimited record lists. Parsing is tolerant (CRLF, decimal comma, several date layouts, a semicolon where
 * the spec shows GetRecivedSMS2's comma). A field that is not the number, date or flag it should be keeps its
 * raw text, a record without its fields is kept as `{ raw }` (each with a warning): one odd record never costs
 * the others. Only a send or balance answer that fits no known shape is a GatewayError('PARSE').
 */
import type { LegacyResultKind } from '../catalogue/types';
import { GatewayError } from '../errors';
import { dateReader } from './read-values';
import { WarnOnce, type WarningSink } from './warnings';

export interface LegacyParseOptions {
  /** The record separator the caller passed as Trennzeichen (GetJobs1 & co.); default newline. */
  separator?: string;
  /** How to read dates without zone (all of this service's dates): as UTC (default) or local time. */
  zoneless?: 'utc' | 'local';
  /** Told (once per field) of fields kept as raw text and records kept as `{ raw }`. */
  warn?: WarningSink | undefined;
  /** The operation named in warnings (default: the result kind). */
  operation?: string;
}

export type LegacyResult = { raw: string } & Record<string, unknown>;

const ERROR_RE = /^\s*Error\b[\s:]*([\s\S]*?)\s*$/i;
const OK_RE = /^\s*OK\b[\s:]*([\s\S]*?)\s*$/i;

class LegacyFormatError extends Error {}

function parseNumber(text: string, what: string): number {
  // Fast path: up to 15 plain digits with at most one point (what the service writes), read in the same pass.
  // digits / 10^k with both exact is correctly rounded, so this equals Number(text).
  const n = text.length;
  let digits = 0;
  let scale = 1;
  let dot = false;
  let i = 0;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      digits = digits * 10 + (c - 48);
      if (dot) scale *= 10;
    } else if (c === 46 && !dot) dot = true;
    else break;
  }
  if (i === n && n > (dot ? 1 : 0) && n <= (dot ? 16 : 15)) return dot ? digits / scale : digits;
  let s = text.trim();
  if (s.includes(',')) {
    // "12,5" (decimal comma) or "1.234,5" / "1,234.5" (grouping): the last separator is the decimal one.
    const lastComma = s.lastIndexOf(',');
    const lastDot = s.lastIndexOf('.');
    s = lastComma > lastDot ? s.replace(/\./g, '').replace(',', '.') : s.replace(/,/g, '');
  }
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s))
    throw new LegacyFormatError(`${what} is not a number`);
  return Number(s);
}

const DATE_LAYOUTS: Array<{ re: RegExp; order: 'ymd' | 'dmy' | 'mdy' }> = [
  // ISO and `yyyy-MM-dd HH:mm:ss`, fraction and zone optional
  {
    re: /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/,
    order: 'ymd',
  },
  // German `dd.MM.yyyy HH:mm[:ss]`
  { re: /^(\d{1,2})\.(\d{1,2})\.(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?$/, order: 'dmy' },
  // en-US DateTime.ToString(): `M/d/yyyy h:mm:ss AM`
  {
    re: /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AaPp][Mm])?)?$/,
    order: 'mdy',
  },
];

export function parseLegacyDate(text: string, zoneless: 'utc' | 'local' = 'utc'): Date {
  const s = text.trim();
  for (const { re, order } of DATE_LAYOUTS) {
    const m = re.exec(s);
    if (!m) continue;
    const [a, b, c] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const [y, mo, d] = order === 'ymd' ? [a, b, c] : order === 'dmy' ? [c, b, a] : [c, a, b];
    let h = Number(m[4] ?? 0);
    const mi = Number(m[5] ?? 0);
    const sec = Number(m[6] ?? 0);
    let ms = 0;
    let zone: string | undefined;
    if (order === 'ymd') {
      ms = m[7] ? Math.round(Number(`0.${m[7]}`) * 1000) : 0;
      zone = m[8];
    } else if (order === 'mdy' && m[7]) {
      const pm = m[7].toLowerCase() === 'pm';
      if (h === 12) h = pm ? 12 : 0;
      else if (pm) h += 12;
    }
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59) break;
    let t: number;
    if (zone) {
      t = Date.UTC(y, mo - 1, d, h, mi, sec, ms);
      if (zone !== 'Z') {
        const digits = zone.slice(1).replace(':', '');
        t -= (zone[0] === '-' ? -1 : 1) * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60000;
      }
    } else if (zoneless === 'local') t = new Date(y, mo - 1, d, h, mi, sec, ms).getTime();
    else t = Date.UTC(y, mo - 1, d, h, mi, sec, ms);
    return new Date(t);
  }
  throw new LegacyFormatError('unrecognised date');
}

function parseFlag(text: string): boolean {
  const s = text.trim().toLowerCase();
  if (s === '1' || s === 'true' || s === 'yes' || s === 'ja') return true;
  if (s === '0' || s === 'false' || s === 'no' || s === 'nein' || s === '') return false;
  throw new LegacyFormatError('unrecognised flag');
}

/** Strips leading and trailing CR/LF (a record's own line break when the separator is something else). */
function stripLineBreaks(r: string): string {
  let a = 0;
  let b = r.length;
  while (a < b && (r.charCodeAt(a) === 10 || r.charCodeAt(a) === 13)) a++;
  while (b > a && (r.charCodeAt(b - 1) === 10 || r.charCodeAt(b - 1) === 13)) b--;
  return a === 0 && b === r.length ? r : r.slice(a, b);
}

const isBlank = (s: string): boolean => {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 32) return false;
  return true;
};

/** CR LF and a lone CR as LF: XML readers on either side may turn one into the other. */
const lineBreaksAsLf = (s: string): string => (s.indexOf('\r') < 0 ? s : s.replace(/\r\n?/g, '\n'));

/** `digits;` at the start (blanks allowed before): how every GetJobs1 record begins (its JobId). */
function startsJob(s: string): boolean {
  // The usual case first: a digit at once, then up to ten more and the `;` (a JobId is an Int32).
  let i = 0;
  let c = s.charCodeAt(0);
  while (c <= 32) c = s.charCodeAt(++i); // NaN past the end ends the loop
  const first = i;
  while (c >= 48 && c <= 57) c = s.charCodeAt(++i);
  return c === 59 && i > first;
}

const isDigits = (s: string): boolean => {
  const t = s.trim();
  if (t === '') return false;
  for (let i = 0; i < t.length; i++) if (t.charCodeAt(i) < 48 || t.charCodeAt(i) > 57) return false;
  return true;
};

const DATE_START = /^\s*\d{1,4}[-./]\d{1,2}[-./]\d{1,4}/;

/**
 * Splits a list answer into records. Line breaks are one separator whatever their form. For GetJobs1 (`jobs`)
 * with the caller's Trennzeichen, a piece that does not begin like a record (`JobId;`) continues the one before:
 * a caption holding the separator stays whole, and two records are never merged (each begins with its JobId).
 */
function splitRecords(raw: string, separator: string | undefined, jobs: boolean): string[] {
  if (separator === ';' && jobs) return regroupFields(raw);
  const text = lineBreaksAsLf(raw);
  const sep = separator === undefined || separator === '' ? '\n' : lineBreaksAsLf(separator);
  const lines = /^\n+$/.test(sep);
  const pieces = text.split(lines ? '\n' : sep);
  const out: string[] = [];
  for (let i = 0; i < pieces.length; i++) {
    let r = pieces[i] as string;
    if (jobs) {
      while (
        i + 1 < pieces.length &&
        !startsJob(pieces[i + 1] as string) &&
        !isBlank(pieces[i + 1] as string)
      )
        r += (lines ? '\n' : sep) + (pieces[++i] as string);
    }
    r = stripLineBreaks(r);
    if (!isBlank(r)) out.push(r);
  }
  return out;
}

/**
 * A caller who picks `;` as Trennzeichen gets records ending in the field separator itself
 * (`1;a;0.09;date;2;b;0.09;date;`): they are read back by their shape. Four fields each, unless the caption holds
 * semicolons: then a record ends at the first `cost;date` followed by the next JobId (or the end).
 */
function regroupFields(raw: string): string[] {
  const parts = stripLineBreaks(lineBreaksAsLf(raw)).split(';');
  while (parts.length > 0 && isBlank(parts[parts.length - 1] as string)) parts.pop();
  const n = parts.length;
  const ends = (k: number): boolean => k + 1 >= n || isDigits(parts[k + 1] as string);
  const out: string[] = [];
  for (let i = 0; i < n;) {
    let k = i + 3;
    if (k < n && !ends(k)) {
      for (let j = k + 1; j < n; j++) {
        if (DATE_START.test(parts[j] as string) && ends(j)) {
          k = j;
          break;
        }
      }
    }
    k = Math.min(k, n - 1);
    out.push(parts.slice(i, k + 1).join(';'));
    i = k + 1;
  }
  return out;
}

/** Fields split on `;`; the free-text field (`message`, `caption`) takes whatever is left, semicolons included. */
function fields(
  record: string,
  before: number,
  after: number,
): { head: string[]; middle: string; tail: string[] } {
  // indexOf/lastIndexOf instead of split + join: this runs once per record of lists thousands long.
  const head: string[] = [];
  let start = 0;
  for (let i = 0; i < before; i++) {
    const j = record.indexOf(';', start);
    if (j < 0) throw new LegacyFormatError(`expected at least ${before + after + 1} fields`);
    head.push(record.slice(start, j));
    start = j + 1;
  }
  const tail: string[] = new Array<string>(after);
  let end = record.length;
  for (let i = after - 1; i >= 0; i--) {
    const j = end > start ? record.lastIndexOf(';', end - 1) : -1;
    if (j < start) throw new LegacyFormatError(`expected at least ${before + after + 1} fields`);
    tail[i] = record.slice(j + 1, end);
    end = j;
  }
  return { head, middle: record.slice(start, end), tail };
}

const fastDates = {
  utc: dateReader('utc', (s) => parseLegacyDate(s, 'utc')),
  local: dateReader('local', (s) => parseLegacyDate(s, 'local')),
};

/** `yyyy-MM-dd[T ]HH:mm:ss[.f][zone]` without regex; everything else through parseLegacyDate. */
function readDate(text: string, zoneless: 'utc' | 'local'): Date {
  const d = fastDates[zoneless](text);
  // The fast reader maps 0001-01-01T00:00:00 to null ("no date"); here it is just a (strange) date.
  return d ?? parseLegacyDate(text, zoneless);
}

/** How one answer's records are read: the zone of its dates and who hears of fields kept raw. */
interface Reading {
  zoneless: 'utc' | 'local';
  warnings: WarnOnce;
}

/** A number field; text that is no number is kept as it is, with a warning. */
function num(text: string, field: string, c: Reading): number | string {
  try {
    return parseNumber(text, field);
  } catch (e) {
    if (!(e instanceof LegacyFormatError)) throw e;
    c.warnings.oddValue(field, text, 'number');
    return text;
  }
}

function date(text: string, field: string, c: Reading): Date | string {
  try {
    return readDate(text, c.zoneless);
  } catch (e) {
    if (!(e instanceof LegacyFormatError)) throw e;
    c.warnings.oddValue(field, text, 'date');
    return text;
  }
}

function flag(text: string, field: string, c: Reading): boolean | string {
  try {
    return parseFlag(text);
  } catch (e) {
    if (!(e instanceof LegacyFormatError)) throw e;
    c.warnings.oddValue(field, text, 'flag');
    return text;
  }
}

type RecordParser = (record: string, c: Reading) => Record<string, unknown>;

const RECORDS: Record<Exclude<LegacyResultKind, 'send' | 'balance'>, RecordParser> = {
  receivedSms2: (r, c) => {
    // `ID,JobId;Sender;message;date`: the spec shows a comma after ID; a semicolon is accepted too.
    const comma = r.indexOf(',');
    const semi = r.indexOf(';');
    const cut = comma >= 0 && (semi < 0 || comma < semi) ? comma : semi;
    if (cut < 0) throw new LegacyFormatError('expected ID,JobId;Sender;message;date');
    const f = fields(r.slice(cut + 1), 2, 1);
    return {
      id: num(r.slice(0, cut), 'id', c),
      jobId: num(f.head[0] as string, 'jobId', c),
      sender: (f.head[1] as string).trim(),
      message: f.middle,
      date: date(f.tail[0] as string, 'date', c),
    };
  },
  recivedSms2: (r, c) => {
    const parts = r.split(';');
    if (parts.length < 3) throw new LegacyFormatError('expected Sender;date;message');
    return {
      sender: (parts[0] as string).trim(),
      date: date(parts[1] as string, 'date', c),
      message: parts.slice(2).join(';'),
    };
  },
  newReceivedSms2: (r, c) => {
    const f = fields(r, 1, 2);
    return {
      sender: (f.head[0] as string).trim(),
      message: f.middle,
      date: date(f.tail[0] as string, 'date', c),
      isStatusReport: flag(f.tail[1] as string, 'isStatusReport', c),
    };
  },
  jobs: (r, c) => {
    // `JobId;Caption;cost;sendtime`, the caption may hold semicolons. Sliced directly: lists run to thousands.
    const a = r.indexOf(';');
    const e = r.lastIndexOf(';');
    const b = e > a ? r.lastIndexOf(';', e - 1) : -1;
    if (a < 0 || b <= a) throw new LegacyFormatError('expected JobId;Caption;cost;sendtime');
    return {
      jobId: num(r.slice(0, a), 'jobId', c),
      caption: r.slice(a + 1, b),
      cost: num(r.slice(b + 1, e), 'cost', c),
      sendTime: date(r.slice(e + 1), 'sendTime', c),
    };
  },
};

/** Each record parsed; one without its fields is kept as `{ raw }` (with a warning), never the whole list lost. */
function readRecords(kind: keyof typeof RECORDS, text: string, separator: string | undefined, c: Reading) {
  const parse = RECORDS[kind];
  const out: Record<string, unknown>[] = [];
  for (const r of splitRecords(text, separator, kind === 'jobs')) {
    try {
      out.push(parse(r, c));
    } catch (e) {
      if (!(e instanceof LegacyFormatError)) throw e;
      c.warnings.oddRecord('record', r, `is not a ${kind} record (${e.message})`);
      out.push({ raw: r });
    }
  }
  return out;
}

/**
 * Reads a result string of the older service:
 * - send: `OK <id>` → `{ raw, ok: true, id }` (id as text), `Error <text>` → `{ raw, ok: false, error }`;
 * - balance: `{ raw, ok: true, balance }` (tolerates `OK 12.5`, `12,5`; other text is kept, with a warning);
 * - record lists: `{ raw, ok: true, records: [...] }` with numbers and dates parsed; a field that does not
 *   parse keeps its text, a record without its fields is `{ raw }` (each with a warning).
 * Any kind answering `Error <text>` gives `{ raw, ok: false, error }`. A send answer of no known shape throws
 * GatewayError('PARSE').
 */
export function parseLegacyResult(
  kind: LegacyResultKind,
  raw: string,
  opts: LegacyParseOptions = {},
): LegacyResult {
  const text = raw ?? '';
  const err = ERROR_RE.exec(text);
  if (err) return { raw: text, ok: false, error: err[1] ?? '' };
  const c: Reading = {
    zoneless: opts.zoneless ?? 'utc',
    warnings: new WarnOnce(opts.warn, 'legacy', opts.operation ?? kind),
  };
  try {
    switch (kind) {
      case 'send': {
        const ok = OK_RE.exec(text);
        if (!ok) throw new LegacyFormatError('expected "OK <id>" or "Error <text>"');
        return { raw: text, ok: true, id: ok[1] ?? '' };
      }
      case 'balance': {
        const ok = OK_RE.exec(text);
        return { raw: text, ok: true, balance: num(ok ? (ok[1] ?? '') : text, 'balance', c) };
      }
      default: {
        if (!(kind in RECORDS)) throw new LegacyFormatError(`unknown result kind ${String(kind)}`);
        return { raw: text, ok: true, records: readRecords(kind, text, opts.separator, c) };
      }
    }
  } catch (e) {
    if (!(e instanceof LegacyFormatError)) throw e;
    const excerpt = text.length > 200 ? `${text.slice(0, 200)}…` : text;
    throw new GatewayError('PARSE', `cannot read the ${kind} result: ${e.message}`, {
      body: excerpt,
      cause: e,
    });
  }
}
