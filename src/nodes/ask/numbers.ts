/**
 * Telling whether a reply's sender is a number that was asked. Gateways write senders in several ways
 * (`+491701234567`, `491701234567`, `00491701234567`, `01701234567`) and the on-call list may hold any of them:
 * both sides are compared by a key, the number's digits in international form without `+` or `00`. A national
 * number (leading `0`) becomes international only with the gateway configuration's default country; without
 * one it is compared as written (docs/assumptions.md, "Ask: matching replies").
 */
import type { CountryCode } from 'libphonenumber-js/min';
import { checkRecipient } from '../../client/recipients';

const PUNCTUATION = /[\s\-./()[\]]/g;

export function numberKey(text: string, country?: CountryCode): string {
  const bare = String(text).trim().replace(PUNCTUATION, '');
  if (/^\+\d+$/.test(bare)) return bare.slice(1);
  if (/^00\d+$/.test(bare)) return bare.slice(2);
  if (/^0\d+$/.test(bare) && country) {
    const n = checkRecipient(bare, { defaultCountry: country }).number;
    if (n && /^\+\d+$/.test(n)) return n.slice(1);
  }
  if (/^\d+$/.test(bare)) return bare;
  // An alphanumeric sender: never equal to a number's key.
  return `text:${String(text).trim().toLowerCase()}`;
}
