/**
 * How a recipient text (one number, or several in one text) is split into entries. One function for the two that
 * must agree: the recipient check (src/client/recipients.ts) and the spending guard (src/reliability/budget-cost.ts),
 * so the guard never counts fewer numbers than the check lets through.
 *
 * The spec does not show which separators the gateway honours (docs/assumptions.md, "Recipient text"). Counting is
 * only safe on the generous side: a separator the gateway honours but the guard does not know lets one entry bill
 * many SMS (ten numbers separated by CR counted once). So every character the gateway might read as a separator
 * splits here: comma, semicolon, the line breaks (LF, CR, vertical tab, form feed, NEL, U+2028, U+2029), tab and
 * the vertical bar. Spaces do not: people write numbers with spaces ("+49 170 1234567"), and counting those as three
 * would stop sends far too early. The emulator keeps its own splitting (it never uses the client's code).
 */

/** Every separator the gateway might honour between recipients. */
export const RECIPIENT_SEPARATOR = /[,;|\t\n\v\f\r\u0085\u2028\u2029]/;

/**
 * The separators a recipient text may use as the gateway gets it: comma, semicolon, LF (and CR LF). The recipient
 * check rewrites a text that uses any other one (a CR alone, a tab, `|`) into a comma-separated list, so the
 * gateway gets the entries the guard counted.
 */
const PLAIN_SEPARATORS = /^[,;\n]$|^\r\n$/;

/** The non-blank entries of a recipient text, trimmed. */
export function recipientEntries(text: string): string[] {
  const out: string[] = [];
  for (const part of text.split(RECIPIENT_SEPARATOR)) {
    const entry = part.trim();
    if (entry !== '') out.push(entry);
  }
  return out;
}

/** How many entries a recipient text holds (at least as many as the gateway could send to). */
export function recipientEntryCount(text: string): number {
  let n = 0;
  for (const part of text.split(RECIPIENT_SEPARATOR)) if (part.trim() !== '') n++;
  return n;
}

/** Each separator of a text, CR LF as one (matchAll copies the expression: its lastIndex is never shared). */
const EVERY_SEPARATOR = new RegExp(`\\r\\n|${RECIPIENT_SEPARATOR.source}`, 'g');

/** Whether the text separates entries with anything but comma, semicolon or a line feed (CR LF included). */
export function usesOtherSeparators(text: string): boolean {
  for (const m of text.matchAll(EVERY_SEPARATOR)) if (!PLAIN_SEPARATORS.test(m[0])) return true;
  return false;
}
