/**
 * Phone numbers as the panel shows them to someone who may only read: country code and first digits, the last
 * two, the rest hidden (the opt-out list's log lines mask the same way). Anything that is not a number (an
 * alphanumeric sender such as "ACME") names no person and stays as it is.
 */
import { numberKey } from '../../ask/numbers';
import { maskNumber } from '../../optout/book';

/** A number written any way (+49..., 0049..., 0170...) masked; other text unchanged. */
export function maskPhone(text: string): string {
  const key = numberKey(text);
  if (key.startsWith('text:')) return text;
  return maskNumber(key);
}

/** Whether the numbers are shown in full or masked. */
export type Shown = (text: string) => string;

export const shownAs = (reveal: boolean): Shown => (reveal ? (t) => t : maskPhone);
