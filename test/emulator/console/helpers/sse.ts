import { request, type ClientRequest } from 'node:http';

export interface SseEvent {
  event: string;
  data: unknown;
}

/** A minimal EventSource for tests: collects events, lets a test wait for one matching a predicate. */
export class SseClient {
  readonly events: SseEvent[] = [];
  /** Everything received, for "never contains" checks. */
  raw = '';
  status = 0;
  headers: Record<string, string | string[] | undefined> = {};
  private waiters: Array<{ match: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void }> = [];
  private req: ClientRequest | undefined;

  static open(baseUrl: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const client = new SseClient();
    const url = new URL('/_emulator/events', baseUrl);
    return new Promise((resolve, reject) => {
      client.req = request(
        { host: url.hostname, port: url.port, path: url.pathname, headers, agent: false },
        (res) => {
          client.status = res.statusCode ?? 0;
          client.headers = res.headers;
          let buffer = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            client.raw += chunk;
            buffer += chunk;
            let end: number;
            while ((end = buffer.indexOf('\n\n')) >= 0) {
              client.frame(buffer.slice(0, end));
              buffer = buffer.slice(end + 2);
            }
          });
          res.on('error', () => undefined);
          resolve(client);
        },
      );
      client.req.on('error', reject);
      client.req.end();
    });
  }

  /** Resolves with the first event (already received or coming) named `event` that matches. */
  next(
    event: string,
    match: (data: Record<string, unknown>) => boolean = () => true,
    ms = 5000,
  ): Promise<SseEvent> {
    const test = (e: SseEvent): boolean => e.event === event && match(e.data as Record<string, unknown>);
    const seen = this.events.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no '${event}' event within ${ms} ms`)), ms);
      this.waiters.push({
        match: test,
        resolve: (e) => {
          clearTimeout(timer);
          resolve(e);
        },
      });
    });
  }

  close(): void {
    this.req?.destroy();
  }

  private frame(text: string): void {
    let event = 'message';
    const data: string[] = [];
    for (const line of text.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    if (data.length === 0) return;
    const e = { event, data: JSON.parse(data.join('\n')) as unknown };
    this.events.push(e);
    this.waiters = this.waiters.filter((w) => {
      if (!w.match(e)) return true;
      w.resolve(e);
      return false;
    });
  }
}
