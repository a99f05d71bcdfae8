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

/** Credentials never reach the log: password elements, form keys and attributes are masked. */
export function maskSecrets(text: string): string {
  return text
    .replace(/(<(?:[\w.-]+:)?(?:password|Password|SMSCPassword)\b[^>]*>)([^<]*)(<)/g, '$1***$3')
    .replace(/((?:^|[?&\s])(?:password|smscpassword)=)([^&\s]*)/gi, '$1***');
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
