import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { findOperation } from '../../src/catalogue';
import { decodeChunks } from './helpers';

const dlr = findOperation('information', 'QueryReceivedDLR')!;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap in use after a full GC (twice: weak references and finalizers settle in between). */
const heapUsed = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const RECORDS = 20_000;

/** An answer of ~2 MB (a helper: no temporary of its making stays on the test's frame). */
function answer(): Buffer {
  let records = '';
  for (let i = 0; i < RECORDS; i++)
    records +=
      `<SMSReport><Id>${i}</Id><Recipient>+49170${10_000_000 + i}</Recipient><JobId>9</JobId>` +
      `<MsgText>Delivered ${i}; T-Mobile DE, 1/1</MsgText><Caption>Campaign Nov — Grüße</Caption></SMSReport>`;
  return Buffer.from(
    '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>' +
      '<QueryReceivedDLRResponse xmlns="https://gateway.example/"><QueryReceivedDLRResult>' +
      `<StatusCode>Ok</StatusCode><Value>${records}</Value></QueryReceivedDLRResult></QueryReceivedDLRResponse>` +
      '</soap:Body></soap:Envelope>',
  );
}

/** Where undici cuts an answer: 64 KiB chunks. */
const chunked = (n: number): number[] => Array.from({ length: Math.ceil(n / 65536) }, (_, i) => i * 65536);

describe('soap decoder: what decoded records keep alive', () => {
  it("string values are copies, not views of the answer's text (a view keeps its whole 64 KiB chunk alive)", () => {
    const xml = answer();
    heapUsed();
    const before = heapUsed();
    type Report = { Id: number; Recipient?: string; MsgText?: string; Caption?: string };
    const all = (decodeChunks(dlr, 'soap11', xml, chunked(xml.length)) as { Value: Report[] }).Value;
    // One record in 200 kept: a few from every chunk, ~30 KB of values in all.
    const kept = all.filter((r) => r.Id % 200 === 0);
    all.length = 0;
    const held = heapUsed() - before;
    assert.equal(kept.length, RECORDS / 200);
    assert.deepEqual(kept[3], {
      Id: 600,
      Recipient: '+4917010000600',
      JobId: 9,
      MsgText: 'Delivered 600; T-Mobile DE, 1/1',
      Caption: 'Campaign Nov — Grüße',
      MsgCode: 0,
      DoneDateTimeZoneOffset: 0,
      Sequence: 0,
      Date: null,
      DoneDate: null,
      CreateDate: null,
    });
    // The answer's text is ~5 MB as V8 holds it (two-byte: it has characters beyond Latin-1).
    assert.ok(held < 1_000_000, `100 records hold ${(held / 1e6).toFixed(2)} MB of heap`);
  });
});
