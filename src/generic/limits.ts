/**
 * The limits of an answer read without the catalogue (client.invoke(), the any-operation node). The typed path
 * builds records while bytes arrive; this path holds a tree of the whole answer, so the answer's shape is bounded
 * on its own, while it is read (src/generic/gate.ts): an 11 MB answer became +1.1 GiB and a 23 MB answer of tiny
 * elements (under the 32 MiB maxResponseBytes) ran Node-RED out of a 1 GiB heap before these limits.
 * The defaults leave room for every answer of the 33 operations: the largest page the spec bounds, 5,000 delivery
 * reports of QueryReceivedDLR, is ~75,000 elements 5 levels deep (docs/architecture.md, "XML").
 */

export interface InvokeLimits {
  /** Elements in the answer, and values in what it decodes to (references followed); default 250,000. */
  maxElements: number;
  /** Element nesting; default 64 (an ASMX answer is rarely deeper than 12). */
  maxDepth: number;
  /** Characters of one text or attribute value (UTF-8 bytes as read); default 8 MiB. */
  maxTextLength: number;
  /** Characters of text in the decoded answer in total, a referenced value counted each time; default 64 MiB. */
  maxDecodedLength: number;
}

export const DEFAULT_INVOKE_LIMITS: Readonly<InvokeLimits> = Object.freeze({
  maxElements: 250_000,
  maxDepth: 64,
  maxTextLength: 8 * 1024 * 1024,
  maxDecodedLength: 64 * 1024 * 1024,
});

const NAMES = Object.keys(DEFAULT_INVOKE_LIMITS) as (keyof InvokeLimits)[];

/**
 * `given` over `base`, each a positive whole number; throws an Error naming the first bad field or an unknown
 * one (the caller turns it into CONFIG or VALIDATION).
 */
export function resolveInvokeLimits(
  given: unknown,
  base: Readonly<InvokeLimits> = DEFAULT_INVOKE_LIMITS,
): Readonly<InvokeLimits> {
  if (given === undefined || given === null) return base;
  if (typeof given !== 'object' || Array.isArray(given)) throw new Error('limits must be an object');
  const out: InvokeLimits = { ...base };
  for (const [key, value] of Object.entries(given as Record<string, unknown>)) {
    if (!NAMES.includes(key as keyof InvokeLimits)) {
      throw new Error(`limits.${key} is not a limit (${NAMES.join(', ')})`);
    }
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
      throw new Error(`limits.${key} must be a positive whole number`);
    }
    out[key as keyof InvokeLimits] = value;
  }
  return Object.freeze(out);
}

/** An answer over a limit; the decoder's PARSE error names it ("more than 250,000 elements (maxElements)"). */
export class LimitExceeded extends Error {
  constructor(message: string, limit: keyof InvokeLimits) {
    super(`${message} (${limit})`);
    this.name = 'LimitExceeded';
  }
}
