import assert from 'node:assert/strict';
import { GatewayClient } from '../../src/client';
import { Stub, reply, soapResult } from './stub';

describe('client: a baseUrl with a path prefix', () => {
  let stub: Stub;
  beforeEach(async () => {
    stub = await new Stub().start();
    stub.handler = (req, res) =>
      reply(
        res,
        200,
        'text/xml; charset=utf-8',
        req.url.includes('send.asmx')
          ? soapResult('QueryBalance2', '97.5', 'urn:legacy')
          : soapResult('QueryAccountBalance', '<StatusCode>Ok</StatusCode><Value>7</Value>'),
      );
  });
  afterEach(() => stub.stop());

  it('uses gatewayNamespace and legacyNamespace as given: no WSDL is fetched, paths keep the prefix', async () => {
    const client = new GatewayClient({
      baseUrl: `${stub.url}/prefix/`,
      user: 'u',
      password: 'secret-pw',
      gatewayNamespace: 'urn:test',
      legacyNamespace: 'urn:legacy',
      retries: 0,
    });
    try {
      assert.equal(await client.information.queryAccountBalance(), 7);
      assert.equal((await client.legacy.queryBalance2()).balance, 97.5);
    } finally {
      await client.close();
    }
    assert.deepEqual(
      stub.seen.map((r) => r.url),
      ['/prefix/gateway/Information.asmx', '/prefix/soap/send.asmx'],
    );
    assert.match(String(stub.seen[0]?.body), /xmlns="urn:test"/);
    assert.match(String(stub.seen[1]?.body), /urn:legacy/);
  });
});
