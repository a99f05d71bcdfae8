import { analyzeText } from './analyze';
import { gsm7Septets } from './gsm7';

/**
 * Characters outside GSM-7 that have a GSM-7 look-alike of the same meaning: typographic punctuation and spaces
 * only. Letters are never transliterated (ł, č stay and keep the text UCS-2: the analysis names them instead).
 * The help of the send nodes and docs/assumptions.md list this table; keep them in step.
 */
export const GSM7_LOOKALIKES: Readonly<Record<string, string>> = {
  '\u2018': "'", // ‘ left single quote
  '\u2019': "'", // ’ right single quote, apostrophe
  '\u201A': "'", // ‚ single low quote
  '\u201B': "'", // ‛ single high reversed quote
  '\u2032': "'", // ′ prime
  '\u2039': "'", // ‹
  '\u203A': "'", // ›
  '\u201C': '"', // “
  '\u201D': '"', // ”
  '\u201E': '"', // „ German opening quote
  '\u201F': '"', // ‟
  '\u2033': '"', // ″ double prime
  '\u00AB': '"', // «
  '\u00BB': '"', // »
  '\u2010': '-', // ‐ hyphen
  '\u2011': '-', // ‑ non-breaking hyphen
  '\u2012': '-', // ‒ figure dash
  '\u2013': '-', // – en dash
  '\u2014': '-', // — em dash
  '\u2015': '-', // ― horizontal bar
  '\u2212': '-', // − minus sign
  '\u2026': '...', // … ellipsis
  '\u00A0': ' ', // no-break space
  '\u2002': ' ', // en space
  '\u2003': ' ', // em space
  '\u2007': ' ', // figure space
  '\u2009': ' ', // thin space
  '\u200A': ' ', // hair space
  '\u202F': ' ', // narrow no-break space
  '\u2022': '*', // • bullet
};

export interface Replaced {
  /** The text with every look-alike replaced. */
  text: string;
  /** How many characters were replaced (an ellipsis counts 1, though it becomes three dots). */
  replaced: number;
}

function replaceWith(text: string, expand: boolean): Replaced {
  let replaced = 0;
  let out = '';
  for (const ch of text) {
    const to = GSM7_LOOKALIKES[ch];
    if (to === undefined || (!expand && to.length > 1)) out += ch;
    else {
      out += to;
      replaced++;
    }
  }
  return { text: replaced === 0 ? text : out, replaced };
}

/** Whether the ellipsis is expanded too: only when that adds no segment (see replaceLookalikes). */
function expandsEllipsis(text: string): boolean {
  const all = replaceWith(text, true);
  return all.replaced === 0 || analyzeText(all.text).segments <= analyzeText(text).segments;
}

/**
 * The text with the table's characters replaced by their GSM-7 look-alikes; idempotent, and never more segments
 * than before: the ellipsis (one character, three dots) is kept when expanding it would add a segment (a text
 * that stays UCS-2, or one made of many ellipses). The one-for-one replacements never add one: a character costs
 * at most 2 septets in GSM-7 and GSM-7 segments hold more than twice a UCS-2 segment's characters.
 */
export function replaceLookalikes(text: string): Replaced {
  return replaceWith(text, expandsEllipsis(text));
}

export interface Swap {
  char: string;
  /** What replaceLookalikes puts in its place. */
  with: string;
  /** Position in the original text in characters (code points), from 0. */
  at: number;
}

/**
 * Which characters replaceLookalikes replaces, by what and where, first ones first (at most `max`): what a send
 * dialog shows before the text is sent.
 */
export function lookalikeSwaps(text: string, max = UCS2_LISTED_MAX): Swap[] {
  const expand = expandsEllipsis(text);
  const out: Swap[] = [];
  let at = 0;
  for (const ch of text) {
    const to = GSM7_LOOKALIKES[ch];
    if (to !== undefined && (expand || to.length === 1)) {
      if (out.length >= max) break;
      out.push({ char: ch, with: to, at });
    }
    at++;
  }
  return out;
}

export interface Ucs2Char {
  char: string;
  /** Position in characters (code points), from 0. */
  at: number;
}

/** At most this many forcing characters are listed (a whole text in Cyrillic would otherwise be listed in full). */
export const UCS2_LISTED_MAX = 20;

/** The characters that make the text UCS-2 (not in GSM-7's basic or extension table), first ones first. */
export function ucs2Chars(text: string, max = UCS2_LISTED_MAX): Ucs2Char[] {
  const out: Ucs2Char[] = [];
  let at = 0;
  for (const ch of text) {
    if (gsm7Septets(ch) === 0) {
      if (out.length >= max) break;
      out.push({ char: ch, at });
    }
    at++;
  }
  return out;
}
