import { gsm7Septets } from './gsm7';

export type TextEncoding = 'GSM-7' | 'UCS-2';

export interface TextAnalysis {
  encoding: TextEncoding;
  /** Length in the encoding's units: septets for GSM-7 (extension characters count 2), UTF-16 units for UCS-2. */
  units: number;
  /** Message parts needed (0 for an empty text). */
  segments: number;
  /** Units still free in the last segment before another one is needed. */
  charactersLeft: number;
  /** Capacity of one segment at this length: 160/153 (GSM-7) or 70/67 (UCS-2). */
  perSegment: number;
}

const LIMITS: Record<TextEncoding, { single: number; multi: number }> = {
  'GSM-7': { single: 160, multi: 153 },
  'UCS-2': { single: 70, multi: 67 },
};

/**
 * Encoding, length and segment count of an SMS text as a handset would send it.
 * A segment of a long message never splits an escape sequence or a surrogate pair, so parts are packed
 * character by character rather than by dividing the length.
 */
export function analyzeText(text: string): TextAnalysis {
  const costs: number[] = [];
  let gsm = true;
  for (const ch of text) {
    const septets = gsm7Septets(ch);
    if (septets === 0) gsm = false;
    costs.push(septets);
  }
  const encoding: TextEncoding = gsm ? 'GSM-7' : 'UCS-2';
  if (!gsm) {
    // UTF-16 units: a character outside the BMP (a surrogate pair) costs 2.
    let i = 0;
    for (const ch of text) costs[i++] = ch.length;
  }
  const units = costs.reduce((a, b) => a + b, 0);
  const { single, multi } = LIMITS[encoding];
  if (units === 0) return { encoding, units, segments: 0, charactersLeft: single, perSegment: single };
  if (units <= single)
    return { encoding, units, segments: 1, charactersLeft: single - units, perSegment: single };
  let segments = 1;
  let used = 0;
  for (const c of costs) {
    if (used + c > multi) {
      segments++;
      used = 0;
    }
    used += c;
  }
  return { encoding, units, segments, charactersLeft: multi - used, perSegment: multi };
}
