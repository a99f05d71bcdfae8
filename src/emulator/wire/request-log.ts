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
const SECRET_OPEN_RE = /<(?:[\w.-]+:)?(?:password|smscpassword)\b[^>]*>/gi;
/** Markup inside an element's content that is not its end: CDATA, comments, processing instructions. */
const SKIPPED: ReadonlyArray<readonly [string, string]> = [
  ['<![CDATA[', ']]>'],
  ['<!--', '-->'],
  ['<?', '?>'],
];

/** Where the content starting at `from` ends: its end tag, past CDATA, comments, PIs and child elements. */
function contentEnd(text: string, from: number): number {
  let depth = 0;
  let i = from;
  while (i < text.length) {
    const lt = text.indexOf('<', i);
    if (lt < 0) return text.length;
    const skip = SKIPPED.find(([open]) => text.startsWith(open, lt));
    if (skip) {
      const close = text.indexOf(skip[1], lt + skip[0].length);
      if (close < 0) return text.length;
      i = close + skip[1].length;
      continue;
    }
    const gt = text.indexOf('>', lt);
    if (gt < 0) return text.length;
    if (text.startsWith('</', lt)) {
      if (depth === 0) return lt;
      depth -= 1;
    } else if (text[gt - 1] !== '/') depth += 1; // a child element: its text is masked with the rest
    i = gt + 1;
  }
  return text.length;
}

/**
 * The whole content of every password element masked: text, CDATA, and text split by comments or processing
 * instructions (`<Password>se<!-- x -->cret</Password>`), up to its end tag, or to the end of a cut request.
 */
function maskElements(text: string): string {
  let out = '';
  let pos = 0;
  SECRET_OPEN_RE.lastIndex = 0;
  for (let m = SECRET_OPEN_RE.exec(text); m; m = SECRET_OPEN_RE.exec(text)) {
    if (m[0].endsWith('/>')) continue;
    const start = m.index + m[0].length;
    const end = contentEnd(text, start);
    out += text.slice(pos, start) + '***';
    pos = end;
    SECRET_OPEN_RE.lastIndex = Math.max(end, start);
  }
  return out + text.slice(pos);
}
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

/**
 * Credentials never reach the log: password elements (their whole content, CDATA and comments included) and
 * form keys (also %-encoded) are masked.
 */
export function maskSecrets(text: string): string {
  // Most texts (every answer, for one) hold no secret: skip the two scans over the whole text.
  if (!MAY_HOLD_SECRET_RE.test(text)) return text;
  return maskElements(text).replace(FORM_PAIR_RE, (all, lead: string, key: string) =>
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
