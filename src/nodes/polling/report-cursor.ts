/**
 * Reading new delivery reports (QueryReceivedDLR) with a StartDate cursor, shared by the delivery-reports
 * trigger and the send nodes' delivery tracker. The cursor moves with the newest report seen; each poll re-reads
 * a short overlap (late reports) and drops what it already handed on by report Id; full pages are followed at
 * once. Nothing here imports Node-RED.
 */
import type { SMSReport } from '../../client/types.generated';
import { isDate, timeOf as dateTime } from '../../shape';
import type { StateEntries } from '../../store/state-text';

export const PAGE_LIMIT = 5000;
/** Reports may be written with a date slightly before ones already read; re-read this much. */
export const OVERLAP_MS = 60_000;
/** Pages followed in one poll before yielding to the next interval. */
const MAX_PAGES = 20;

export interface ReportCursor {
  /** ISO date of the newest report seen. */
  cursor: string | null;
  /**
   * Report ids handed on recently, with their report date (ms), pruned to the overlap window: a SeenReports
   * between polls, a plain `{ id: ms }` object as saved and read back (JSON.stringify writes the one as the other).
   */
  seen: SeenReports | Record<string, number>;
}

/** An array index: the keys an object lists first, ascending. */
const isIndex = (id: SeenKey): id is number =>
  typeof id === 'number' && Number.isInteger(id) && id >= 0 && id <= 4294967294;

/** An id as the cursor keeps it: an integer Id as the number, any other as text built from the whole report. */
type SeenKey = number | string;

/**
 * The ids of a cursor kept as a Map between polls (saved as the same `{ id: ms }` object as before). Rebuilding
 * a Map from the saved object and the object from the Map on every poll took 15-20% of a 5,000-report page
 * (V8 keeps 5,000-10,000 integer-like keys as dictionary elements); integer Ids are kept as numbers, so no
 * string is made or hashed per report. Never changed once made: a poll reads it and makes a new one (a failed
 * poll, or one whose msgs were not all handed on, leaves the state it started from as it was).
 */
export class SeenReports implements StateEntries {
  constructor(readonly ids: ReadonlyMap<SeenKey, number>) {}

  get size(): number {
    return this.ids.size;
  }

  /** The saved shape: `{ "<id>": <report date ms> }`. */
  toJSON(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [id, at] of this.ids) out[id] = at;
    return out;
  }

  /**
   * The entries of toJSON's object in its order, without making it (a state file writes them a line each:
   * src/store/state-text.ts). An object lists integer keys up to 2^32 - 2 first, ascending, then the others in
   * the order they were added; ids come in ascending as a rule, so this is one pass over the Map.
   */
  forEachStateEntry(visit: (key: string, at: number) => void): void {
    let last = -1;
    let inOrder = true;
    for (const id of this.ids.keys()) {
      if (!isIndex(id) || id <= last) {
        inOrder = false;
        break;
      }
      last = id;
    }
    if (inOrder) {
      for (const [id, at] of this.ids) visit(String(id), at);
      return;
    }
    const index: number[] = [];
    for (const id of this.ids.keys()) if (isIndex(id)) index.push(id);
    index.sort((a, b) => a - b);
    for (const id of index) visit(String(id), this.ids.get(id)!);
    for (const [id, at] of this.ids) if (!isIndex(id)) visit(String(id), at);
  }

  /** A state's ids: a SeenReports' own Map (never changed), or a new one read from a saved object. */
  static idsOf(seen: ReportCursor['seen'] | undefined): ReadonlyMap<SeenKey, number> {
    return seen instanceof SeenReports ? seen.ids : SeenReports.copy(seen);
  }

  /** A state's ids as a new Map (a saved object is read back: its integer-like keys become numbers again). */
  static copy(seen: ReportCursor['seen'] | undefined): Map<SeenKey, number> {
    if (seen instanceof SeenReports) return new Map(seen.ids);
    const map = new Map<SeenKey, number>();
    for (const key of Object.keys(seen ?? {})) {
      const n = Number(key);
      map.set(Number.isInteger(n) && String(n) === key ? n : key, (seen as Record<string, number>)[key]!);
    }
    return map;
  }
}

export interface ReadReports {
  /** Where a cursor that was never saved starts: this many ms before `now`. */
  lookbackMs: number;
  now: number;
  query(start: Date, limit: number): Promise<SMSReport[]>;
  /** The reports of one page not handed on before, in the gateway's order. */
  onPage(fresh: SMSReport[]): void;
  /**
   * Reports whose Id is not an integer (kept as raw text by the tolerant decoder): the cursor cannot tell them
   * apart by Id, so they are remembered by their content and, when this is given, handed here instead of to
   * onPage (once each). Without it they go to onPage like the others.
   */
  onUnusable?(reports: SMSReport[]): void;
  /** A full page all at one instant: StartDate cannot reach past it, so the walk steps over that instant. */
  onSameInstant?(start: number): void;
  /** Checked after each page: when it is true the walk stops and nothing is to be saved. */
  aborted?(): boolean;
}

const timeOf = (d: unknown): number | undefined =>
  isDate(d) && !Number.isNaN(dateTime(d)) ? dateTime(d) : undefined;

/** One poll: the cursor state to save afterwards, or undefined when it was aborted. */
export async function readNewReports(state: ReportCursor, r: ReadReports): Promise<ReportCursor | undefined> {
  // The ids of the state as they are (never changed: the state stays as it was if this poll is not taken up),
  // and the ids this poll adds; no copy of the first per poll.
  const before = SeenReports.idsOf(state.seen);
  const added = new Map<SeenKey, number>();
  const saved = state.cursor ? Date.parse(state.cursor) : NaN;
  let cursor = Number.isNaN(saved) ? r.now - r.lookbackMs : saved;
  let start = Number.isNaN(saved) ? cursor : cursor - OVERLAP_MS;
  for (let page = 0; page < MAX_PAGES; page++) {
    const reports = await r.query(new Date(start), PAGE_LIMIT);
    if (r.aborted?.()) return undefined;
    let newest = start;
    const fresh: SMSReport[] = [];
    const unusable: SMSReport[] = [];
    for (const report of reports) {
      const at = timeOf(report.Date) ?? cursor;
      newest = Math.max(newest, at);
      const usable = Number.isInteger(report.Id);
      const id: SeenKey = usable ? (report.Id as number) : `odd:${JSON.stringify(report)}`;
      if (added.has(id) || before.has(id)) continue;
      added.set(id, at);
      if (usable || !r.onUnusable) fresh.push(report);
      else unusable.push(report);
    }
    r.onPage(fresh);
    if (unusable.length > 0) r.onUnusable?.(unusable);
    cursor = Math.max(cursor, newest);
    if (reports.length < PAGE_LIMIT) break;
    if (newest <= start) {
      r.onSameInstant?.(start);
      start += 1;
      cursor = Math.max(cursor, start);
    } else start = newest;
  }
  const seen = inWindow(before, added, cursor - OVERLAP_MS);
  return { cursor: new Date(cursor).toISOString(), seen: new SeenReports(seen) };
}

/**
 * The ids reported at or after `keepFrom`: those seen before, then those added, each in the order they came.
 * When none seen before is kept (a poll interval longer than the overlap, as a rule), the ids added are it.
 */
function inWindow(
  before: ReadonlyMap<SeenKey, number>,
  added: Map<SeenKey, number>,
  keepFrom: number,
): Map<SeenKey, number> {
  let kept: Map<SeenKey, number> | undefined;
  for (const [id, at] of before) {
    if (at < keepFrom) continue;
    (kept ??= new Map()).set(id, at);
  }
  if (kept === undefined) {
    for (const [id, at] of added) if (at < keepFrom) added.delete(id);
    return added;
  }
  for (const [id, at] of added) if (!(at < keepFrom)) kept.set(id, at);
  return kept;
}
