import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { findOperation } from '../../src/catalogue';
import { GatewayError } from '../../src/errors';
import { buildRequest } from '../../src/soap/request';
import { escapeText } from '../../src/soap/escape';
import { dateReader } from '../../src/soap/read-values';
import { parseDateTime } from '../../src/soap/values';
import { FIXTURES, decodeChunks, normalize, responseCases } from './helpers';

const sendText = findOperation('legacy', 'SendText')!;
const dlr = findOperation('information', 'QueryReceivedDLR')!;

/** XML 1.0 Char production, written independently of escape.ts. */
function xmlChars(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    const ok =
      c === 0x9 ||
      c === 0xa ||
      c === 0xd ||
      (c >= 0x20 && c <= 0xd7ff) ||
      (c >= 0xe000 && c <= 0xfffd) ||
      (c >= 0x10000 && c <= 0x10ffff);
    if (ok) out += ch;
  }
  return out;
}

const tricky = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({
    unit: fc.constantFrom(
      '<',
      '&',
      ']]>',
      '>',
      '\r',
      '\n',
      '\r\n',
      '\t',
      '"',
      "'",
      '😀',
      'ש',
      'ل',
      '\u200f',
      '\ud800',
      '\u0001',
      'a',
      ' ',
    ),
  }),
);

const outcome = (fn: () => unknown): unknown => {
  try {
    return { ok: normalize(fn()) };
  } catch (e) {
    if (!(e instanceof GatewayError)) throw e;
    return { code: e.code, status: e.status };
  }
};

describe('soap properties (fast-check)', () => {
  it('any text escaped into a result element decodes back to itself (minus chars XML cannot carry)', () => {
    fc.assert(
      fc.property(tricky, (s) => {
        const xml = `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><SendTextResponse xmlns="urn:x"><SendTextResult>${escapeText(s)}</SendTextResult></SendTextResponse></soap:Body></soap:Envelope>`;
        assert.equal(decodeChunks(sendText, 'soap11', Buffer.from(xml)), xmlChars(s));
      }),
      { numRuns: 500 },
    );
  });

  it('the request builder’s text survives a round trip through the decoder (SMSText of an RPC request)', () => {
    fc.assert(
      fc.property(tricky, (s) => {
        const params = {
          User: 'u',
          Password: 'p',
          Caption: 'c',
          Sender: 's',
          Recipient: 'r',
          SMSText: s,
          SmsTyp: '1',
          SendDate: '',
        };
        const body = buildRequest(sendText, params, {
          transport: 'soap12',
          namespace: 'urn:x',
          path: '/p',
        }).body!;
        const inner = /<SMSText xsi:type="xsd:string">(.*?)<\/SMSText>/s.exec(body)![1]!;
        const xml = `<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body><SendTextResponse><SendTextResult>${inner}</SendTextResult></SendTextResponse></e:Body></e:Envelope>`;
        assert.equal(decodeChunks(sendText, 'soap12', Buffer.from(xml)), xmlChars(s));
      }),
      { numRuns: 300 },
    );
  });

  it('arbitrary bytes, in arbitrary chunks, never throw anything but a GatewayError', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 400 }),
        fc.array(fc.nat(400), { maxLength: 6 }),
        (bytes, splits) => {
          outcome(() => decodeChunks(dlr, 'soap11', bytes, splits));
          outcome(() => decodeChunks(dlr, 'get', bytes, splits));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('damaged valid documents (bytes flipped, cut, spliced) never throw anything but a GatewayError', () => {
    const docs = responseCases().map((c) => c.xml);
    fc.assert(
      fc.property(
        fc.nat(docs.length - 1),
        fc.array(fc.tuple(fc.nat(4000), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }),
        fc.nat(4000),
        (which, flips, cut) => {
          const doc = Buffer.from(docs[which]!);
          for (const [at, b] of flips) doc[at % doc.length] = b;
          const bytes = doc.subarray(0, Math.max(1, cut % (doc.length + 1)));
          for (const t of ['soap11', 'soap12', 'get', 'post'] as const)
            outcome(() => decodeChunks(dlr, t, bytes, [cut % 97]));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('any split of a fixture body gives the same result (or the same error) as the whole body', () => {
    const cases = responseCases();
    fc.assert(
      fc.property(fc.nat(cases.length - 1), fc.array(fc.nat(5000), { maxLength: 12 }), (which, splits) => {
        const c = cases[which]!;
        const op = findOperation(...(c.op.split('/') as ['information', string]))!;
        const whole = outcome(() => decodeChunks(op, c.transport, c.xml));
        const split = outcome(() =>
          decodeChunks(
            op,
            c.transport,
            c.xml,
            splits.map((s) => s % (c.xml.length + 1)),
          ),
        );
        assert.deepStrictEqual(split, whole);
      }),
      { numRuns: 300 },
    );
  });

  it('a multi-record literal body decodes identically in any chunking (up to 40 splits)', () => {
    const xml = readFileSync(join(FIXTURES, 'responses', 'soap11-dlr-literal.xml'));
    fc.assert(
      fc.property(fc.array(fc.nat(xml.length), { minLength: 1, maxLength: 40 }), (splits) => {
        assert.deepStrictEqual(
          normalize(decodeChunks(dlr, 'soap11', xml, splits)),
          normalize(decodeChunks(dlr, 'soap11', xml)),
        );
      }),
      { numRuns: 100 },
    );
  });
});

describe('soap fast date reader (fast-check)', () => {
  it('agrees with values.ts parseDateTime on every layout it takes a shortcut for', () => {
    const two = (n: number) => String(n).padStart(2, '0');
    for (const zoneless of ['utc', 'local'] as const) {
      const read = dateReader(zoneless);
      fc.assert(
        fc.property(
          fc.record({
            y: fc.integer({ min: 1, max: 9999 }),
            mo: fc.integer({ min: 1, max: 12 }),
            d: fc.integer({ min: 1, max: 31 }),
            h: fc.integer({ min: 0, max: 23 }),
            mi: fc.integer({ min: 0, max: 59 }),
            s: fc.integer({ min: 0, max: 59 }),
            frac: fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength: 7 }),
            zone: fc.constantFrom('', 'Z', '+01:00', '-05:30', '+14:00', '-12:00'),
          }),
          ({ y, mo, d, h, mi, s, frac, zone }) => {
            const text = `${String(y).padStart(4, '0')}-${two(mo)}-${two(d)}T${two(h)}:${two(mi)}:${two(s)}${frac ? '.' + frac : ''}${zone}`;
            const a = read(text);
            const b = parseDateTime(text, { zoneless });
            if (a === null || b === null) assert.equal(a, b, text);
            else
              assert.ok(
                Math.abs(a.getTime() - b.getTime()) <= 1,
                `${text}: ${a.toISOString()} vs ${b.toISOString()}`,
              );
          },
        ),
        { numRuns: 2000 },
      );
    }
  });
});

describe('soap dates in records (fast-check)', () => {
  const two = (n: number) => String(n).padStart(2, '0');
  const dateText = fc.oneof(
    { weight: 1, arbitrary: fc.constant('0001-01-01T00:00:00') },
    {
      weight: 4,
      arbitrary: fc
        .record({
          y: fc.integer({ min: 1, max: 9999 }),
          mo: fc.integer({ min: 1, max: 12 }),
          d: fc.integer({ min: 1, max: 28 }),
          h: fc.integer({ min: 0, max: 23 }),
          mi: fc.integer({ min: 0, max: 59 }),
          frac: fc.constantFrom('', '.25', '.1234567'),
          zone: fc.constantFrom('', 'Z', '+01:00', '-05:30'),
        })
        .map(
          ({ y, mo, d, h, mi, frac, zone }) =>
            `${String(y).padStart(4, '0')}-${two(mo)}-${two(d)}T${two(h)}:${two(mi)}:07${frac}${zone}`,
        ),
    },
  );

  it('every dateTime field of every record reads as parseDateTime reads its text alone (a reader per field, each remembering its last text)', () => {
    // Few distinct texts, so fields repeat their own last value, another field's and one from records before.
    const pool = fc.array(dateText, { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(
        pool.chain((texts) =>
          fc.tuple(
            fc.array(
              fc.tuple(fc.constantFrom(...texts), fc.constantFrom(...texts), fc.constantFrom(...texts)),
              {
                minLength: 1,
                maxLength: 12,
              },
            ),
            fc.array(fc.nat(4000), { maxLength: 6 }),
          ),
        ),
        ([records, splits]) => {
          const xml = Buffer.from(
            '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>' +
              '<QueryReceivedDLRResponse xmlns="https://gateway.example/"><QueryReceivedDLRResult>' +
              '<StatusCode>Ok</StatusCode><Value>' +
              records
                .map(
                  ([a, b, c], i) =>
                    `<SMSReport><Id>${i}</Id><JobId>1</JobId><Date>${a}</Date><MsgCode>0</MsgCode>` +
                    `<DoneDate>${b}</DoneDate><DoneDateTimeZoneOffset>0</DoneDateTimeZoneOffset><Sequence>0</Sequence>` +
                    `<CreateDate>${c}</CreateDate></SMSReport>`,
                )
                .join('') +
              '</Value></QueryReceivedDLRResult></QueryReceivedDLRResponse></soap:Body></soap:Envelope>',
          );
          const got = decodeChunks(dlr, 'soap11', xml, splits) as {
            Value: { Date: Date | null; DoneDate: Date | null; CreateDate: Date | null }[];
          };
          const want = (t: string) => normalize(parseDateTime(t));
          records.forEach(([a, b, c], i) => {
            const r = got.Value[i]!;
            assert.deepStrictEqual(
              [normalize(r.Date), normalize(r.DoneDate), normalize(r.CreateDate)],
              [want(a), want(b), want(c)],
              `record ${i}: ${a} ${b} ${c}`,
            );
          });
          // Each Date is its own object: changing one changes no other record's.
          const dates = got.Value.flatMap((r) => [r.Date, r.DoneDate, r.CreateDate]).filter(
            (d) => d !== null,
          );
          assert.equal(new Set(dates).size, dates.length);
        },
      ),
      { numRuns: 300 },
    );
  });
});
