/**
 * Recipients checked before sending: the service's number format is not shown, so a recipient is
 * what every gateway takes, digits with an optional leading `+` once spaces, dashes, dots, slashes and brackets
 * are left out. With a default country, national numbers (`0170 1234567`) become international ones
 * (`+491701234567`) through libphonenumber-js and its small ("min") metadata, loaded only when a country is set.
 */
import type { CountryCode, PhoneNumber } from 'libphonenumber-js/min';
import { GatewayError } from '../errors';
import { recipientEntries, usesOtherSeparators } from '../recipient-text';
import { bytesOf, isBytes } from '../shape';
/** Kept by people in numbers for reading; left out before the check. */
const PUNCTUATION = /[\s\-./()[\]]/g;
const NUMBER = /^\+?\d+$/;
/** Entries named in one error at most; the rest are counted. */
const NAMED = 10;

type Parse = (text: string, country: CountryCode) => PhoneNumber | undefined;
interface Lib {
  parsePhoneNumberFromString: Parse;
  isSupportedCountry(country: string): boolean;
}
let lib: Lib | undefined;
/** libphonenumber-js with its min metadata, required on first use (only a set default country needs it). */
function phoneLib(): Lib {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  lib ??= require('libphonenumber-js/min') as Lib;
  return lib;
}

export interface RecipientRules {
  /** ISO 3166 country (e.g. `DE`) whose national numbers are made international; undefined = sent as given. */
  defaultCountry?: CountryCode | undefined;
}

/** One entry of a recipient text: as given, and as sent (undefined when it is refused, with the reason). */
export interface RecipientEntry {
  input: string;
  number?: string;
  problem?: 'format' | 'country';
}

/** An upper-case ISO 3166 code libphonenumber-js knows, or a CONFIG error naming `label`. */
export function defaultCountryOf(
  value: string | undefined,
  label = 'defaultCountry',
): CountryCode | undefined {
  const code = (value ?? '').trim().toUpperCase();
  if (code === '') return undefined;
  if (!/^[A-Z]{2}$/.test(code) || !phoneLib().isSupportedCountry(code))
    throw new GatewayError('CONFIG', `"${label}" ${value}: not a country code such as DE, AT or CH`);
  return code as CountryCode;
}

/** Checks (and with a default country, normalises) one entry. */
export function checkRecipient(text: string, rules: RecipientRules): RecipientEntry {
  const input = text.trim();
  const bare = NUMBER.test(input) ? input : input.replace(PUNCTUATION, '');
  if (!NUMBER.test(bare)) return { input, problem: 'format' };
  if (!rules.defaultCountry) return { input, number: input };
  const parsed = phoneLib().parsePhoneNumberFromString(bare, rules.defaultCountry);
  if (!parsed || !parsed.isPossible()) return { input, problem: 'country' };
  return { input, number: parsed.number };
}

/**
 * Every non-blank entry of a recipient text (one number or a list), split as the spending guard counts it
 * (recipient-text.ts: comma, semicolon, line breaks, tab, `|`).
 */
export function checkRecipientText(text: string, rules: RecipientRules): RecipientEntry[] {
  return recipientEntries(text).map((s) => checkRecipient(s, rules));
}

/**
 * The text to send for checked entries: in international form joined by `,` with a default country; without one
 * the text as given, unless it separates them with something the gateway may not read as a separator (a CR
 * alone, a tab, `|`): then the entries joined by `,`, so the gateway gets the numbers the guard counted.
 */
function sendable(text: string, entries: readonly RecipientEntry[], rules: RecipientRules): string {
  if (rules.defaultCountry) return entries.map((e) => e.number).join(',');
  return entries.length > 1 && usesOtherSeparators(text) ? entries.map((e) => e.input).join(',') : text;
}

/** The VALIDATION message for refused entries: each named, with what a recipient must be. */
export function recipientMessage(bad: readonly RecipientEntry[], rules: RecipientRules): string {
  const named = bad.slice(0, NAMED).map((e) => JSON.stringify(e.input));
  if (bad.length > NAMED) named.push(`and ${bad.length - NAMED} more`);
  const what = bad.length === 1 ? 'not a phone number' : `${bad.length} recipients are not phone numbers`;
  const country = bad.some((e) => e.problem === 'country')
    ? `; national numbers are read as ${rules.defaultCountry ?? ''}`
    : '';
  return `${what}: ${named.join(', ')} (digits with an optional leading +; spaces, dashes, dots and brackets are ignored${country})`;
}

/**
 * Checks a recipient parameter's value (a string, a list of strings, or SMSCR's UTF-8 bytes): refuses with the
 * message of `recipientMessage` (thrown by `refuse`), returns the value to send. Without a default country
 * that is the value itself; with one, every entry in its international form (a text joined by `,`).
 */
export function checkRecipientValue(
  value: unknown,
  rules: RecipientRules,
  refuse: (message: string) => never,
): unknown {
  if (isBytes(value)) {
    const text = bytesOf(value).toString('utf8');
    const out = checkText(text, rules, refuse);
    return out === text ? value : Buffer.from(out, 'utf8');
  }
  if (typeof value === 'string') return checkText(value, rules, refuse);
  if (Array.isArray(value)) {
    // The common case, plain numbers without a country to apply, needs no splitting and no copy.
    if (!rules.defaultCountry && value.every(plainNumber)) return value;
    const bad: RecipientEntry[] = [];
    const out = value.map((item: unknown) => {
      if (typeof item !== 'string' && typeof item !== 'number') return item;
      const text = String(item);
      const entries = checkRecipientText(text, rules);
      for (const e of entries) if (e.problem) bad.push(e);
      const sent = sendable(text, entries, rules);
      return sent === text ? item : sent;
    });
    if (bad.length > 0) refuse(recipientMessage(bad, rules));
    return out.every((item, i) => item === value[i]) ? value : out;
  }
  return value;
}

/**
 * A list item the check would pass unchanged without reading it: a text that is one number as it stands, or a
 * value that is neither text nor number (left to the request builder). Numbers take the full check (1e21, NaN).
 */
const plainNumber = (item: unknown): boolean =>
  typeof item === 'string' ? NUMBER.test(item) : typeof item !== 'number';

function checkText(text: string, rules: RecipientRules, refuse: (message: string) => never): string {
  // The common case, one plain number without a country to apply, needs no splitting.
  if (!rules.defaultCountry && NUMBER.test(text)) return text;
  const entries = checkRecipientText(text, rules);
  const bad = entries.filter((e) => e.problem);
  if (bad.length > 0) refuse(recipientMessage(bad, rules));
  return sendable(text, entries, rules);
}
