import assert from 'node:assert/strict';
import fc from 'fast-check';
import { findOperation } from '../../src/catalogue';
import { GatewayError } from '../../src/errors';
import { createResponseDecoder } from '../../src/soap/decode';
import type { DecodeWarning } from '../../src/soap/warnings';
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
  it('reads text bytes beyond ASCII, character references and CDATA alike, split at every byte', () => {
    const text = 'é &#xE9; &#233; 😀 &#x1F600; Grüße — &amp; مرحبا';
    const want = 'é é é 😀 😀 Grüße — & مرحبا' + ' <ü> ]]';
    const bytes = Buffer.from(
      legacyEnvelope(`<QueryBalance2Result>${text}<![CDATA[ <ü> ]]]]></QueryBalance2Result>`),
    );
    for (let i = 1; i < bytes.length; i++)
      assert.equal(decodeChunks(balance2, 'soap11', bytes, [i]), want, `split at ${i}`);
  });

  it('reads any bytes in a text value as TextDecoder reads them (invalid ones as U+FFFD), in any chunks', () => {
    const bytesArb = fc
      .uint8Array({ maxLength: 60 })
      .map((b) => b.filter((x) => x !== 0x3c && x !== 0x26 && x !== 0x0d && x !== 0x5d));
    fc.assert(
      fc.property(bytesArb, fc.array(fc.nat(), { maxLength: 6 }), (value, cuts) => {
        const head = Buffer.from(
          legacyEnvelope('<QueryBalance2Result>').split('<QueryBalance2Result>')[0] + '<QueryBalance2Result>',
        );
        const tail = Buffer.from(
          '</QueryBalance2Result></QueryBalance2Response></soap:Body></soap:Envelope>',
        );
        const bytes = Buffer.concat([head, value, tail]);
        const splits = cuts.map((c) => c % bytes.length);
        assert.equal(decodeChunks(balance2, 'soap11', bytes, splits), new TextDecoder().decode(value));
      }),
      { numRuns: 1000 },
    );
  });

  it('skips a UTF-8 BOM before the document, cut anywhere', () => {
    const bytes = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(legacyEnvelope('<QueryBalance2Result>ü</QueryBalance2Result>')),
    ]);
    for (const cut of [0, 1, 2, 3, 4]) assert.equal(decodeChunks(balance2, 'soap11', bytes, [cut]), 'ü');
  });

  it('names elements beyond ASCII as written in errors and warnings', () => {
    const e = parseError(() =>
      decodeChunks(balance2, 'soap11', Buffer.from(legacyEnvelope('<Grüße>1</Grüßx>'))),
    );
    assert.match(e.message, /<\/Grüßx> does not close <Grüße>/);
    const warnings: DecodeWarning[] = [];
    decodeChunks(
      dlr,
      'soap11',
      Buffer.from(dlrEnvelope('<Id>1</Id><Straße>x</Straße>')),
      [],
      undefined,
      (w) => warnings.push(w),
    );
    assert.deepEqual(
      warnings.map((w) => [w.kind, w.value]),
      [['element', 'Straße']],
    );
  });

  it('makes records plain objects: Object.prototype, own fields only, equal to the literal with the same fields', () => {
    const bytes = Buffer.from(dlrEnvelope('<Id>5</Id><Recipient>+4917012345678</Recipient><JobId>7</JobId>'));
    const r = (decodeChunks(dlr, 'soap11', bytes) as { Value: Record<string, unknown>[] }).Value[0]!;
    assert.equal(Object.getPrototypeOf(r), Object.prototype);
    assert.equal(r.constructor, Object);
    assert.deepStrictEqual(r, {
      Id: 5,
      Recipient: '+4917012345678',
      JobId: 7,
      MsgCode: 0,
      DoneDateTimeZoneOffset: 0,
      Sequence: 0,
      Date: null,
      DoneDate: null,
      CreateDate: null,
    });
    assert.deepEqual(Object.keys(r), [
      'Id',
      'Recipient',
      'JobId',
      'Date',
      'MsgCode',
      'DoneDate',
      'DoneDateTimeZoneOffset',
      'Sequence',
      'CreateDate',
    ]);
    assert.deepStrictEqual(structuredClone(r), r);
  });

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
    // Not a dateTime: the raw text is kept (see the tolerant decoding tests below).
    assert.equal(read('22.11.2026'), '22.11.2026');
    assert.equal(read(''), '');
  });

  describe('tolerant decoding: one odd value or unknown element never costs the other records', () => {
    const decodeWarned = (xml: string) => {
      const warnings: DecodeWarning[] = [];
      const result = decodeChunks(dlr, 'soap11', Buffer.from(xml), [], undefined, (w) => warnings.push(w));
      return { value: (result as { Value: Array<Record<string, unknown>> }).Value, warnings };
    };
    const page = (records: string[]) =>
      dlrEnvelope('').replace(
        '<SMSReport></SMSReport>',
        records.map((r) => `<SMSReport>${r}</SMSReport>`).join(''),
      );

    it('a value that does not fit its type keeps its raw text; one warning per field, naming it and the value', () => {
      const records = Array.from({ length: 200 }, (_, i) =>
        i === 57
          ? `<Id>${i}</Id><Date /><DoneDateTimeZoneOffset>+02:00</DoneDateTimeZoneOffset><Sequence>x</Sequence>`
          : i === 58
            ? `<Id>${i}</Id><DoneDateTimeZoneOffset>+01:00</DoneDateTimeZoneOffset>`
            : `<Id>${i}</Id><Date>2026-11-22T10:00:00Z</Date><DoneDateTimeZoneOffset>60</DoneDateTimeZoneOffset>`,
      );
      const { value, warnings } = decodeWarned(page(records));
      assert.equal(value.length, 200);
      assert.deepEqual(
        value.map((r) => r.Id),
        Array.from({ length: 200 }, (_, i) => i),
      );
      assert.equal(value[57]!.DoneDateTimeZoneOffset, '+02:00');
      assert.equal(value[57]!.Date, '');
      assert.equal(value[57]!.Sequence, 'x');
      assert.equal(value[58]!.DoneDateTimeZoneOffset, '+01:00');
      assert.equal(value[0]!.DoneDateTimeZoneOffset, 60);
      assert.deepEqual(
        warnings.map((w) => [w.kind, w.operation, w.field, w.value, w.type]),
        [
          ['value', 'QueryReceivedDLR', 'SMSReport.Date', '', 'dateTime'],
          ['value', 'QueryReceivedDLR', 'SMSReport.DoneDateTimeZoneOffset', '+02:00', 'int'],
          ['value', 'QueryReceivedDLR', 'SMSReport.Sequence', 'x', 'int'],
        ],
      );
      assert.equal(
        warnings[1]!.message,
        'QueryReceivedDLR: SMSReport.DoneDateTimeZoneOffset = "+02:00" is not a valid int; kept as text',
      );
    });

    it("an enum member the catalogue does not list is kept as written (no warning); an empty one is kept as '' with one", () => {
      const queryJobs = findOperation('information', 'QueryJobs')!;
      const jobs = ['Erledigt', 'Versendet', '', 'Offen'].map(
        (status, i) => `<dbSMSJob><Id>${i + 1}</Id><Typ>Standart</Typ><Status>${status}</Status></dbSMSJob>`,
      );
      const xml =
        '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><QueryJobsResponse xmlns="urn:x">' +
        `<QueryJobsResult><StatusCode>Ok</StatusCode><Value>${jobs.join('')}</Value></QueryJobsResult>` +
        '</QueryJobsResponse></soap:Body></soap:Envelope>';
      const warnings: DecodeWarning[] = [];
      const result = decodeChunks(queryJobs, 'soap11', Buffer.from(xml), [], undefined, (w) =>
        warnings.push(w),
      );
      const value = (result as { Value: Array<Record<string, unknown>> }).Value;
      assert.deepEqual(
        value.map((j) => [j.Id, j.Status]),
        [
          [1, 'Erledigt'],
          [2, 'Versendet'],
          [3, ''],
          [4, 'Offen'],
        ],
      );
      assert.deepEqual(
        warnings.map((w) => [w.operation, w.field, w.value, w.type]),
        [['QueryJobs', 'dbSMSJob.Status', 'Versendet', 'JobStatus']],
      );
      assert.equal(
        warnings[0]!.message,
        'QueryJobs: dbSMSJob.Status = "Versendet" is not a valid JobStatus; kept as text',
      );
    });

    it('an unknown element inside a list is skipped, as XmlSerializer does, not read as a record of defaults', () => {
      const xml = page(['<Id>1</Id>', '<Id>2</Id>']).replace(
        '</SMSReport><SMSReport>',
        '</SMSReport><Other><Id>9</Id></Other><x:Other xmlns:x="urn:y"/><SMSReport>',
      );
      const { value, warnings } = decodeWarned(xml);
      assert.deepEqual(
        value.map((r) => r.Id),
        [1, 2],
      );
      assert.deepEqual(
        warnings.map((w) => [w.kind, w.field, w.value, w.message]),
        [
          [
            'element',
            'SOAPResponseOfListOfSMSReport.Value/Other',
            'Other',
            'QueryReceivedDLR: unknown element <Other> in SOAPResponseOfListOfSMSReport.Value skipped',
          ],
        ],
      );
    });

    it('unknown elements elsewhere (a record, the envelope, the wrapper, inside a value) are skipped with a warning', () => {
      const xml = dlrEnvelope('<Id>4<b>bold</b></Id><Extra>1</Extra><Recipient>+49</Recipient>')
        .replace('<StatusCode>', '<Unexpected/><StatusCode>')
        .replace('<QueryReceivedDLRResult>', '<Note>n</Note><QueryReceivedDLRResult>');
      const { value, warnings } = decodeWarned(xml);
      assert.equal(value[0]!.Recipient, '+49');
      assert.equal(value[0]!.Id, 4);
      assert.deepEqual(warnings.map((w) => w.field).sort(), [
        'QueryReceivedDLRResponse/Note',
        'SMSReport.Id/b',
        'SMSReport/Extra',
        'SOAPResponseOfListOfSMSReport/Unexpected',
      ]);
    });

    it('without a listener the same records come back, silently', () => {
      const xml = page(['<Id>1</Id><Sequence>x</Sequence>', '<Id>2</Id>']).replace(
        '</SMSReport><SMSReport>',
        '</SMSReport><Other/><SMSReport>',
      );
      const result = decodeChunks(dlr, 'soap11', Buffer.from(xml)) as {
        Value: Array<Record<string, unknown>>;
      };
      assert.deepEqual(
        result.Value.map((r) => [r.Id, r.Sequence]),
        [
          [1, 'x'],
          [2, 0],
        ],
      );
    });
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
