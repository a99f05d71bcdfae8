import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { GatewayClient } from '../../src/client';
import { Stub, reply, soapResult } from './stub';

// V8's own answer to "do these two objects share a hidden class?" (%HaveSameMap), compiled after the flag is set.
setFlagsFromString('--allow-natives-syntax');
const sameShape = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

const send = {
  Caption: 'c',
  Sender: 'me',
  Recipient: ['+491701234567'],
  SMSText: 'hello',
  SmsTyp: 'Standard' as const,
  SendDate: null,
};

// Every result of a send carries `queued`. Added after a spread, that property gave each result a hidden class
// of its own, made in V8's slow path per call: slower to create and megamorphic for every flow that reads it.
describe('client: results of one operation share one object shape', () => {
  let stub: Stub;
  let client: GatewayClient;
  let next = 100;
  before(async () => {
    stub = await new Stub().start();
    stub.handler = (_req, res) =>
      reply(
        res,
        200,
        'text/xml; charset=utf-8',
        soapResult(
          'SendSMS',
          `<StatusCode>Ok</StatusCode><Value><Status>Ok</Status><JobId>${next++}</JobId></Value>`,
        ),
      );
    client = new GatewayClient({
      baseUrl: stub.url,
      user: 'demo',
      password: 'pw',
      gatewayNamespace: 'urn:test',
    });
  });
  after(async () => {
    await client.close();
    await stub.stop();
  });

  // V8's object-spread cache settles after a few calls; the per-result maps showed from then on.
  const CALLS = 20;
  const last2 = async <T>(call: () => Promise<T>): Promise<[T, T]> => {
    const out: T[] = [];
    for (let i = 0; i < CALLS; i++) out.push(await call());
    return [out[CALLS - 2]!, out[CALLS - 1]!];
  };

  it('SendSMS (typed service): same values as before, one hidden class', async () => {
    const [a, b] = await last2(() => client.send.sendSms(send));
    assert.deepEqual(Object.keys(a), ['Status', 'JobId', 'queued']);
    assert.equal(a.queued, false);
    assert.notEqual(a.JobId, b.JobId);
    assert.ok(sameShape(a, b), 'two SendSMS results have different hidden classes');
  });
});
