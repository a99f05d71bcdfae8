/**
 * The text of a state file, and what can be read back from a damaged one.
 *
 * One record per line, each a JSON array that says where its value goes, each line sealed with its checksum
 * (seal.ts), a header first and the number of lines last:
 *
 *   {"smsgw-state":2}                           <tab>crc
 *   ["m","cursor","2026-01-02T03:04:05.000Z"]   <tab>crc    a member
 *   ["a","pending",{"payload":...}]             <tab>crc    an item of a list member
 *   ["o","seen","17",1767323045000]             <tab>crc    an entry of a map member
 *   ["end",5]                                   <tab>crc    the file is whole
 *
 * A line whose seal does not match (a byte flipped, garbage written over it, cut in the middle) costs that line:
 * one record, never the file, and never read as another value; every other line is kept. A file without its
 * last line was cut short. Files of older versions (JSON, one value per line, or one line) are read as they were
 * written (below): every line or prefix that parses is kept.
 */

import { counted } from '../count';
import { isSealed, openLine, sealLine } from './seal';

/** What could be read from a state file's text. */
export interface ReadState {
  /** The members read (all of them when `damage` is undefined); undefined when nothing could be read. */
  value: Record<string, unknown> | undefined;
  /** Why the file was not read whole; undefined when it was. */
  damage: string | undefined;
  /** What was kept, e.g. "cursor", "pending (3 items)". */
  kept: string[];
  /** What was lost, e.g. "1 unreadable item of pending", "whatever followed the cut". */
  lost: string[];
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A member that lists the entries of the object its toJSON returns, in the order JSON.stringify writes them
 * (integer keys ascending, then the others in the order they were added), without making that object: a state
 * file writes a map of 5,000-10,000 ids a line each, and the object (its integer keys kept as dictionary
 * elements, listed and turned into strings again) was a third of the work.
 */
export interface StateEntries {
  forEachStateEntry(visit: (key: string, value: unknown) => void): void;
}

const hasStateEntries = (v: unknown): v is StateEntries =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as { forEachStateEntry?: unknown }).forEachStateEntry === 'function';

/** A value as JSON.stringify sees it (its toJSON applied: a Date, a Map-backed set of seen ids). */
function plain(value: unknown, key: string): unknown {
  const toJSON = (value as { toJSON?: unknown } | null | undefined)?.toJSON;
  return typeof toJSON === 'function' ? (toJSON as (k: string) => unknown).call(value, key) : value;
}

const HEADER = '{"smsgw-state":2}';

/**
 * The state as a state file holds it (see above): what JSON.stringify would keep of it, record by record.
 * `items: false` writes each member on one line, lists and maps whole: for a state that is all or nothing anyway
 * (the spending guard's counts: any damage marks them lost), one checksum per member instead of one per item
 * keeps a write as cheap as JSON.stringify.
 */
export function stateText(state: object, options: { items?: boolean } = {}): string {
  const items = options.items !== false;
  let out = sealLine(HEADER) + '\n';
  let lines = 1;
  const put = (line: string): void => {
    out += sealLine(line) + '\n';
    lines++;
  };
  for (const [key, raw] of Object.entries(plain(state, '') as Record<string, unknown>)) {
    if (items && hasStateEntries(raw)) {
      const name = JSON.stringify(key);
      let n = 0;
      raw.forEachStateEntry((k, v) => {
        const text = JSON.stringify(v);
        if (text === undefined) return;
        put(`["o",${name},${JSON.stringify(k)},${text}]`);
        n++;
      });
      if (n === 0) put(`["m",${name},{}]`);
      continue;
    }
    const value = plain(raw, key);
    // As JSON.stringify leaves them out.
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    const name = JSON.stringify(key);
    if (!items) {
      put(`["m",${name},${JSON.stringify(value)}]`);
      continue;
    }
    let n = 0;
    if (Array.isArray(value)) {
      // An item JSON leaves out (undefined, a function) is null in an array, as JSON.stringify writes it.
      for (const item of value) {
        put(`["a",${name},${JSON.stringify(item) ?? 'null'}]`);
        n++;
      }
      if (n === 0) put(`["m",${name},[]]`);
      continue;
    }
    if (isPlainObject(value)) {
      for (const k of Object.keys(value)) {
        const v = JSON.stringify(value[k]);
        if (v === undefined) continue;
        put(`["o",${name},${JSON.stringify(k)},${v}]`);
        n++;
      }
      if (n === 0) put(`["m",${name},{}]`);
      continue;
    }
    put(`["m",${name},${JSON.stringify(value)}]`);
  }
  put(`["end",${lines + 1}]`);
  return out;
}

/** Reads a state file's text: whole, or as much of it as can be trusted. */
export function readState(text: string): ReadState {
  if (text.trim() === '')
    return { value: undefined, damage: 'the file is empty', kept: [], lost: ['everything'] };
  return isSealed(text) || text.startsWith(HEADER) ? readSealed(text) : readLegacy(text);
}

type Place = { key: string; kind: 'm' | 'a' | 'o' } | undefined;

/** One sealed line as a record, or undefined when it cannot be trusted. */
function recordOf(line: string): unknown[] | undefined {
  const body = openLine(line);
  if (body === undefined) return undefined;
  try {
    const rec = JSON.parse(body) as unknown;
    return Array.isArray(rec) ? rec : body === HEADER ? ['header'] : undefined;
  } catch {
    return undefined;
  }
}

function readSealed(text: string): ReadState {
  const out: Record<string, unknown> = {};
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  let ended = false;
  let after = 0;
  /** Where each line's record went (undefined: damaged), to name what a damaged line most likely held. */
  const places: (Place | null)[] = [];
  for (let i = 0; i < lines.length; i++) {
    const rec = recordOf(lines[i]!);
    if (ended) {
      after++;
      continue;
    }
    if (rec === undefined) {
      places.push(null);
      continue;
    }
    if (rec[0] === 'header' && i === 0) {
      places.push(undefined);
      continue;
    }
    if (rec[0] === 'end') {
      // The line count written with it: lines lost from the middle are noticed too.
      if (rec[1] !== i + 1) places.push(null);
      ended = true;
      continue;
    }
    const key = rec[1];
    const kind = rec[0];
    if (typeof key !== 'string' || (kind !== 'm' && kind !== 'a' && kind !== 'o')) {
      places.push(null);
      continue;
    }
    if (kind === 'm' && rec.length === 3) out[key] = rec[2];
    else if (kind === 'a' && rec.length === 3 && (out[key] === undefined || Array.isArray(out[key])))
      ((out[key] ??= []) as unknown[]).push(rec[2]);
    else if (
      kind === 'o' &&
      rec.length === 4 &&
      typeof rec[2] === 'string' &&
      (out[key] === undefined || isPlainObject(out[key]))
    )
      ((out[key] ??= {}) as Record<string, unknown>)[rec[2]] = rec[3];
    else {
      places.push(null);
      continue;
    }
    places.push({ key, kind });
  }
  // Cut short: the last line read may be the one cut in the middle; it is part of the cut, not a damaged line.
  if (!ended && places.at(-1) === null) places.pop();
  const lost: string[] = [];
  const byMember = new Map<string, number>();
  let loose = 0;
  // The record after each line (one pass from the end), to name what a damaged line most likely held.
  const nextOf: (Place | undefined)[] = new Array<Place | undefined>(places.length);
  let seenNext: Place | undefined;
  for (let i = places.length - 1; i >= 0; i--) {
    nextOf[i] = seenNext;
    seenNext = places[i] ?? seenNext;
  }
  let before: Place | undefined;
  places.forEach((p, i) => {
    if (p !== null) {
      before = p ?? before;
      return;
    }
    // Between two records of one list or map (or after its last one, before the end): most likely one of its items.
    const next = nextOf[i];
    if (before && before.kind !== 'm' && (next === undefined || next.key === before.key))
      byMember.set(before.key, (byMember.get(before.key) ?? 0) + 1);
    else loose++;
  });
  for (const [key, n] of byMember) lost.push(`${counted(n, 'unreadable item')} of ${key}`);
  if (loose > 0) lost.push(counted(loose, 'unreadable line'));
  if (!ended) lost.push('whatever followed the cut');
  if (ended && after === 0 && lost.length === 0) return { value: out, damage: undefined, kept: [], lost: [] };
  if (!ended) return described(out, 'the file is cut short', lost);
  if (lost.length > 0) return described(out, 'some lines are unreadable', lost);
  return described(out, 'unreadable text after the state', ['nothing of the state']);
}

/** Reads a file of an older version (JSON, no seals): whole, or as much of it as can be trusted. */
function readLegacy(text: string): ReadState {
  if (text.trim() === '')
    return { value: undefined, damage: 'the file is empty', kept: [], lost: ['everything'] };
  let whole: unknown;
  try {
    whole = JSON.parse(text);
  } catch {
    return /^\{\r?\n/.test(text) ? readLines(text) : readPrefix(text);
  }
  if (isPlainObject(whole)) return { value: whole, damage: undefined, kept: [], lost: [] };
  return { value: undefined, damage: 'it holds no state object', kept: [], lost: ['everything'] };
}

/** What a container read so far holds. */
interface Partial {
  key: string;
  array: boolean;
  items: unknown[];
  members: Record<string, unknown>;
  lost: number;
}

const NAME = /^("(?:[^"\\]|\\.)*"):([[{])$/;

/** One `"name":value` member, or undefined. */
function member(line: string): [string, unknown] | undefined {
  try {
    const o = JSON.parse(`{${line}}`) as Record<string, unknown>;
    const keys = Object.keys(o);
    return keys.length === 1 ? [keys[0]!, o[keys[0]!]] : undefined;
  } catch {
    return undefined;
  }
}

/** The name a damaged member line starts with, when it can be made out. */
function nameOf(line: string): string | undefined {
  const m = /^("(?:[^"\\]|\\.)*"):/.exec(line);
  try {
    return m ? (JSON.parse(m[1]!) as string) : undefined;
  } catch {
    return undefined;
  }
}

/** The layout this version writes, read line by line. */
function readLines(text: string): ReadState {
  const out: Record<string, unknown> = {};
  const lost: string[] = [];
  const lines = text.split('\n').map((l) => l.trim());
  // The last non-empty line: when the file is cut it may be a value cut short that still parses (a number).
  let last = lines.length - 1;
  while (last > 0 && lines[last] === '') last--;
  let open: Partial | undefined;
  let closed = false;
  let unreadable = 0;
  const unreadableNames: string[] = [];
  const finish = (p: Partial): void => {
    out[p.key] = p.array ? p.items : p.members;
    if (p.lost > 0) lost.push(`${counted(p.lost, 'unreadable item')} of ${p.key}`);
  };
  for (let i = 1; i <= last && !closed; i++) {
    const raw = lines[i]!;
    if (raw === '') continue;
    // A line without its comma, at the end of a file that does not close, may be cut short: not trusted.
    const trusted = raw.endsWith(',') || i < last;
    const line = raw.endsWith(',') ? raw.slice(0, -1) : raw;
    if (open) {
      if (line === (open.array ? ']' : '}')) {
        finish(open);
        open = undefined;
        continue;
      }
      if (!trusted) {
        open.lost++;
        continue;
      }
      if (open.array) {
        try {
          open.items.push(JSON.parse(line));
        } catch {
          open.lost++;
        }
      } else {
        const m = member(line);
        if (m) open.members[m[0]] = m[1];
        else open.lost++;
      }
      continue;
    }
    if (line === '}') {
      closed = true;
      continue;
    }
    const start = NAME.exec(line);
    if (start) {
      open = {
        key: JSON.parse(start[1]!) as string,
        array: start[2] === '[',
        items: [],
        members: {},
        lost: 0,
      };
      continue;
    }
    const m = trusted ? member(line) : undefined;
    if (m) out[m[0]] = m[1];
    else {
      unreadable++;
      const name = nameOf(line);
      if (name !== undefined) unreadableNames.push(name);
    }
  }
  if (open) finish(open);
  if (unreadable > 0)
    lost.push(
      `${counted(unreadable, 'unreadable value')}${unreadableNames.length > 0 ? ` (${unreadableNames.join(', ')})` : ''}`,
    );
  if (!closed) lost.push('whatever followed the cut');
  return described(out, closed ? 'some lines are unreadable' : 'the file is cut short', lost);
}

/**
 * A file of an older version (the state on one line), read up to the first damage: members complete before it,
 * and the complete items of the member it falls in.
 */
function readPrefix(text: string): ReadState {
  const out: Record<string, unknown> = {};
  const lost: string[] = [];
  const s = new Scan(text);
  if (s.peek() !== '{') return described(out, 'it is not JSON', ['everything']);
  s.i++;
  for (;;) {
    const key = s.string();
    if (key === undefined || !s.take(':')) break;
    const c = s.peek();
    if (c === '[' || c === '{') {
      const p: Partial = { key, array: c === '[', items: [], members: {}, lost: 0 };
      s.i++;
      const whole = s.items(p);
      out[key] = p.array ? p.items : p.members;
      if (!whole) {
        lost.push(`the rest of ${key}`);
        break;
      }
    } else {
      const end = s.valueEnd(s.i);
      if (end < 0) break;
      try {
        out[key] = JSON.parse(text.slice(s.i, end));
      } catch {
        break;
      }
      s.i = end;
    }
    if (s.take(',')) continue;
    if (s.take('}')) return described(out, 'unreadable text after the state', ['nothing of the state']);
    break;
  }
  lost.push('whatever followed the damage');
  return described(out, 'the file is cut short or damaged', lost);
}

/** A cursor over JSON text that stops, never throws, at anything it cannot read. */
class Scan {
  i = 0;
  constructor(private readonly t: string) {}

  peek(): string | undefined {
    while (this.i < this.t.length && /\s/.test(this.t[this.i]!)) this.i++;
    return this.t[this.i];
  }

  take(c: string): boolean {
    if (this.peek() !== c) return false;
    this.i++;
    return true;
  }

  /** A JSON string at the cursor, or undefined. */
  string(): string | undefined {
    if (this.peek() !== '"') return undefined;
    const end = this.valueEnd(this.i);
    if (end < 0) return undefined;
    try {
      const v = JSON.parse(this.t.slice(this.i, end)) as string;
      this.i = end;
      return v;
    } catch {
      return undefined;
    }
  }

  /** The end of a number or literal: only where a delimiter follows it (a cut `12` of `1234` is not taken). */
  scalarEnd(): number {
    const m = /^[^\s,\]}]+/.exec(this.t.slice(this.i, this.i + 64));
    if (!m) return -1;
    const end = this.i + m[0].length;
    return end < this.t.length ? end : -1;
  }

  /** The end of the value starting at `from` (strings and brackets balanced, content not checked), or -1. */
  valueEnd(from: number): number {
    const t = this.t;
    const first = t[from];
    if (first !== '"' && first !== '[' && first !== '{') {
      const save = this.i;
      this.i = from;
      const end = this.scalarEnd();
      this.i = save;
      return end;
    }
    let depth = 0;
    for (let i = from; i < t.length; i++) {
      const c = t[i];
      if (c === '"') {
        for (i++; i < t.length && t[i] !== '"'; i++) if (t[i] === '\\') i++;
        if (i >= t.length) return -1;
        if (depth === 0) return i + 1;
      } else if (c === '[' || c === '{') depth++;
      else if (c === ']' || c === '}') {
        if (--depth === 0) return i + 1;
      }
    }
    return -1;
  }

  /** The items of the container just opened, into `p`; true when it closed as it should. */
  items(p: Partial): boolean {
    if (this.take(p.array ? ']' : '}')) return true;
    for (;;) {
      let name: string | undefined;
      if (!p.array) {
        name = this.string();
        if (name === undefined || !this.take(':')) return false;
      }
      this.peek();
      const end = this.valueEnd(this.i);
      if (end < 0) return false;
      let v: unknown;
      try {
        v = JSON.parse(this.t.slice(this.i, end));
      } catch {
        return false;
      }
      this.i = end;
      if (p.array) p.items.push(v);
      else p.members[name!] = v;
      if (this.take(',')) continue;
      return this.take(p.array ? ']' : '}');
    }
  }
}

/** Names what was kept of each member. */
function described(out: Record<string, unknown>, damage: string, lost: string[]): ReadState {
  const kept = Object.entries(out).map(([k, v]) =>
    Array.isArray(v)
      ? `${k} (${counted(v.length, 'item')})`
      : isPlainObject(v)
        ? `${k} (${counted(Object.keys(v).length, 'entry', 'entries')})`
        : k,
  );
  return {
    value: kept.length > 0 ? out : undefined,
    damage,
    kept,
    lost: lost.length > 0 ? lost : ['nothing'],
  };
}
