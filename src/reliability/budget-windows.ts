/**
 * The windows of the spending guard (budget.ts): a rolling hour, the calendar day and the calendar month, in the
 * local time of the Node-RED process (its TZ). Days and months are named by their local date (`2024-03-31`,
 * `2024-03`) and end at the next local midnight, so a day in which the clocks change lasts 23 or 25 hours. The
 * rolling hour is elapsed time and knows nothing of clocks: sends are counted per second, and a second's count
 * leaves the hour 3,600 s after the end of that second (so a send counts for at least a full hour, at most a
 * second longer).
 */

export type BudgetWindow = 'hour' | 'day' | 'month';

export const BUDGET_WINDOWS: readonly BudgetWindow[] = ['hour', 'day', 'month'];

/** Where "now" comes from: injectable so tests can walk over midnights and clock changes. */
export interface BudgetClock {
  now(): number;
}

export const systemClock: BudgetClock = { now: () => Date.now() };

export const HOUR_MS = 3_600_000;

/** A calendar window: its name and its local start and end (ms since epoch, end exclusive). */
export interface CalendarWindow {
  id: string;
  start: number;
  end: number;
}

const two = (n: number): string => String(n).padStart(2, '0');

/** The local calendar day holding `t`. */
export function dayOf(t: number): CalendarWindow {
  const d = new Date(t);
  const y = d.getFullYear();
  const m = d.getMonth();
  const day = d.getDate();
  return {
    id: `${y}-${two(m + 1)}-${two(day)}`,
    // Date's local constructor skips a midnight that does not exist (a change at 00:00) to the first valid time.
    start: new Date(y, m, day).getTime(),
    end: new Date(y, m, day + 1).getTime(),
  };
}

/** The ids of the `n` local calendar days up to the one holding `t`, oldest first. */
export function lastDays(t: number, n: number): string[] {
  const d = new Date(t);
  const out: string[] = [];
  for (let i = n - 1; i >= 0; i--) {
    // Noon of the day: never skipped or doubled by a clock change.
    const day = new Date(d.getFullYear(), d.getMonth(), d.getDate() - i, 12);
    out.push(`${day.getFullYear()}-${two(day.getMonth() + 1)}-${two(day.getDate())}`);
  }
  return out;
}

/** The start of the clock hour holding `t` (ms since epoch; hours of elapsed time, as the rolling hour). */
export const hourStartOf = (t: number): number => Math.floor(t / HOUR_MS) * HOUR_MS;

/** The local calendar month holding `t`. */
export function monthOf(t: number): CalendarWindow {
  const d = new Date(t);
  const y = d.getFullYear();
  const m = d.getMonth();
  return {
    id: `${y}-${two(m + 1)}`,
    start: new Date(y, m, 1).getTime(),
    end: new Date(y, m + 1, 1).getTime(),
  };
}

/** The second a send at `t` is counted in. */
export const secondOf = (t: number): number => Math.floor(t / 1000);

/** When the count of second `sec` leaves the rolling hour. */
export const leavesHourAt = (sec: number): number => (sec + 1) * 1000 + HOUR_MS;

/** "2024-03-31 00:00" in local time (for messages: the user reads the time of the Node-RED host). */
export function localTime(t: number, seconds = false): string {
  const d = new Date(t);
  const hm = `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
  return seconds ? `${hm}:${two(d.getSeconds())}` : hm;
}
