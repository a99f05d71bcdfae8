/**
 * What some work costs in CPU time, for the few tests that must show that a cost does not grow with the size of
 * the input ("refusing a 10 MB text is O(1)"). Not wall-clock time: on a loaded machine the OS leaves a process
 * unscheduled for tens of milliseconds, which a wall clock (or the gap between two turns of the event loop)
 * counts as if the work had taken it; CPU time counts only what the process ran.
 *
 * Still not a constant: caches, frequency and the process's other threads vary it, and work that waits for a
 * turn of the event loop also counts whatever else ran in between (a timer of the emulator in the same process).
 * So a test compares, in the same run, the work on a big input with the same work on a small one (each the least
 * of several alternating runs) and asserts a ratio with a wide margin: O(1) work costs about the same for both,
 * work per character ~160 times as much for 10 MiB as for 64 KiB.
 */

/**
 * The process's CPU time so far, in ms. The process's, not this thread's: Node 20 has no count per thread, and
 * Linux's /proc/thread-self/schedstat is brought up to date only at the scheduler's ticks. The other threads
 * (the garbage collector's helpers, the compiler, libuv's pool) add a little, which the least of several runs
 * leaves out.
 */
export function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * The least CPU time (ms) each of `works` costs, run alternately `tries` times each (so a garbage collection or
 * an unrelated timer in one run does not count, and each sees the same state of the machine).
 * Each work must do the same each time and leave nothing behind that changes the next run.
 */
export async function leastCpuMs<K extends string>(
  works: Record<K, () => unknown>,
  tries = 5,
): Promise<Record<K, number>> {
  const least = {} as Record<K, number>;
  for (const name of Object.keys(works) as K[]) least[name] = Infinity;
  for (let i = 0; i < tries; i++) {
    for (const name of Object.keys(works) as K[]) {
      const before = cpuMs();
      await works[name]();
      least[name] = Math.min(least[name], cpuMs() - before);
    }
  }
  return least;
}

/** A flat one-byte string of `bytes` characters (as a text read from the network is, not a rope of repeats). */
export const bigText = (bytes: number, fill = 'a'): string => Buffer.alloc(bytes, fill).toString('latin1');
