import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { Agent } from 'undici';
import { GatewayClient } from '../../src/client';
import { GatewayError } from '../../src/errors';
import { Stub, reply, soapResult } from './stub';

const BALANCE = soapResult('QueryAccountBalance', '<StatusCode>Ok</StatusCode><Value>7</Value>');
const BARE_BALANCE =
  '<?xml version="1.0" encoding="utf-8"?>\r\n<SOAPResponseOfDouble xmlns="urn:test">\r\n' +
  '  <StatusCode>Ok</StatusCode>\r\n  <Value>7</Value>\r\n</SOAPResponseOfDouble>';
const cert = readFileSync(join(__dirname, 'fixtures', 'localhost-cert.pem'));
const key = readFileSync(join(__dirname, 'fixtures', 'localhost-key.pem'));

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe('GatewayClient connections', () => {
  describe('over https', () => {
    let server: Server;
    let url: string;
    before(async () => {
      server = createHttpsServer({ cert, key }, (req, res) =>
        reply(res, 200, 'text/xml; charset=utf-8', req.method === 'GET' ? BARE_BALANCE : BALANCE),
      );
      url = `https://127.0.0.1:${await listen(server)}`;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const balance = async (
      extra: Partial<ConstructorParameters<typeof GatewayClient>[0]>,
    ): Promise<unknown> => {
      const c = new GatewayClient({
        baseUrl: url,
        user: 'u',
        password: 'pw-x',
        gatewayNamespace: 'urn:test',
        retries: 0,
        ...extra,
      });
      try {
        return await c.information.queryAccountBalance();
      } catch (e) {
        return e;
      } finally {
        await c.close();
      }
    };

    it('trusts a CA given in tls.ca', async () => {
      assert.equal(await balance({ tls: { ca: cert } }), 7);
    });

    it('refuses an unknown certificate as NETWORK, not ambiguous', async () => {
      const err = await balance({});
      assert.ok(err instanceof GatewayError, String(err));
      assert.equal(err.code, 'NETWORK');
      assert.equal(err.ambiguous, false);
    });

    it('accepts any certificate with rejectUnauthorized: false', async () => {
      assert.equal(await balance({ tls: { rejectUnauthorized: false } }), 7);
    });

    it('allows GET over https to any host', async () => {
      assert.equal(await balance({ tls: { ca: cert }, transport: 'get' }), 7);
    });
  });

  it('goes through a proxy given as proxyUrl (CONNECT tunnel)', async () => {
    const stub = await new Stub().start();
    stub.handler = (_r, res) => reply(res, 200, 'text/xml; charset=utf-8', BALANCE);
    const connects: string[] = [];
    const proxy = createHttpServer();
    const tunnels = new Set<Socket>();
    proxy.on('connect', (req, client: Socket, head: Buffer) => {
      connects.push(req.url ?? '');
      const [host, port] = (req.url ?? '').split(':');
      const upstream = connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client).pipe(upstream);
      });
      tunnels.add(client).add(upstream);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    const proxyPort = await listen(proxy);
    const c = new GatewayClient({
      baseUrl: stub.url,
      user: 'u',
      password: 'pw-x',
      gatewayNamespace: 'urn:test',
      proxyUrl: `http://127.0.0.1:${proxyPort}`,
    });
    try {
      assert.equal(await c.information.queryAccountBalance(), 7);
      assert.deepEqual(connects, [stub.url.replace('http://', '')]);
      assert.equal(stub.requests().length, 1);
    } finally {
      await c.close();
      for (const s of tunnels) s.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await stub.stop();
    }
  });

  it('uses a dispatcher passed in and leaves it open on close()', async () => {
    const stub = await new Stub().start();
    stub.handler = (_r, res) => reply(res, 200, 'text/xml; charset=utf-8', BALANCE);
    const agent = new Agent();
    let dispatched = 0;
    const counting = agent.compose((dispatch) => (opts, handler) => {
      dispatched++;
      return dispatch(opts, handler);
    });
    const c = new GatewayClient({
      baseUrl: stub.url,
      user: 'u',
      password: 'pw-x',
      gatewayNamespace: 'urn:test',
      dispatcher: counting,
    });
    try {
      assert.equal(await c.information.queryAccountBalance(), 7);
      assert.equal(dispatched, 1);
      await c.close();
      assert.equal(agent.closed, false);
      assert.equal(agent.destroyed, false);
    } finally {
      await agent.close();
      await stub.stop();
    }
  });

  it('keeps connections alive and within maxConnections', async () => {
    const stub = await new Stub().start();
    const sockets = new Set<string>();
    stub.handler = (r, res) => {
      sockets.add(`${res.socket?.remotePort}`);
      setTimeout(() => reply(res, 200, 'text/xml; charset=utf-8', BALANCE), 5);
    };
    const c = new GatewayClient({
      baseUrl: stub.url,
      user: 'u',
      password: 'pw-x',
      gatewayNamespace: 'urn:test',
      maxConnections: 3,
    });
    try {
      await Promise.all(Array.from({ length: 30 }, () => c.information.queryAccountBalance()));
      assert.equal(stub.requests().length, 30);
      assert.ok(sockets.size <= 3 && sockets.size >= 1, `used ${sockets.size} connections`);
    } finally {
      await c.close();
      await stub.stop();
    }
  });
});
