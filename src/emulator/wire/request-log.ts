import type { WireTransport } from '../contract';

export interface RequestLogEntry {
  time: string;
  operation: string | null;
  service: string | null;
  transport: WireTransport | 'wsdl' | 'help' | null;
  status: number;
  durationMs: number;
  request: string;
  response: string;
  fault?: string;
}

const MAX_TEXT = 64 * 1024;

const SECRET_KEYS = new Set(['password', 'smscpassword']);
const SECRET_ELEMENT_RE =
  /(<(?:[\w.-]+:)?(?:password|smscpassword)\b[^>]*>)((?:<!\[CDATA\[[\s\S]*?\]\]>|[^<])*)(<\/)/gi;
const FORM_PAIR_RE = /(^|[?&\s])([^=&\s]+)=([^&\s]*)/g;

const decodeKey = (key: string): string => {
  try {
    return decodeURIComponent(key.replace(/\+/g, ' '));
  } catch {
    return key;
  }
};

/** Every secret element or key spells "passw" out, or %-encodes some of it: text with neither holds none. */
const MAY_HOLD_SECRET_RE = /passw|%/i;

/** Credentials never reach the log: password elements (also in CDATA) and form keys (also %-encoded) are masked. */
export function maskSecrets(text: string): string {
  // Most texts (every answer, for one) hold no secret: skip the two scans over the whole text.
  if (!MAY_HOLD_SECRET_RE.test(text)) return text;
  return text
    .replace(SECRET_ELEMENT_RE, '$1***$3')
    .replace(FORM_PAIR_RE, (all, lead: string, key: string) =>
      SECRET_KEYS.has(decodeKey(key).trim().toLowerCase()) ? `${lead}${key}=***` : all,
    );
}

export class RequestLog {
  private readonly entries: RequestLogEntry[] = [];

  constructor(private readonly capacity = 200) {}

  add(entry: RequestLogEntry): void {
    const clip = (s: string): string => (s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}…` : s);
    this.entries.push({
      ...entry,
      request: clip(maskSecrets(entry.request)),
      response: clip(maskSecrets(entry.response)),
    });
    if (this.entries.length > this.capacity) this.entries.shift();
  }

  list(): RequestLogEntry[] {
    return [...this.entries];
  }

  clear(): void {
    this.entries.length = 0;
  }
}
