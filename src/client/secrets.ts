import { redact } from '../errors';
import { escapeAttr, escapeText } from '../soap/escape';

const htmlEncode = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

/**
 * Every spelling in which the password can come back in a body or a foreign error text: as is, URL- and
 * form-encoded (GET/POST), XML-escaped (SOAP), HTML-encoded (ASMX's text/plain errors).
 */
export function secretVariants(password: string): string[] {
  if (!password) return [];
  const form = new URLSearchParams({ p: password }).toString().slice(2);
  const all = [
    password,
    encodeURIComponent(password),
    form,
    escapeText(password),
    escapeAttr(password),
    htmlEncode(password),
  ];
  // Longest first, so that a variant containing another is replaced whole.
  return [...new Set(all)].sort((a, b) => b.length - a.length);
}

export function makeCleaner(...passwords: string[]): (s: string) => string {
  const variants = [...new Set(passwords.flatMap(secretVariants))].sort((a, b) => b.length - a.length);
  return (s) => (variants.length ? redact(s, variants) : s);
}

/** A foreign error (undici, decoder) as a plain Error whose message and stack carry no secret. */
export function cleanCause(err: unknown, clean: (s: string) => string): unknown {
  if (!(err instanceof Error)) return typeof err === 'string' ? clean(err) : err;
  const copy = new Error(clean(err.message));
  copy.name = err.name;
  if (err.stack) copy.stack = clean(err.stack);
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') Object.assign(copy, { code });
  return copy;
}

/** A plain value (a fault's detail) with every string cleaned; the copy keeps its shape. */
export function cleanValue(value: unknown, clean: (s: string) => string): unknown {
  if (typeof value === 'string') return clean(value);
  if (Array.isArray(value)) return value.map((v) => cleanValue(v, clean));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[clean(k)] = cleanValue(v, clean);
    return out;
  }
  return value;
}
