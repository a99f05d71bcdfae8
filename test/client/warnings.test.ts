import assert from 'node:assert/strict';
import { GatewayClient, type GatewayWarning } from '../../src/client';
import { Stub, reply, soapResult } from './stub';

const PASSWORD = 'secret-pw-1';
const DLR = soapResult(
  'QueryReceivedDLR',
  '<StatusCode>Ok</StatusCode><Value>' +
    '<SMSReport><Id>1</Id><DoneDateTimeZoneOffset>+02:00</DoneDateTimeZoneOffset></SMSReport>' +
    `<Other>x</Other><SMSReport><Id>2</Id><Sequence>${PASSWORD}</Sequence></SMSReport>` +
    '</Value>',
);

describe('client: warnings (onWarning) of tolerant decoding', () => {
  let stub: Stub;
  before(async () => {
    stub = await new Stub().start();
    stub.handler = (_r, res) => reply(res, 200, 'text/xml; charset=utf-8', DLR);
  });
  after(() => stub.stop());

  it('go to the client option and the call option, once per field, with the password masked', async () => {
    const own: GatewayWarning[] = [];
    const call: GatewayWarning[] = [];
    const client = new GatewayClient({
      baseUrl: stub.url,
      user: 'u',
      password: PASSWORD,
      gatewayNamespace: 'urn:test',
      onWarning: (w) => own.push(w),
    });
    try {
      const reports = await client.information.queryReceivedDlr(
        { StartDate: new Date(0), Limit: 10 },
        { onWarning: (w) => call.push(w) },
      );
      assert.deepEqual(
        reports.map((r) => [r.Id, r.DoneDateTimeZoneOffset]),
        [
          [1, '+02:00'],
          [2, 0],
        ],
      );
      assert.deepEqual(call, own);
      assert.deepEqual(
        own.map((w) => [w.kind, w.service, w.operation, w.field, w.value]),
        [
          ['value', 'information', 'QueryReceivedDLR', 'SMSReport.DoneDateTimeZoneOffset', '+02:00'],
          [
            'element',
            'information',
            'QueryReceivedDLR',
            'SOAPResponseOfListOfSMSReport.Value/Other',
            'Other',
          ],
          ['value', 'information', 'QueryReceivedDLR', 'SMSReport.Sequence', '********'],
        ],
      );
      assert.ok(!JSON.stringify(own).includes(PASSWORD));
      // A listener that throws does not fail the call.
      const again = await client.information.queryReceivedDlr(
        { StartDate: new Date(0), Limit: 10 },
        {
          onWarning: () => {
            throw new Error('listener broke');
          },
        },
      );
      assert.equal(again.length, 2);
    } finally {
      await client.close();
    }
  });
});
