/**
 * Which opt-out keyword a reply is, if any (docs/assumptions.md, "Opt-out keywords"). A reply counts only when it
 * is exactly one keyword: "STOP", " stop ", "Stopp", "STOP!" are; "please stop", "STOP 12345" (a keyword scoped to a
 * campaign) and "stop it" are not: they reach the flow as any reply does, without msg.optOut. Compared after
 * - Unicode normalisation (NFKC: a full-width "ＳＴＯＰ" is STOP) and lower case (case folding),
 * - trimming white space and invisible format characters (a zero-width space a phone added) at both ends,
 * - dropping trailing full stops and exclamation marks ("Stop." and "STOP!!" mean STOP; a question mark does not
 *   drop: "Cancel?" asks something).
 * No imports of Node-RED: the config node's listener (host.ts) and the unit tests use it alike.
 */
import { KEYWORD_MAX, keywordList } from '../fields/rule';

export type Keyword = 'stop' | 'start' | 'help';

/** The three lists, each case-folded (fields/rule.ts keywordList). */
export interface Keywords {
  readonly stop: readonly string[];
  readonly start: readonly string[];
  readonly help: readonly string[];
}

/** The lists of a configuration's settings (each a keyword list's text, as the Opt-out tab holds it). */
export function keywordsOf(stop: unknown, start: unknown, help: unknown): Keywords {
  return { stop: keywordList(stop), start: keywordList(start), help: keywordList(help) };
}

/** Invisible characters a phone may put around a word (format characters: zero-width space, BOM, marks). */
const EDGES = /^[\s\p{Cf}]+|[\s\p{Cf}]+$/gu;

/** A reply as it is compared with the keywords (see above). */
export function foldReply(text: string): string {
  return text
    .normalize('NFKC')
    .replace(EDGES, '')
    .replace(/[.!]+$/u, '')
    .replace(EDGES, '')
    .toLowerCase();
}

/**
 * The keyword a reply is exactly, or undefined. A reply longer than any keyword could be (with some room for
 * spaces and punctuation) is never one: its text is not even normalised.
 */
export function keywordOf(text: unknown, keywords: Keywords): Keyword | undefined {
  if (typeof text !== 'string' || text.length > KEYWORD_MAX * 2) return undefined;
  const word = foldReply(text);
  if (word === '') return undefined;
  if (keywords.stop.includes(word)) return 'stop';
  if (keywords.start.includes(word)) return 'start';
  if (keywords.help.includes(word)) return 'help';
  return undefined;
}
