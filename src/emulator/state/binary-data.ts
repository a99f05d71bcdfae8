/** Binary payloads given as text: hex first (the usual form of UDH), else strict base64. */

const HEX_RE = /^(?:[0-9a-fA-F]{2})+$/;
const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** undefined when the text is neither even-length hex nor valid base64. */
export function decodeBinaryText(text: string): Buffer | undefined {
  const s = text.replace(/\s+/g, '');
  if (s === '') return undefined;
  if (HEX_RE.test(s)) return Buffer.from(s, 'hex');
  if (BASE64_RE.test(s)) return Buffer.from(s, 'base64');
  return undefined;
}

export function decodeBase64Text(text: string): Buffer | undefined {
  const s = text.replace(/\s+/g, '');
  return s !== '' && BASE64_RE.test(s) ? Buffer.from(s, 'base64') : undefined;
}
