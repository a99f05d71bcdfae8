import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as path from 'node:path';

// Loading this package's undici must not change Node's own fetch in the same process (nodejs/undici#5500):
// checked in a fresh process, where nothing has touched fetch or undici before our client does.
const SCRIPT = `
const http = require('node:http');
const { GatewayClient } = require(${JSON.stringify(path.join(__dirname, '../../src/client'))});
const server = http.createServer((q, r) => { q.resume(); q.on('end', () => r.end('ok')); });
server.listen(0, '127.0.0.1', async () => {
  const url = 'http://127.0.0.1:' + server.address().port + '/';
  const client = new GatewayClient({ baseUrl: url, user: 'u', password: 'p', gatewayNamespace: 'urn:x' });
  await client.information.queryAccountBalance().catch(() => undefined); // builds the pool: undici is loaded
  const answer = await fetch(url, { method: 'POST', headers: { 'content-length': '5' }, body: Buffer.from('hello') })
    .then((r) => r.text())
    .catch((e) => 'ERR ' + (e.cause ? e.cause.message : e.message));
  await client.close();
  server.close();
  process.stdout.write(answer);
});
`;

describe('transport: the process keeps its own fetch', () => {
  it('a fetch that sets Content-Length still works after the client has loaded undici', async () => {
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['-r', 'tsx/cjs', '-e', SCRIPT],
        { timeout: 20_000 },
        (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
      ),
    );
    assert.equal(out, 'ok');
  });
});
