/**
 * Text from a phone or the gateway (a reply, a sender number, a status word, a fault string, a caption echoed back)
 * made safe to put into a log line, a node status or an error message. Node-RED writes each log entry as one line
 * with a date in front, so a reply such as `x\n26 Nov 00:00:00 - [error] FORGED` would otherwise add a line that
 * looks like the runtime's own. Every control character (C0, DEL, C1), the Unicode line and paragraph separators
 * and the marks that reverse the direction of text become visible escapes (`\n`, `\r`, `\t`, `\u2028`), and a
 * long text is cut with `…`. Only what is shown is changed: the msg a node outputs keeps the text as it came.
 */

/** Longest untrusted text shown in one line (a reply, a status word): enough to recognise it. */
export const SHOWN_MAX = 200;

/* eslint-disable no-control-regex -- control characters are what this matches */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g');
/* eslint-enable no-control-regex */

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const escapeOf = (c: string): string => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** `text` with every character that could break or disguise a line written as a visible escape. */
export function oneLine(text: string): string {
  return UNSAFE.test(text) ? text.replace(UNSAFE_ALL, escapeOf) : text;
}

/**
 * An untrusted value as one short line: controls escaped (oneLine), at most `max` characters (default
 * SHOWN_MAX) with `…` where it was cut, never inside an escape or between the halves of a surrogate pair.
 * Anything but a string is shown as String() shows it.
 */
export function safeText(value: unknown, max: number = SHOWN_MAX): string {
  const text = typeof value === 'string' ? value : String(value);
  // Only the part that can be shown is read: a 10 MB reply costs no more than a short one.
  const head = text.length > max ? text.slice(0, max) : text;
  const escaped = oneLine(head);
  if (escaped.length <= max && head.length === text.length) return escaped;
  let out = '';
  for (const part of escaped.split(/(\\u[0-9a-f]{4}|\\[nrt])/)) {
    if (out.length + part.length > max - 1) {
      // An escape is not split; a plain part is cut, not between a surrogate pair's halves.
      if (!part.startsWith('\\')) {
        let cut = part.slice(0, max - 1 - out.length);
        if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
        out += cut;
      }
      return `${out}…`;
    }
    out += part;
  }
  return head.length === text.length ? out : `${out}…`;
}
