import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isGatewayError } from '../../src/errors';
import { createDispatcher, exchange, type BodyConsumer } from '../../src/transport';

// The exchanges of one caller's signal are found through one shared listener (src/transport/http.ts):
// aborting it must stop every exchange of that signal still running, and only those.
describe('transport: the caller signal', () => {
  let server: Server;
  let origin: string;
  /** Requests to /slow wait here until answered by hand. */
  const held: ServerResponse[] = [];
  let arrived: () => void = () => undefined;

  before(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      if (req.url === '/slow') {
        held.push(res);
        arrived();
      } else res.end('fast');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const res of held) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const text = (): BodyConsumer<string> => {
    let out = '';
    return { write: (c) => (out += c.toString('utf8')), end: () => out };
  };
  const call = (dispatcher: ReturnType<typeof createDispatcher>, path: string, signal: AbortSignal) =>
    exchange(
      dispatcher,
      { method: 'GET', path, headers: {} },
      { origin, signal, details: { operation: 'Test' }, clean: (s) => s, onHead: text },
    );

  it('aborting a signal fails all of its exchanges in flight, and no other', async () => {
    const dispatcher = createDispatcher({ origin, maxConnections: 8 });
    try {
      const shared = new AbortController();
      const other = new AbortController();
      const waitFor = (n: number): Promise<void> =>
        new Promise<void>((resolve) => {
          arrived = () => {
            if (held.length >= n) resolve();
          };
          arrived();
        });
      const mine = [1, 2, 3].map(() => call(dispatcher, '/slow', shared.signal));
      const theirs = call(dispatcher, '/slow', other.signal);
      await waitFor(4);
      // A finished exchange of the same signal must not disturb the others.
      assert.equal(await call(dispatcher, '/fast', shared.signal), 'fast');
      shared.abort();
      const results = await Promise.allSettled(mine);
      for (const r of results) {
        assert.equal(r.status, 'rejected');
        const err = (r as PromiseRejectedResult).reason as unknown;
        assert.ok(isGatewayError(err) && err.code === 'TIMEOUT', String(err));
        assert.match((err as Error).message, /aborted by the caller/);
      }
      // The other signal's exchange is still waiting: answer whatever is still open.
      for (const res of held) if (!res.writableEnded && !res.destroyed) res.end('late');
      assert.equal(await theirs, 'late');
      // A signal aborted before the start fails at once, without a request.
      const before = held.length;
      await assert.rejects(call(dispatcher, '/slow', shared.signal), /aborted by the caller/);
      assert.equal(held.length, before);
    } finally {
      await dispatcher.close();
    }
  });
});
