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

/**
 * What the wire layer hands over per request: the same as an entry, but with the time as epoch ms and the
 * request possibly still a Buffer (a text after `prefix`). Turning it into text, masking and clipping happen
 * only when someone reads the log, which most runs never do.
 */
export interface RawLogEntry extends Omit<RequestLogEntry, 'time' | 'request' | 'fault'> {
  at: number;
  fault: string | undefined;
  prefix: string;
  body: Buffer | undefined;
}

const clip = (s: string): string => (s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}…` : s);

function finish(raw: RawLogEntry): RequestLogEntry {
  const entry: RequestLogEntry = {
    time: new Date(raw.at).toISOString(),
    operation: raw.operation,
    service: raw.service,
    transport: raw.transport,
    status: raw.status,
    durationMs: raw.durationMs,
    request: clip(maskSecrets(raw.body ? raw.prefix + raw.body.toString('utf8') : raw.prefix)),
    response: clip(maskSecrets(raw.response)),
  };
  if (raw.fault !== undefined) entry.fault = raw.fault;
  return entry;
}

/** The newest `capacity` entries, oldest first, in a ring; each is made readable once, on first read. */
export class RequestLog {
  private readonly slots: Array<RawLogEntry | RequestLogEntry> = [];
  private readonly ready: boolean[] = [];
  /** Entries kept: a fraction keeps its whole part, NaN or Infinity keeps everything (as before the ring). */
  private readonly capacity: number;
  private start = 0;
  private count = 0;

  constructor(capacity = 200) {
    this.capacity = Number.isNaN(capacity) ? Infinity : Math.max(0, Math.floor(capacity));
  }

  add(entry: RequestLogEntry): void {
    this.push(
      { ...entry, request: clip(maskSecrets(entry.request)), response: clip(maskSecrets(entry.response)) },
      true,
    );
  }

  /** Adds an entry whose text is prepared later (see RawLogEntry). */
  addRaw(raw: RawLogEntry): void {
    this.push(raw, false);
  }

  list(): RequestLogEntry[] {
    const out: RequestLogEntry[] = new Array<RequestLogEntry>(this.count);
    for (let i = 0; i < this.count; i++) {
      const at = (this.start + i) % this.capacity;
      if (!this.ready[at]) {
        this.slots[at] = finish(this.slots[at] as RawLogEntry);
        this.ready[at] = true;
      }
      out[i] = this.slots[at] as RequestLogEntry;
    }
    return out;
  }

  clear(): void {
    this.slots.length = 0;
    this.ready.length = 0;
    this.start = 0;
    this.count = 0;
  }

  private push(entry: RawLogEntry | RequestLogEntry, ready: boolean): void {
    if (this.capacity <= 0) return;
    let at: number;
    if (this.count < this.capacity) {
      at = (this.start + this.count) % this.capacity;
      this.count += 1;
    } else {
      at = this.start;
      this.start = (this.start + 1) % this.capacity;
    }
    this.slots[at] = entry;
    this.ready[at] = ready;
  }
}
