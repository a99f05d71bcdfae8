/**
 * The first msg of a deployed flow loads no module. A require is synchronous: undici (~250 ms, the largest part
 * of the 0.5-0.75 s that the 23 MB hostile answer blocked Node-RED, on a busy machine),
 * libphonenumber-js with a default country (~100 ms) and the generic path's libraries (~150 ms) would block every
 * other flow while that msg waits. They load at deploy. Checked in a fresh process: in the mocha process,
 * another test has loaded them before.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as path from 'node:path';

const HELPERS = path.join(__dirname, 'helpers');

const SCRIPT = `
const http = require('node:http');
const { helper, flowWith, loadFlow, nextMessage, send, sleep } = require(${JSON.stringify(HELPERS)});
const ANSWER = '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">' +
  '<soap:Body><QueryAccountBalanceResponse xmlns="urn:first"><QueryAccountBalanceResult><StatusCode>Ok</StatusCode>' +
  '<Value>12.5</Value></QueryAccountBalanceResult></QueryAccountBalanceResponse></soap:Body></soap:Envelope>';
const server = http.createServer((q, r) => {
  q.resume();
  q.on('end', () => r.writeHead(200, { 'content-type': 'text/xml; charset=utf-8' }).end(ANSWER));
});
server.listen(0, '127.0.0.1', async () => {
  const url = 'http://127.0.0.1:' + server.address().port;
  const call = (id, extra) => ({ id, type: 'smsgw-call', gateway: 'cfg', service: 'information',
    operation: 'QueryAccountBalance', auth: 'auto', wires: [['out']], ...extra });
  await loadFlow(flowWith(url, [call('n1', {})], { gatewayNamespace: 'urn:first', defaultCountry: 'DE' }));
  await sleep(100); // the deploy's own turns
  const before = new Set(Object.keys(require.cache));
  const out = nextMessage('out');
  const caught = nextMessage('caught').then((m) => { throw new Error('caught: ' + JSON.stringify(m.error)); });
  send('n1', { payload: {} });
  const msg = await Promise.race([out, caught]);
  const loaded = Object.keys(require.cache).filter((f) => !before.has(f)).map((f) => require('node:path').relative(process.cwd(), f));
  await helper.unload();
  server.close();
  process.stdout.write(JSON.stringify({ loaded, payload: msg.payload }));
  process.exit(0);
});
`;

describe('nodes: the first msg of a deployed flow', function () {
  // A process of its own that compiles the sources and starts Node-RED: ~10 s, a minute on a loaded machine.
  this.timeout(150_000);

  it('loads no module: the client and the generic path load theirs at deploy', async () => {
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['-r', 'tsx/cjs', '-e', SCRIPT],
        { timeout: 120_000, cwd: path.join(__dirname, '..', '..') },
        (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
      ),
    );
    const { loaded, payload } = JSON.parse(out) as { loaded: string[]; payload: unknown };
    assert.ok(payload !== undefined, 'the call answered');
    // Only undici's HTTP parser, which it compiles (~2 ms) at its first connection.
    assert.deepEqual(
      loaded.filter((f) => !/^node_modules\/undici\/lib\/llhttp\/llhttp(_simd)?-wasm\.js$/.test(f)),
      [],
    );
  });
});
