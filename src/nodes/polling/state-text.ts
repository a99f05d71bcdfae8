/**
 * The text of a state file, and what can be read back from a damaged one (issue 19 §4).
 *
 * Written as JSON laid out one value per line: each member of the top-level object on its own line, and the
 * items of a top-level array or object (pending records, seen ids, tracked jobs) one per line:
 *
 *   {
 *   "cursor":"2026-01-02T03:04:05.000Z",
 *   "pending":[
 *   {"payload":{...},"topic":"+49..."},
 *   {"payload":{...},"topic":"+49..."}
 *   ],
 *   "seen":[]
 *   }
 *
 * JSON.parse reads it as usual. A file that JSON.parse refuses (cut short, garbage written into it) is read line
 * by line: every line that still parses is kept, so one bad line costs one record, not the file. A file of an
 * older version (one line) is read up to the first damage: the members and items complete before it are kept.
 * Only whole items are kept, never a record cut in the middle.
 */

import { counted } from '../../count';

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

/** A value as JSON.stringify sees it (its toJSON applied: a Date, a Map-backed set of seen ids). */
function plain(value: unknown, key: string): unknown {
  const toJSON = (value as { toJSON?: unknown } | null | undefined)?.toJSON;
  return typeof toJSON === 'function' ? (toJSON as (k: string) => unknown).call(value, key) : value;
}

/** The state as a state file holds it (see above). */
export function stateText(state: object): string {
  const members: Array<[string, unknown]> = [];
  for (const [key, raw] of Object.entries(plain(state, '') as Record<string, unknown>)) {
    const value = plain(raw, key);
    // As JSON.stringify leaves them out.
    if (value !== undefined && typeof value !== 'function' && typeof value !== 'symbol')
      members.push([key, value]);
  }
  let out = '{\n';
  members.forEach(([key, value], i) => {
    const comma = i < members.length - 1 ? ',' : '';
    const name = JSON.stringify(key);
    const array = Array.isArray(value);
    const items = array ? (value as unknown[]) : isPlainObject(value) ? Object.keys(value) : undefined;
    if (items === undefined || items.length === 0) {
      out += `${name}:${JSON.stringify(value)}${comma}\n`;
      return;
    }
    out += `${name}:${array ? '[' : '{'}\n`;
    const last = items.length - 1;
    if (array)
      // An item JSON leaves out (undefined, a function) is null in an array, as JSON.stringify writes it.
      for (let j = 0; j <= last; j++) out += `${JSON.stringify(items[j]) ?? 'null'}${j < last ? ',' : ''}\n`;
    else {
      const o = value as Record<string, unknown>;
      let first = true;
      for (let j = 0; j <= last; j++) {
        const k = items[j] as string;
        const v = JSON.stringify(o[k]);
        if (v === undefined) continue;
        out += `${first ? '' : ',\n'}${JSON.stringify(k)}:${v}`;
        first = false;
      }
      out += '\n';
    }
    out += `${array ? ']' : '}'}${comma}\n`;
  });
  return out + '}\n';
}

/** Reads a state file's text: whole, or as much of it as can be trusted. */
export function readState(text: string): ReadState {
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
