/**
 * How long some work blocks the event loop, for the few bounds an issue asks for ("blocks the loop less than
 * 20 ms"). A chain of setImmediate callbacks runs beside the work; the longest gap between two of them is the
 * longest time the loop could not turn. The machine the tests run on is shared and loaded: a process that the
 * OS does not schedule for a while shows as a gap too. So the work runs up to `tries` times and the shortest of
 * the longest gaps counts: a real block (a text read, analysed or copied) is in every run, a scheduling hiccup
 * in one. The work must be the same each time (and free of side effects that change the next run).
 */
export async function longestBlockMs(work: () => Promise<unknown>, tries = 3): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < tries; i++) {
    let longest = 0;
    let running = true;
    let last = performance.now();
    const tick = (): void => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    last = performance.now();
    await work();
    // One more turn, so a block at the very end of the work is measured too.
    await new Promise((resolve) => setImmediate(resolve));
    running = false;
    best = Math.min(best, longest);
    // Well under any bound asked for: no need to run again.
    if (best < 5) break;
  }
  return best;
}

/** A flat one-byte string of `bytes` characters (as a text read from the network is, not a rope of repeats). */
export const bigText = (bytes: number, fill = 'a'): string => Buffer.alloc(bytes, fill).toString('latin1');
