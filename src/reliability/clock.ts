/**
 * Where "now" and the timers of the timed parts come from (the outbox's waits, quiet hours, pacing): the real
 * clock by default, a hand-driven one in tests (they move it instead of waiting), or one an embedding gives.
 */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Date.now and Node's timers; a timer never keeps the process alive on its own. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** A clock given from outside (a setting): used only when it has the three functions, else the real one. */
export function clockOf(value: unknown): Clock {
  if (typeof value !== 'object' || value === null) return systemClock;
  const c = value as Partial<Clock>;
  return typeof c.now === 'function' &&
    typeof c.setTimeout === 'function' &&
    typeof c.clearTimeout === 'function'
    ? (c as Clock)
    : systemClock;
}
