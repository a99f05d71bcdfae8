/**
 * GSM 03.38 default alphabet (3GPP TS 23.038 §6.2.1) as plain data, so the editor and the client share it.
 */

/** The basic table, indexed by septet value. Index 0x1B is the escape to the extension table, not a character. */
// prettier-ignore
export const GSM7_BASIC_TABLE: readonly string[] = [
  '@', '£', '$', '¥', 'è', 'é', 'ù', 'ì', 'ò', 'Ç', '\n', 'Ø', 'ø', '\r', 'Å', 'å',
  'Δ', '_', 'Φ', 'Γ', 'Λ', 'Ω', 'Π', 'Ψ', 'Σ', 'Θ', 'Ξ', '\u001b', 'Æ', 'æ', 'ß', 'É',
  ' ', '!', '"', '#', '¤', '%', '&', "'", '(', ')', '*', '+', ',', '-', '.', '/',
  '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', ':', ';', '<', '=', '>', '?',
  '¡', 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M', 'N', 'O',
  'P', 'Q', 'R', 'S', 'T', 'U', 'V', 'W', 'X', 'Y', 'Z', 'Ä', 'Ö', 'Ñ', 'Ü', '§',
  '¿', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o',
  'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z', 'ä', 'ö', 'ñ', 'ü', 'à',
];

/** The extension table: character → septet after the escape. Each costs two septets in a message. */
export const GSM7_EXTENSION_TABLE: Readonly<Record<string, number>> = {
  '\f': 0x0a,
  '^': 0x14,
  '{': 0x28,
  '}': 0x29,
  '\\': 0x2f,
  '[': 0x3c,
  '~': 0x3d,
  ']': 0x3e,
  '|': 0x40,
  '€': 0x65,
};

const ESCAPE = 0x1b;

const BASIC = new Set(GSM7_BASIC_TABLE.filter((_, i) => i !== ESCAPE));
const EXTENSION = new Set(Object.keys(GSM7_EXTENSION_TABLE));

/** Septets one character costs in GSM-7: 1 (basic table), 2 (extension table) or 0 (not encodable). */
export function gsm7Septets(char: string): 0 | 1 | 2 {
  if (BASIC.has(char)) return 1;
  if (EXTENSION.has(char)) return 2;
  return 0;
}

/** True when every character of the text is in the basic or extension table. */
export function isGsm7(text: string): boolean {
  for (const ch of text) if (gsm7Septets(ch) === 0) return false;
  return true;
}
