/**
 * bytesPerTurn (src/transport/http.ts): a large answer is handed to the consumer in slices across turns of the
 * event loop, so a consumer with much work per byte (the generic path's answer gate) leaves room for every other
 * request of the process between slices. Unpaced, one wake-up of the socket hands over up to 2 MiB.
 * A turn here is what lies between two runs of a setImmediate ticker started before the exchange: the exchange's
 * own turn ends in the same check phase, after the ticker (immediates run in the order they were queued).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { createDispatcher, exchange, type BodyConsumer } from '../../src/transport';

const BODY = randomBytes(1024 * 1024);
const BUDGET = 4 * 1024;

/**
 * The server, in a thread of its own: it writes while the test's thread is busy, as a gateway does (in the same
 * thread, the two would take turns and the socket would never hold more than one small read).
 */
const SERVER = `
const { createServer } = require('node:http');
const { connect } = require('node:net');
const { parentPort, workerData } = require('node:worker_threads');
const body = Buffer.from(workerData);
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.url === '/chunked') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      for (let i = 0; i < body.length; i += 100000) res.write(body.subarray(i, i + 100000));
      res.end();
    } else {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length });
      res.end(body);
    }
  });
});
// A proxy (CONNECT tunnel), as a gateway behind proxyUrl is reached.
const proxy = createServer();
let tunnels = 0;
parentPort.on('message', () => parentPort.postMessage(tunnels));
proxy.on('connect', (req, client, head) => {
  tunnels++;
  const [host, port] = req.url.split(':');
  const upstream = connect(Number(port), host, () => {
    client.write('HTTP/1.1 200 Connection Established\\r\\n\\r\\n');
    upstream.write(head);
    upstream.pipe(client).pipe(upstream);
  });
  upstream.on('error', () => client.destroy());
  client.on('error', () => upstream.destroy());
});
server.listen(0, '127.0.0.1', () =>
  proxy.listen(0, '127.0.0.1', () =>
    parentPort.postMessage({ origin: 'http://127.0.0.1:' + server.address().port, proxy: 'http://127.0.0.1:' + proxy.address().port })));
`;

describe('transport: bytesPerTurn paces what the consumer gets', function () {
  this.timeout(30_000);
  let server: Worker;
  let origin: string;
  let proxyUrl: string;

  before(async () => {
    server = new Worker(SERVER, { eval: true, workerData: BODY });
    ({ origin, proxy: proxyUrl } = await new Promise<{ origin: string; proxy: string }>((resolve, reject) => {
      server.once('message', resolve);
      server.once('error', reject);
    }));
  });
  after(() => server.terminate());

  const tunnelsSoFar = (): Promise<number> =>
    new Promise<number>((resolve) => {
      server.once('message', resolve);
      server.postMessage('tunnels?');
    });

  /** Reads `path` with `bytesPerTurn`, recording the bytes handed to the consumer in each turn. */
  async function read(
    path: string,
    consumer: (turns: number[]) => BodyConsumer<Buffer>,
    bytesPerTurn: number | undefined,
    viaProxy = false,
  ): Promise<{ body?: Buffer; error?: unknown; turns: number[] }> {
    const turns: number[] = [0];
    let on = true;
    const tick = (): void => {
      if (!on) return;
      turns.push(0);
      setImmediate(tick);
    };
    setImmediate(tick);
    const dispatcher = createDispatcher({
      origin,
      maxConnections: 1,
      proxyUrl: viaProxy ? proxyUrl : undefined,
    });
    try {
      const body = await exchange(
        dispatcher,
        { method: 'GET', path, headers: {} },
        {
          origin,
          details: { operation: 'Test' },
          clean: (s) => s,
          bytesPerTurn,
          onHead: () => consumer(turns),
        },
      );
      return { body, turns };
    } catch (error) {
      return { error, turns };
    } finally {
      on = false;
      await dispatcher.close();
    }
  }

  /**
   * Keeps every chunk (copied: a chunk may be a view of a buffer undici reuses), counting bytes per turn. The first
   * write works 30 ms, as a cold gate does: meanwhile more of the answer waits in the socket.
   */
  const collect = (turns: number[]): BodyConsumer<Buffer> => {
    const chunks: Buffer[] = [];
    return {
      write(chunk) {
        turns[turns.length - 1]! += chunk.length;
        chunks.push(Buffer.from(chunk));
        if (chunks.length > 1) return;
        const until = performance.now() + 30;
        while (performance.now() < until);
      },
      end: () => Buffer.concat(chunks),
    };
  };

  for (const [path, viaProxy] of [
    ['/length', false],
    ['/chunked', false],
    ['/length', true],
  ] as const) {
    const what = `${path.slice(1)} body${viaProxy ? ', through a proxy' : ''}`;
    it(`hands over at most the budget per turn, every byte once and in order (${what})`, async () => {
      const tunnels = await tunnelsSoFar();
      const { body, error, turns } = await read(path, collect, BUDGET, viaProxy);
      assert.equal(await tunnelsSoFar(), tunnels + (viaProxy ? 1 : 0), 'tunnels opened by the proxy');
      assert.equal(error, undefined);
      assert.ok(body?.equals(BODY), 'the body as sent');
      const most = Math.max(...turns);
      assert.ok(most <= BUDGET, `${most} bytes in one turn (budget ${BUDGET})`);
      // The budget is used, not one socket read per turn.
      const busy = turns.filter((n) => n > 0);
      assert.ok(busy.length <= Math.ceil((2 * BODY.length) / BUDGET), `${busy.length} turns`);
    });
  }

  it('without a budget, one turn hands over far more (what the budget is for)', async () => {
    const { body, turns } = await read('/length', collect, undefined);
    assert.ok(body?.equals(BODY));
    assert.ok(Math.max(...turns) > 4 * BUDGET, `at most ${Math.max(...turns)} bytes in a turn`);
  });

  it('a consumer that throws fails the exchange with its error and gets nothing more', async () => {
    let writes = 0;
    const boom = new Error('limit passed');
    const { error } = await read(
      '/length',
      () => ({
        write() {
          if (++writes === 5) throw boom;
        },
        end: () => Buffer.alloc(0),
      }),
      BUDGET,
    );
    assert.equal(error, boom);
    await new Promise((r) => setTimeout(r, 50)); // a held rest would be handed over in the next turns
    assert.equal(writes, 5);
  });
});
