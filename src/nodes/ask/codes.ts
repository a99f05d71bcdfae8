/**
 * The short code of a question: a, b, ... z, aa, ab, ... It is unique among the open questions of one gateway
 * configuration (every ask node using it), so a reply that names it answers one question, whichever node asked.
 * A code just freed is not given out again for REUSE_AFTER_MS: a late reply to the closed question must not
 * answer a new one.
 */

/** How long a closed question's code stays out of use. */
export const REUSE_AFTER_MS = 60 * 60_000;

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** The i-th code (0 = a, 25 = z, 26 = aa). */
export function codeAt(i: number): string {
  let n = i;
  let out = '';
  do {
    out = LETTERS[n % 26]! + out;
    n = Math.floor(n / 26) - 1;
  } while (n >= 0);
  return out;
}

/**
 * The first code neither in use nor freed less than REUSE_AFTER_MS ago. Among the first (in use + freed + 1)
 * codes one always is, so the search is bounded.
 */
export function freeCode(
  inUse: ReadonlySet<string>,
  freed: Readonly<Record<string, number>>,
  now: number,
): string {
  const limit = inUse.size + Object.keys(freed).length;
  for (let i = 0; i < limit; i++) {
    const code = codeAt(i);
    if (inUse.has(code)) continue;
    const at = freed[code];
    if (at === undefined || now - at >= REUSE_AFTER_MS) return code;
  }
  return codeAt(limit);
}

/** The freed codes still kept out of use (older ones are dropped from the state). */
export function recentlyFreed(freed: Readonly<Record<string, number>>, now: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [code, at] of Object.entries(freed)) if (now - at < REUSE_AFTER_MS) out[code] = at;
  return out;
}
