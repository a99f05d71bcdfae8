/**
 * The generic path checks a large answer in slices of GENERIC_BYTES_PER_TURN per turn of the event loop:
 * unpaced, one wake-up of the socket handed the gate up to 2 MiB, and a cold gate took tens of milliseconds
 * per 64 KiB, during which no other request of the process (an unrelated Node-RED endpoint) was served.
 * test/transport/bytes-per-turn.test.ts tests the pacing itself; this one that invoke() uses it.
 */
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { GatewayClient } from '../../src/client';
import { GENERIC_BYTES_PER_TURN } from '../../src/client/client';
import { isGatewayError } from '../../src/errors';
import { AnswerGate } from '../../src/generic/gate';

/** A gateway in a thread of its own (it writes while the test's thread is busy): 3 MB of `<a>1</a>`. */
const GATEWAY = `
const { createServer } = require('node:http');
const { parentPort } = require('node:worker_threads');
const head = '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">' +
  '<soap:Body><QueryReceivedDLRResponse xmlns="urn:x"><QueryReceivedDLRResult><StatusCode>Ok</StatusCode><Value>';
const tail = '</Value></QueryReceivedDLRResult></QueryReceivedDLRResponse></soap:Body></soap:Envelope>';
const body = Buffer.concat([Buffer.from(head), Buffer.alloc(3 * 1024 * 1024, '<a>1</a>'), Buffer.from(tail)]);
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/xml; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage('http://127.0.0.1:' + server.address().port));
`;

describe('generic path: a large answer is checked in slices across turns of the event loop', function () {
  this.timeout(30_000);
  let gateway: Worker;
  let url: string;
  const write = AnswerGate.prototype.write;

  before(async () => {
    gateway = new Worker(GATEWAY, { eval: true });
    url = await new Promise<string>((resolve, reject) => {
      gateway.once('message', resolve);
      gateway.once('error', reject);
    });
  });
  after(async () => {
    AnswerGate.prototype.write = write;
    await gateway.terminate();
  });

  it(`invoke() hands the gate at most ${GENERIC_BYTES_PER_TURN / 1024} KiB per turn; the hostile answer still fails with PARSE`, async () => {
    // A turn: what lies between two runs of a setImmediate ticker started before the call.
    const turns: number[] = [0];
    let on = true;
    const tick = (): void => {
      if (!on) return;
      turns.push(0);
      setImmediate(tick);
    };
    setImmediate(tick);
    let writes = 0;
    AnswerGate.prototype.write = function (this: AnswerGate, chunk: Uint8Array): void {
      turns[turns.length - 1]! += chunk.length;
      // The first check works 30 ms, as a cold gate does: meanwhile more of the answer waits in the socket.
      if (++writes === 1) for (const until = performance.now() + 30; performance.now() < until;);
      write.call(this, chunk);
    };
    const client = new GatewayClient({
      baseUrl: url,
      user: 'u',
      password: 'secret-pw',
      gatewayNamespace: 'urn:x',
      retries: 0,
    });
    try {
      const err = await client
        .invoke('information', 'QueryReceivedDLR', { StartDate: new Date(0), Limit: 5000 })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.ok(isGatewayError(err) && err.code === 'PARSE', String(err));
      assert.match(err.message, /more than 250,000 elements \(maxElements\)/);
    } finally {
      on = false;
      AnswerGate.prototype.write = write;
      await client.close();
    }
    const most = Math.max(...turns);
    assert.ok(most <= GENERIC_BYTES_PER_TURN, `${most} bytes checked in one turn`);
    // ~2 MB read before the limit: in well over a hundred turns.
    const busy = turns.filter((n) => n > 0).length;
    assert.ok(busy >= (2_000_000 / GENERIC_BYTES_PER_TURN) * 0.9, `in ${busy} turns`);
  });
});
