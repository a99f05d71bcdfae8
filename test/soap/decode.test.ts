import assert from 'node:assert/strict';
import { findOperation } from '../../src/catalogue';
import { GatewayError } from '../../src/errors';
import { createResponseDecoder } from '../../src/soap/decode';
import { decodeChunks, normalize, thrown } from './helpers';

const balance2 = findOperation('legacy', 'QueryBalance2')!;
const dlr = findOperation('information', 'QueryReceivedDLR')!;
const legacyEnvelope = (inner: string) =>
  `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><QueryBalance2Response xmlns="urn:x">${inner}</QueryBalance2Response></soap:Body></soap:Envelope>`;
const dlrEnvelope = (record: string) =>
  `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><QueryReceivedDLRResponse xmlns="urn:x"><QueryReceivedDLRResult><StatusCode>Ok</StatusCode><Value><SMSReport>${record}</SMSReport></Value></QueryReceivedDLRResult></QueryReceivedDLRResponse></soap:Body></soap:Envelope>`;

function parseError(fn: () => unknown): GatewayError {
  const e = thrown(fn);
  assert.ok(e instanceof GatewayError, String(e));
  assert.equal(e.code, 'PARSE', e.message);
  return e;
}

describe('soap/decode', () => {
  it('reassembles a multi-byte UTF-8 character split across chunks at every byte', () => {
    const text = 'Grüße € 👋 مرحبا';
    const bytes = Buffer.from(legacyEnvelope(`<QueryBalance2Result>${text}</QueryBalance2Result>`));
    for (let i = 1; i < bytes.length; i++) {
      assert.equal(decodeChunks(balance2, 'soap11', bytes, [i]), text, `split at ${i}`);
    }
  });

  it('reads zone-less dates as UTC by default and as local time when asked', () => {
    const bytes = Buffer.from(dlrEnvelope('<Date>2026-07-01T12:30:00</Date>'));
    const utc = decodeChunks(dlr, 'soap11', bytes) as { Value: Array<{ Date: Date }> };
    assert.equal(utc.Value[0]!.Date.toISOString(), '2026-07-01T12:30:00.000Z');
    const local = decodeChunks(dlr, 'soap11', bytes, [], 'local') as { Value: Array<{ Date: Date }> };
    assert.equal(local.Value[0]!.Date.getTime(), new Date(2026, 6, 1, 12, 30).getTime());
  });

  it('reads date forms off the fast path the same way (odd spacing, no seconds, 9 fraction digits, Feb 29)', () => {
    const read = (text: string) =>
      normalize(
        (
          decodeChunks(dlr, 'soap11', Buffer.from(dlrEnvelope(`<Date>${text}</Date>`))) as {
            Value: Array<{ Date: Date }>;
          }
        ).Value[0]!.Date,
      );
    assert.deepEqual(read(' 2026-11-22T10:00:00Z '), { $date: '2026-11-22T10:00:00.000Z' });
    assert.deepEqual(read('2026-11-22T10:00Z'), { $date: '2026-11-22T10:00:00.000Z' });
    assert.deepEqual(read('2026-11-22T10:00:00.123456789-01:00'), { $date: '2026-11-22T11:00:00.123Z' });
    assert.deepEqual(read('2028-02-29T00:00:00'), { $date: '2028-02-29T00:00:00.000Z' });
    assert.deepEqual(read('0001-01-01T00:00:00Z'), null);
    parseError(() => decodeChunks(dlr, 'soap11', Buffer.from(dlrEnvelope('<Date>22.11.2026</Date>'))));
    parseError(() => decodeChunks(dlr, 'soap11', Buffer.from(dlrEnvelope('<Date />'))));
  });

  it('an empty body, whitespace or a text/plain error is a PARSE error', () => {
    for (const body of ['', '  \r\n', 'System.InvalidOperationException: Missing parameter: User.\r\n']) {
      parseError(() => decodeChunks(balance2, 'post', Buffer.from(body)));
    }
  });

  it('a SOAP envelope where a bare GET/POST root is expected (and vice versa) is a PARSE error', () => {
    const soap = Buffer.from(legacyEnvelope('<QueryBalance2Result>1</QueryBalance2Result>'));
    parseError(() => decodeChunks(balance2, 'get', soap));
    parseError(() => decodeChunks(balance2, 'soap12', Buffer.from('<string xmlns="urn:x">1</string>')));
  });

  it('an href that never resolves is a PARSE error', () => {
    const e = parseError(() =>
      decodeChunks(balance2, 'soap11', Buffer.from(legacyEnvelope('<QueryBalance2Result href="#id9" />'))),
    );
    assert.match(e.message, /id9/);
  });

  it('errors are sticky: once a write threw, later writes and end() throw the same error', () => {
    const d = createResponseDecoder(balance2, { transport: 'soap11' });
    const first = thrown(() => d.write(Buffer.from('<html><body>')));
    assert.ok(first instanceof GatewayError && first.code === 'PARSE');
    assert.equal(
      thrown(() => d.write(Buffer.from('</body></html>'))),
      first,
    );
    assert.equal(
      thrown(() => d.end()),
      first,
    );
  });

  it('a fault is reported as soon as its element closes, with the decoder name and service set', () => {
    const d = createResponseDecoder(balance2, { transport: 'soap11' });
    const e = thrown(() =>
      d.write(
        Buffer.from(
          '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><soap:Fault><faultcode>soap:Server</faultcode><faultstring>boom</faultstring></soap:Fault>',
        ),
      ),
    );
    assert.ok(e instanceof GatewayError);
    assert.deepEqual(
      [e.code, e.status, e.operation, e.service, e.message],
      ['FAULT', 'Server', 'QueryBalance2', 'legacy', 'QueryBalance2: boom'],
    );
  });

  it('limits the body excerpt of a PARSE error', () => {
    const e = parseError(() => decodeChunks(balance2, 'soap11', Buffer.from(`<html>${'x'.repeat(5000)}`)));
    assert.ok(e.body!.length <= 201 && e.body!.startsWith('<html>'));
  });
});
