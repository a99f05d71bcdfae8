/**
 * The opt-out list as CSV (the editor's Export and Import, docs/nodes.md "Opt-out list as CSV"):
 *
 *   number,state,since,source
 *   +491701234567,opted-out,2026-01-02T03:04:05.000Z,reply
 *
 * number: +<digits> (the national digits where the configuration has no Default country); state: opted-out or
 * opted-in; since: ISO 8601; source: reply, import, flow or editor. Export writes exactly that (CRLF, UTF-8).
 * Import reads what people make of it in a spreadsheet: a UTF-8 byte order mark, `;` or tab instead of `,` (Excel
 * in many languages), quoted cells ("" inside quotes), CRLF or LF, blank lines, a header in any column order or
 * none (then the columns in the order above; a file of numbers alone puts them all on the list), German
 * headers and words (nummer, status, seit, quelle; abgemeldet, angemeldet). All or nothing: the first line that
 * cannot be read refuses the whole file with an error naming the line.
 */
import { count } from '../../count';
import { GatewayError } from '../../errors';
import { safeText } from '../../text/untrusted';
import {
  OPT_SOURCES,
  isListKey,
  numberOfKey,
  type ChangeRequest,
  type OptEntry,
  type OptSource,
} from './book';

/** Rows an import takes at most, and the largest file. */
export const MAX_IMPORT_ROWS = 100_000;
export const MAX_IMPORT_CHARS = 10 * 1024 * 1024;

export const CSV_HEADER = 'number,state,since,source';

/** The list as CSV text. */
export function listCsv(entries: Iterable<readonly [string, OptEntry]>): string {
  const lines = [CSV_HEADER];
  for (const [key, e] of entries)
    lines.push(
      [numberOfKey(key), e.out ? 'opted-out' : 'opted-in', new Date(e.since).toISOString(), e.source].join(
        ',',
      ),
    );
  return `${lines.join('\r\n')}\r\n`;
}

const COLUMNS: Readonly<Record<string, 'number' | 'state' | 'since' | 'source'>> = {
  number: 'number',
  nummer: 'number',
  phone: 'number',
  telefon: 'number',
  recipient: 'number',
  state: 'state',
  status: 'state',
  since: 'since',
  seit: 'since',
  source: 'source',
  quelle: 'source',
};

const OUT = new Set(['opted-out', 'out', 'stop', 'added', 'abgemeldet', '1', 'true', 'yes', 'ja']);
const IN = new Set(['opted-in', 'in', 'start', 'removed', 'angemeldet', '0', 'false', 'no', 'nein']);

/** The separator of a file: the one of `,` `;` tab found most often (outside quotes) in its first line. */
function separatorOf(firstLine: string): string {
  let best = ',';
  let most = 0;
  for (const sep of [',', ';', '\t']) {
    let n = 0;
    let quoted = false;
    for (const c of firstLine) {
      if (c === '"') quoted = !quoted;
      else if (!quoted && c === sep) n++;
    }
    if (n > most) {
      best = sep;
      most = n;
    }
  }
  return best;
}

/** The rows of a CSV text with the line each starts on (RFC 4180 quoting; a quoted cell may span lines). */
function rowsOf(text: string, sep: string): { line: number; cells: string[] }[] {
  const rows: { line: number; cells: string[] }[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  let i = 0;
  const end = (): void => {
    cells.push(cell);
    cell = '';
  };
  const endRow = (): void => {
    end();
    if (cells.some((c) => c.trim() !== '')) rows.push({ line: start, cells });
    cells = [];
  };
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 2;
        continue;
      }
      if (c === '"') quoted = false;
      else {
        if (c === '\n') line++;
        cell += c;
      }
      i++;
      continue;
    }
    if (c === '"' && cell.trim() === '') {
      quoted = true;
      cell = '';
    } else if (c === sep) end();
    else if (c === '\r' && text[i + 1] === '\n') {
      endRow();
      i++;
      line++;
      start = line;
    } else if (c === '\n' || c === '\r') {
      endRow();
      line++;
      start = line;
    } else cell += c;
    i++;
  }
  if (quoted) throw refusal(start, 'a quoted cell is not closed');
  endRow();
  return rows;
}

const refusal = (line: number, why: string): GatewayError =>
  new GatewayError('VALIDATION', `line ${line}: ${why}; nothing was imported`, { ambiguous: false });

/**
 * The changes a CSV file asks for, one per number (a number given twice: its last line), or a VALIDATION error
 * naming the first line that cannot be read. `keyOf` is the list's comparison key of a number (numberKey with the
 * configuration's Default country).
 */
export function readCsv(
  raw: string,
  keyOf: (number: string) => string,
  now: number,
  by: string,
): ChangeRequest[] {
  if (raw.length > MAX_IMPORT_CHARS)
    throw new GatewayError(
      'VALIDATION',
      `the file has ${count(raw.length)} characters, more than ${count(MAX_IMPORT_CHARS)}; nothing was imported`,
      { ambiguous: false },
    );
  const text = raw.startsWith('\uFEFF') ? raw.slice(1) : raw;
  const firstLine = text.split(/\r?\n|\r/, 1)[0] ?? '';
  const rows = rowsOf(text, separatorOf(firstLine));
  if (rows.length === 0)
    throw new GatewayError('VALIDATION', 'the file holds no numbers', { ambiguous: false });
  let order: ('number' | 'state' | 'since' | 'source' | undefined)[] = ['number', 'state', 'since', 'source'];
  const head = rows[0]!.cells.map((c) => COLUMNS[c.trim().toLowerCase()]);
  if (head.includes('number')) {
    order = head;
    rows.shift();
  } else if (head.some((c) => c !== undefined))
    throw refusal(rows[0]!.line, 'a header without a number column');
  if (rows.length > MAX_IMPORT_ROWS)
    throw new GatewayError(
      'VALIDATION',
      `the file has ${count(rows.length)} rows, more than ${count(MAX_IMPORT_ROWS)}; nothing was imported`,
      { ambiguous: false },
    );
  const byKey = new Map<string, ChangeRequest>();
  for (const { line, cells } of rows) {
    const get = (name: 'number' | 'state' | 'since' | 'source'): string => {
      const i = order.indexOf(name);
      return i < 0 ? '' : (cells[i] ?? '').trim();
    };
    const number = get('number');
    if (number === '') throw refusal(line, 'no number');
    const key = keyOf(number);
    if (!isListKey(key)) throw refusal(line, `"${safeText(number, 40)}" is not a phone number`);
    const state = get('state').toLowerCase();
    const out = state === '' || OUT.has(state) ? true : IN.has(state) ? false : undefined;
    if (out === undefined)
      throw refusal(line, `the state "${safeText(state, 40)}" is neither opted-out nor opted-in`);
    const sinceText = get('since');
    let since = now;
    if (sinceText !== '') {
      since = /^\d+$/.test(sinceText) ? Number(sinceText) : Date.parse(sinceText);
      if (!Number.isFinite(since) || since < 0)
        throw refusal(
          line,
          `"${safeText(sinceText, 40)}" is not a date (ISO 8601, such as 2026-01-02T03:04:05Z)`,
        );
    }
    const sourceText = get('source').toLowerCase();
    if (sourceText !== '' && !OPT_SOURCES.includes(sourceText as OptSource))
      throw refusal(line, `the source "${safeText(sourceText, 40)}" is not one of ${OPT_SOURCES.join(', ')}`);
    byKey.delete(key);
    byKey.set(key, {
      key,
      out,
      since,
      source: sourceText === '' ? 'import' : (sourceText as OptSource),
      via: 'import',
      by,
    });
  }
  return [...byKey.values()];
}
