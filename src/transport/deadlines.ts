/**
 * The deadlines of all exchanges in flight, in one list sorted by deadline and one Node timer for the earliest.
 * A timer per exchange (setTimeout + clearTimeout) made a Timeout object with its async-hook bookkeeping for
 * every request, ~1.5 µs of a ~120 µs call (bench/profile-client.ts). Calls of one client share one timeout,
 * so a new deadline is almost always the latest: it is added at the tail in O(1), and removing one is O(1).
 * The timer is ref'd only while a deadline is waiting (as the per-exchange timers were), so an idle client
 * never keeps the process alive.
 */

/** One waiting deadline; `expire` is called once when it passes (never after `cancel`). */
export abstract class Deadline {
  /** Date.now() value at which it expires. */
  at = 0;
  /** Neighbours in the list (null at the ends, and when not listed). */
  prevDeadline: Deadline | null = null;
  nextDeadline: Deadline | null = null;
  listed = false;
  abstract expire(): void;
}

let head: Deadline | null = null;
let tail: Deadline | null = null;
let timer: ReturnType<typeof setTimeout> | undefined;
/** The deadline the timer was set for. */
let timerAt = 0;

function arm(now: number): void {
  if (timer !== undefined) clearTimeout(timer);
  timer = undefined;
  if (head === null) return;
  timerAt = head.at;
  timer = setTimeout(fire, Math.max(1, timerAt - now));
}

function unlink(d: Deadline): void {
  const { prevDeadline: prev, nextDeadline: next } = d;
  if (prev) prev.nextDeadline = next;
  else head = next;
  if (next) next.prevDeadline = prev;
  else tail = prev;
  d.prevDeadline = d.nextDeadline = null;
  d.listed = false;
}

function fire(): void {
  timer = undefined;
  const now = Date.now();
  // What a timer of its own would have done by now: everything due by the moment this timer was set for (Node's
  // timers count on their own clock, which may run a millisecond ahead of Date.now()), and whatever else is due.
  const due = Math.max(now, timerAt);
  const expired: Deadline[] = [];
  while (head !== null && head.at <= due) {
    const d = head;
    unlink(d);
    expired.push(d);
  }
  arm(now);
  for (const d of expired) d.expire();
}

/** Lists `d` to expire at `at` (Date.now() based). */
export function schedule(d: Deadline, at: number): void {
  d.at = at;
  d.listed = true;
  let after = tail;
  while (after !== null && after.at > at) after = after.prevDeadline;
  d.prevDeadline = after;
  d.nextDeadline = after ? after.nextDeadline : head;
  if (d.nextDeadline) d.nextDeadline.prevDeadline = d;
  else tail = d;
  if (after) after.nextDeadline = d;
  else head = d;
  // A new earliest deadline (or the first) needs the timer moved; a later one waits for the timer as it is.
  if (head === d && (timer === undefined || at < timerAt)) arm(Date.now());
}

/** Takes `d` off the list; the timer stops when nothing waits any more. */
export function cancel(d: Deadline): void {
  if (!d.listed) return;
  unlink(d);
  if (head === null && timer !== undefined) {
    clearTimeout(timer);
    timer = undefined;
  }
}

/** Deadlines waiting, and whether the timer is set (tests). */
export function waitingDeadlines(): { count: number; timer: boolean } {
  let count = 0;
  for (let d = head; d !== null; d = d.nextDeadline) count++;
  return { count, timer: timer !== undefined };
}
