/** Phone numbers and recipient lists as the emulator reads them. */

const SEPARATOR = /[,;\r\n]/;

/** Splits a recipient text on `,`, `;` and line breaks; trims and drops empty entries. */
export function splitRecipients(text: string | undefined): string[] {
  if (!text) return [];
  if (!SEPARATOR.test(text)) {
    // A single number (the usual case): the same result without splitting.
    const one = text.trim();
    return one === '' ? [] : [one];
  }
  return text
    .split(/[,;\r\n]+/)
    .map((r) => r.trim())
    .filter((r) => r !== '');
}

/** A list parameter whose items may themselves hold several numbers. */
export function recipientList(items: readonly unknown[] | undefined): string[] {
  if (!items) return [];
  const out: string[] = [];
  for (const item of items) if (typeof item === 'string') for (const r of splitRecipients(item)) out.push(r);
  return out;
}

/** International digits without `+`/`00`; a single leading 0 means a national number of `countryCode`. */
export function normalizeNumber(number: string, countryCode: string): string {
  const digits = number.replace(/[\s()./-]/g, '');
  if (digits.startsWith('+')) return digits.slice(1);
  if (digits.startsWith('00')) return digits.slice(2);
  if (digits.startsWith('0')) return countryCode + digits.slice(1);
  return digits;
}

export function isMobile(number: string, prefixes: readonly string[], countryCode: string): boolean {
  const n = normalizeNumber(number, countryCode);
  return prefixes.some((p) => n.startsWith(p));
}

/** A sender of at most six digits (optionally with +) is a short code, which may not be used as sender. */
export function isShortCodeSender(sender: string | undefined): boolean {
  return sender !== undefined && /^\+?\d{1,6}$/.test(sender.trim());
}

/** Normalizes IPv4-mapped IPv6 addresses (`::ffff:127.0.0.1`) to plain IPv4. */
export function normalizeAddress(address: string): string {
  const a = address.trim().toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  return mapped ? mapped[1]! : a;
}
