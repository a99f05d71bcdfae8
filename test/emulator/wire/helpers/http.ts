import { request } from 'node:http';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Set when the connection broke before a complete answer. */
  error?: string;
}

/** Raw HTTP to the emulator (127.0.0.1 only), so tests control every header and byte. */
export function http(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string | Buffer,
): Promise<HttpAnswer> {
  return new Promise((resolve) => {
    const url = new URL(baseUrl);
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { Connection: 'close', ...headers },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', (err) =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            error: err.message,
          }),
        );
        res.on('aborted', () => undefined);
      },
    );
    req.on('error', (err) => resolve({ status: 0, headers: {}, body: '', error: err.message }));
    if (body !== undefined) req.end(body);
    else req.end();
  });
}
