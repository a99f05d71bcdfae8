/**
 * How many SMS segments a text needs: GSM 03.38 7-bit (basic table, extension table characters take two
 * septets) or UCS-2 (UTF-16 code units) as soon as one character is outside both tables.
 */

const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENSION = '^{}\\[~]|€\f';

/** Septets per UTF-16 code unit: 1 basic table, 2 extension table, 0 neither (every table character is in the BMP). */
const SEPTETS = new Uint8Array(0x10000);
for (const ch of GSM_BASIC) SEPTETS[ch.charCodeAt(0)] = 1;
for (const ch of GSM_EXTENSION) SEPTETS[ch.charCodeAt(0)] = 2;

export type TextEncoding = 'gsm7' | 'ucs2';

export interface SegmentInfo {
  readonly encoding: TextEncoding;
  /** Septets (GSM-7) or UTF-16 code units (UCS-2). */
  readonly units: number;
  /** Segments when the text may be split (concatenated SMS); 1 for a text that fits a single SMS. */
  readonly segments: number;
  /** Whether the text fits one SMS without concatenation. */
  readonly fitsSingle: boolean;
}

const LIMITS = {
  gsm7: { single: 160, part: 153 },
  ucs2: { single: 70, part: 67 },
} as const;

/** Counts GSM-7 septets, or returns -1 when the text needs UCS-2. */
function gsmSeptets(text: string): number {
  let septets = 0;
  for (let i = 0; i < text.length; i++) {
    const n = SEPTETS[text.charCodeAt(i)]!;
    if (n === 0) return -1;
    septets += n;
  }
  return septets;
}

export function countSegments(text: string): SegmentInfo {
  const septets = gsmSeptets(text);
  const encoding: TextEncoding = septets < 0 ? 'ucs2' : 'gsm7';
  const units = septets < 0 ? text.length : septets;
  const limit = LIMITS[encoding];
  const fitsSingle = units <= limit.single;
  return { encoding, units, fitsSingle, segments: fitsSingle ? 1 : Math.ceil(units / limit.part) };
}

/** Binary messages: 140 octets in one SMS, 134 per part when a concatenation header is needed. */
export function countBinarySegments(bytes: number): number {
  return bytes <= 140 ? 1 : Math.ceil(bytes / 134);
}
