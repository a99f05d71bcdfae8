/**
 * The opt-out list of one gateway configuration as data (no Node-RED, no disk, no Redis): numbers by their key
 * (ask/numbers.ts numberKey: the digits in international form), each on the list (opted out) or off it again, since
 * when, from where and by whom; the log of the last changes; whether the list was lost. The file store
 * (store-file.ts) keeps it as it is; under Redis it is each instance's copy of the shared list (store-redis.ts).
 *
 * One comparison everywhere: a recipient is refused when its key is on the list. A national number ("0170...")
 * stays national when the configuration has no Default country (numberKey cannot tell its country); such a key
 * and an international one are taken to be the same number when one ends with the other's digits after the 0
 * with a country code of one to three digits in front: "01701234567" matches "491701234567". Where that joins two
 * numbers of different countries, a send is refused that could have gone: the safe side of an opt-out.
 */

export type OptSource = 'reply' | 'import' | 'flow' | 'editor';
export const OPT_SOURCES: readonly OptSource[] = ['reply', 'import', 'flow', 'editor'];

/** One number on the list (or off it again). */
export interface OptEntry {
  /** On the list: nothing is sent to it. False: it opted in again (kept so the export says when and how). */
  readonly out: boolean;
  /** When it went on (or off) the list, ms. */
  readonly since: number;
  readonly source: OptSource;
  /** Who: the node or editor user of the change, the file of an import (short text). */
  readonly by?: string;
}

/** One change, as the log keeps it (newest last). */
export interface OptChange {
  readonly at: number;
  readonly key: string;
  readonly action: 'added' | 'removed';
  readonly source: OptSource;
  readonly by?: string;
}

/** The list was lost (a file that should be there and is not, a damaged one, Redis emptied): until confirmed. */
export interface ListLost {
  readonly why: string;
  readonly where: string;
  readonly since: number;
}

export interface ListConfirmed {
  readonly by: string;
  readonly at: number;
}

/** A change asked for: the number's key, on or off, and where it comes from. */
export interface ChangeRequest {
  readonly key: string;
  readonly out: boolean;
  readonly source: OptSource;
  readonly by?: string;
  /** When it happened (an import keeps the time in its file); default: now. */
  readonly since?: number;
  /** How the change came (the log's source) when it differs from the entry's: an import keeps a STOP's "reply". */
  readonly via?: OptSource;
}

/** Changes kept in the log (older ones go). */
export const MAX_LOG = 1000;
/** Numbers kept off the list (opted in again) at most: the oldest go. Numbers on the list are never dropped. */
export const MAX_OPTED_IN = 10_000;
/** Longest "by" kept. */
const BY_MAX = 80;
/** How long an answer to a keyword keeps another one from going to the same number. */
export const ANSWER_EVERY_MS = 86_400_000;

/** A key as people read it: +<digits>, or the national digits as they came. */
export const numberOfKey = (key: string): string => (key.startsWith('0') ? key : `+${key}`);

/** A key the list can hold: digits only (an alphanumeric sender cannot be sent to anyway). */
export const isListKey = (key: string): boolean => /^\d{3,20}$/.test(key);

/** A number shown in a log line: the country code and first digits, the last two, the rest hidden. */
export function maskNumber(key: string): string {
  const n = numberOfKey(key);
  if (n.length <= 6) return n;
  return `${n.slice(0, 5)}${'*'.repeat(n.length - 7)}${n.slice(-2)}`;
}

const bump = (m: Map<string, number>, k: string, d: number): void => {
  const n = (m.get(k) ?? 0) + d;
  if (n > 0) m.set(k, n);
  else m.delete(k);
};

/** The keys an entry stands for besides its own (see the top: national and international forms). */
function looseKeys(key: string): { nationals: string[]; tails: string[] } {
  if (key.startsWith('0')) return { nationals: [key.slice(1)], tails: [] };
  const tails: string[] = [];
  for (let i = 1; i <= 3 && key.length - i >= 6; i++) tails.push(key.slice(i));
  return { nationals: [], tails };
}

const cut = (by: string | undefined): string | undefined =>
  by === undefined || by === '' ? undefined : by.length > BY_MAX ? `${by.slice(0, BY_MAX - 1)}…` : by;

export class OptOutBook {
  private readonly byKey = new Map<string, OptEntry>();
  /** National digits (without the 0) of national keys on the list. */
  private readonly nationals = new Map<string, number>();
  /** International keys on the list without their first one to three digits. */
  private readonly tails = new Map<string, number>();
  private optedIn = 0;
  log: OptChange[] = [];
  lost: ListLost | undefined;
  confirmed: ListConfirmed | undefined;
  /** Key -> when the last answer to a keyword went to it (file store). */
  answered = new Map<string, number>();

  get size(): number {
    return this.byKey.size;
  }

  /** Numbers on the list now. */
  get count(): number {
    return this.byKey.size - this.optedIn;
  }

  get(key: string): OptEntry | undefined {
    return this.byKey.get(key);
  }

  /** The entry that keeps `key` from being sent to (its own, or the other form of the same number), if any. */
  refusing(key: string): OptEntry | undefined {
    const own = this.byKey.get(key);
    if (own) return own.out ? own : undefined;
    if (!isListKey(key)) return undefined;
    if (this.nationals.size === 0 && this.tails.size === 0) return undefined;
    if (key.startsWith('0')) {
      if (!this.tails.has(key.slice(1))) return undefined;
      for (const [k, e] of this.byKey) if (e.out && !k.startsWith('0') && k.endsWith(key.slice(1))) return e;
      return undefined;
    }
    for (let i = 1; i <= 3; i++) {
      const national = `0${key.slice(i)}`;
      const e = this.nationals.has(key.slice(i)) ? this.byKey.get(national) : undefined;
      if (e?.out) return e;
    }
    return undefined;
  }

  /** Every entry, in the order they were made (the export's order). */
  entries(): [string, OptEntry][] {
    return [...this.byKey];
  }

  /** Sets a number's entry (and keeps the indexes); a number off the list beyond MAX_OPTED_IN drops the oldest. */
  set(key: string, entry: OptEntry): void {
    const before = this.byKey.get(key);
    if (before) this.unindex(key, before);
    // Re-inserted: the newest change is last in the map's order.
    this.byKey.delete(key);
    const e: OptEntry = { out: entry.out, since: entry.since, source: entry.source, by: cut(entry.by) };
    if (e.by === undefined) delete (e as { by?: string }).by;
    this.byKey.set(key, e);
    this.index(key, e);
    if (this.optedIn > MAX_OPTED_IN) {
      for (const [k, old] of this.byKey) {
        if (old.out) continue;
        this.unindex(k, old);
        this.byKey.delete(k);
        if (this.optedIn <= MAX_OPTED_IN) break;
      }
    }
  }

  /** Applies a change: the entry set and the change logged (older log lines go). */
  apply(req: ChangeRequest, at: number): OptChange {
    const entry: OptEntry = { out: req.out, since: req.since ?? at, source: req.source, by: cut(req.by) };
    this.set(req.key, entry);
    const change: OptChange = {
      at,
      key: req.key,
      action: req.out ? 'added' : 'removed',
      source: req.via ?? req.source,
      ...(entry.by !== undefined ? { by: entry.by } : {}),
    };
    this.note(change);
    return change;
  }

  /** A change made elsewhere (another instance) into the log. */
  note(change: OptChange): void {
    this.log.push(change);
    if (this.log.length > MAX_LOG) this.log.splice(0, this.log.length - MAX_LOG);
  }

  /** Answers to keywords older than a day are forgotten. */
  pruneAnswered(now: number): void {
    for (const [k, at] of this.answered)
      if (!(at > now - ANSWER_EVERY_MS && at <= now)) this.answered.delete(k);
  }

  private index(key: string, e: OptEntry): void {
    if (!e.out) {
      this.optedIn += 1;
      return;
    }
    const { nationals, tails } = looseKeys(key);
    for (const n of nationals) bump(this.nationals, n, 1);
    for (const t of tails) bump(this.tails, t, 1);
  }

  private unindex(key: string, e: OptEntry): void {
    if (!e.out) {
      this.optedIn -= 1;
      return;
    }
    const { nationals, tails } = looseKeys(key);
    for (const n of nationals) bump(this.nationals, n, -1);
    for (const t of tails) bump(this.tails, t, -1);
  }

  /** The stored form (file store): one line per entry and per change (state-text.ts). */
  toJSON(): StoredBook {
    const entries: Record<string, StoredEntry> = {};
    for (const [k, e] of this.byKey) entries[k] = storedEntry(e);
    const answered: Record<string, number> = {};
    for (const [k, at] of this.answered) answered[k] = at;
    return {
      version: 1,
      entries,
      log: this.log.map(storedChange),
      answered,
      ...(this.lost ? { lost: this.lost } : {}),
      ...(this.confirmed ? { confirmed: this.confirmed } : {}),
    };
  }

  /**
   * A book read back from its stored form. Values that are not what this version writes are left out and
   * counted (`odd`): the caller treats a list with odd values as damaged (someone may be missing from it).
   */
  static from(data: unknown): { book: OptOutBook; odd: number } {
    const book = new OptOutBook();
    let odd = 0;
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return { book, odd: 1 };
    const d = data as Partial<Record<keyof StoredBook, unknown>>;
    if (d.version !== 1) odd += 1;
    const entries = isObject(d.entries) ? d.entries : {};
    if (!isObject(d.entries)) odd += 1;
    for (const [k, v] of Object.entries(entries)) {
      const e = entryOf(v);
      if (e && isListKey(k)) book.set(k, e);
      else odd += 1;
    }
    if (Array.isArray(d.log))
      for (const c of d.log) {
        const change = changeOf(c);
        if (change) book.note(change);
      }
    if (isObject(d.answered))
      for (const [k, at] of Object.entries(d.answered))
        if (typeof at === 'number' && Number.isFinite(at)) book.answered.set(k, at);
    const lost = lostOf(d.lost);
    if (lost) book.lost = lost;
    if (isObject(d.confirmed) && typeof d.confirmed.by === 'string' && typeof d.confirmed.at === 'number')
      book.confirmed = { by: d.confirmed.by, at: d.confirmed.at };
    return { book, odd };
  }
}

/** An entry as stored: o (1 on the list, 0 off), t (since, ms), s (source), b (by). */
export interface StoredEntry {
  o: 0 | 1;
  t: number;
  s: OptSource;
  b?: string;
}

/** A change as stored: t (at), k (key), a (+ added, - removed), s (source), b (by). */
export interface StoredChange {
  t: number;
  k: string;
  a: '+' | '-';
  s: OptSource;
  b?: string;
}

export interface StoredBook {
  version: 1;
  entries: Record<string, StoredEntry>;
  log: StoredChange[];
  answered: Record<string, number>;
  lost?: ListLost;
  confirmed?: ListConfirmed;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const isSource = (v: unknown): v is OptSource => OPT_SOURCES.includes(v as OptSource);

export const storedEntry = (e: OptEntry): StoredEntry => ({
  o: e.out ? 1 : 0,
  t: e.since,
  s: e.source,
  ...(e.by !== undefined ? { b: e.by } : {}),
});

export function entryOf(v: unknown): OptEntry | undefined {
  if (!isObject(v) || (v.o !== 0 && v.o !== 1) || !isTime(v.t) || !isSource(v.s)) return undefined;
  if (v.b !== undefined && typeof v.b !== 'string') return undefined;
  return { out: v.o === 1, since: v.t, source: v.s, ...(typeof v.b === 'string' ? { by: v.b } : {}) };
}

export const storedChange = (c: OptChange): StoredChange => ({
  t: c.at,
  k: c.key,
  a: c.action === 'added' ? '+' : '-',
  s: c.source,
  ...(c.by !== undefined ? { b: c.by } : {}),
});

export function changeOf(v: unknown): OptChange | undefined {
  if (!isObject(v) || !isTime(v.t) || typeof v.k !== 'string' || !isListKey(v.k)) return undefined;
  if ((v.a !== '+' && v.a !== '-') || !isSource(v.s)) return undefined;
  return {
    at: v.t,
    key: v.k,
    action: v.a === '+' ? 'added' : 'removed',
    source: v.s,
    ...(typeof v.b === 'string' ? { by: v.b } : {}),
  };
}

export function lostOf(v: unknown): ListLost | undefined {
  if (!isObject(v) || typeof v.why !== 'string' || typeof v.where !== 'string' || !isTime(v.since))
    return undefined;
  return { why: v.why, where: v.where, since: v.since };
}
