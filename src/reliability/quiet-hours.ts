/**
 * Quiet hours (framework-free): a daily window of local time, e.g. 21:00-08:00 in Europe/Berlin, in which messages
 * to people are held instead of sent. This module answers one question: from when may a message go out, given the
 * windows of its recipients' time zones. Local time comes from Intl (the ICU time zone data Node ships), so a day
 * with a clock change is handled as the people there live it: a window that ends at a time the clock skips ends at
 * the first moment after it, one that ends at a time that comes twice ends at the first of them.
 */

/** One window: minutes of the local day it starts and ends at (start > end: it spans midnight), in `zone`. */
export interface QuietWindow {
  /** Minutes after local midnight (0-1439). */
  readonly start: number;
  readonly end: number;
  /** An IANA time zone name (Europe/Berlin). */
  readonly zone: string;
}

const MINUTE = 60_000;
const DAY_MINUTES = 1440;
/** How far ahead a common open time of several zones is looked for: none within it is "never". */
export const OPEN_HORIZON_MS = 2 * 24 * 3_600_000;

/** "21:00" or "8:00" as minutes after midnight; undefined for anything else ("24:00", "8", "21:60"). */
export function clockMinutes(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const m = /^\s*(\d{1,2}):(\d{2})\s*$/.exec(text);
  if (!m) return undefined;
  const h = Number(m[1]);
  const min = Number(m[2]);
  return h < 24 && min < 60 ? h * 60 + min : undefined;
}

/** Whether Intl knows `name` as a time zone (IANA names such as Europe/Berlin, and UTC). */
export function isTimeZone(name: unknown): boolean {
  if (typeof name !== 'string' || name.trim() === '') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name.trim() });
    return true;
  } catch {
    return false;
  }
}

/** The time zone of the Node-RED host (what a window without a zone uses). */
export function hostZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** One formatter per zone: made once (about 30 µs each), asked for every message. At most the zones Intl has. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** The local wall-clock time at instant `t` in `zone`, as the ms of that date and time read as UTC. */
export function wallTime(t: number, zone: string): number {
  return t + offsetAt(t, zone);
}

/**
 * Offsets change on a quarter hour at most (every tzdata rule since 1970): they are kept per zone and quarter, a
 * few hundred per zone at most (the quarters a day of messages asks about: now, and the ends of windows).
 */
const QUARTER = 15 * MINUTE;
const QUARTERS_MAX = 256;
const offsets = new Map<string, Map<number, number>>();

/** The zone's offset from UTC at instant `t` (ms), read with Intl once per zone and quarter of an hour. */
function offsetAt(t: number, zone: string): number {
  const quarter = Math.floor(t / QUARTER);
  let known = offsets.get(zone);
  const cached = known?.get(quarter);
  if (cached !== undefined) return cached;
  const at = quarter * QUARTER;
  const parts = formatter(zone).formatToParts(new Date(at));
  const v: Record<string, number> = {};
  for (const p of parts) if (p.type !== 'literal') v[p.type] = Number(p.value);
  const offset = Date.UTC(v.year!, v.month! - 1, v.day!, v.hour! % 24, v.minute!, v.second!) - at;
  if (!known || known.size >= QUARTERS_MAX) {
    known = new Map();
    offsets.set(zone, known);
  }
  known.set(quarter, offset);
  return offset;
}

const minuteOfDay = (wall: number): number =>
  Math.floor((((wall % 86_400_000) + 86_400_000) % 86_400_000) / MINUTE);

/** Whether local minute `m` lies in the window (its start included, its end not). */
export function inWindow(m: number, w: Pick<QuietWindow, 'start' | 'end'>): boolean {
  if (w.start === w.end) return false;
  return w.start < w.end ? m >= w.start && m < w.end : m >= w.start || m < w.end;
}

/**
 * The first instant after `after` at which the local time in `zone` reaches wall time `wall`: the instant itself
 * when it exists (the earlier one when it comes twice), else the moment the clock jumps past it.
 */
function instantOf(wall: number, zone: string, after: number): number {
  const offset = (t: number): number => wallTime(t, zone) - t;
  const c0 = wall - offset(after);
  const c1 = wall - offset(c0);
  const hits = [c0, c1, wall - offset(c1)].filter((c) => c > after && wallTime(c, zone) === wall);
  if (hits.length > 0) return Math.min(...hits);
  // The wall time is skipped (spring forward): the first instant whose local time is past it.
  let lo = Math.min(c0, c1);
  let hi = Math.max(c0, c1);
  if (wallTime(hi, zone) < wall) hi += 3_600_000 * 3;
  for (let i = 0; i < 40 && hi - lo > 1000; i++) {
    const mid = Math.floor((lo + hi) / 2);
    if (wallTime(mid, zone) >= wall) hi = mid;
    else lo = mid;
  }
  return Math.max(hi, after + 1);
}

/** When the window that holds instant `t` ends (an instant after `t`); undefined when `t` is outside it. */
export function quietUntil(t: number, w: QuietWindow): number | undefined {
  const wall = wallTime(t, w.zone);
  const m = minuteOfDay(wall);
  if (!inWindow(m, w)) return undefined;
  const delta = (w.end - m + DAY_MINUTES) % DAY_MINUTES;
  const target = wall - (((wall % MINUTE) + MINUTE) % MINUTE) + delta * MINUTE;
  return instantOf(target, w.zone, t);
}

/**
 * From when a message to recipients in these windows may go out: undefined when every window is open at `t`,
 * the first instant at which all of them are open, or Infinity when they share no open time within
 * OPEN_HORIZON_MS (their zones are too far apart for the window: the message cannot be held for all of them).
 */
export function openFrom(t: number, windows: readonly QuietWindow[]): number | undefined {
  let at = t;
  // Each pass moves past at least one window's end; a common open time needs few passes.
  for (let pass = 0; pass < 4 * windows.length + 4; pass++) {
    let moved = false;
    for (const w of windows) {
      const until = quietUntil(at, w);
      if (until !== undefined) {
        at = until;
        moved = true;
      }
    }
    if (!moved) return at === t ? undefined : at;
    if (at - t > OPEN_HORIZON_MS) return Infinity;
  }
  return Infinity;
}

/** "21:00" for minutes after midnight. */
export const clockText = (minutes: number): string =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
