import assert from 'node:assert/strict';
import fc from 'fast-check';
import { GatewayError } from '../../src/errors';
import type { DecodeWarning } from '../../src/soap/warnings';
import { parseLegacyResult } from '../../src/soap/legacy';
import { normalize, thrown } from './helpers';

const d = (iso: string) => ({ $date: iso });

describe('soap/legacy result strings', () => {
  it('send: OK <id> / Error <text>', () => {
    assert.deepEqual(parseLegacyResult('send', 'OK 123456'), { raw: 'OK 123456', ok: true, id: '123456' });
    assert.deepEqual(parseLegacyResult('send', 'Error Login failed'), {
      raw: 'Error Login failed',
      ok: false,
      error: 'Login failed',
    });
    assert.deepEqual(parseLegacyResult('send', 'ERROR: no credits\r\n'), {
      raw: 'ERROR: no credits\r\n',
      ok: false,
      error: 'no credits',
    });
  });
  it('send: anything else is a PARSE error with an excerpt', () => {
    const e = thrown(() => parseLegacyResult('send', '<html>oops</html>'));
    assert.ok(e instanceof GatewayError && e.code === 'PARSE' && e.body === '<html>oops</html>');
  });
  it('balance: plain, OK-prefixed, decimal comma, grouping', () => {
    assert.equal(parseLegacyResult('balance', '12.5').balance, 12.5);
    assert.equal(parseLegacyResult('balance', 'OK 12.5').balance, 12.5);
    assert.equal(parseLegacyResult('balance', ' 12,5 ').balance, 12.5);
    assert.equal(parseLegacyResult('balance', '1.234,5').balance, 1234.5);
    assert.equal(parseLegacyResult('balance', '1,234.5').balance, 1234.5);
    assert.equal(parseLegacyResult('balance', '-3').balance, -3);
    assert.equal(parseLegacyResult('balance', 'Error Invalid user').ok, false);
    // Not a number: kept as its text, with a warning (a balance node shows what the service said).
    const warnings: DecodeWarning[] = [];
    const odd = parseLegacyResult('balance', 'lots', {
      warn: (w) => warnings.push(w),
      operation: 'QueryBalance2',
    });
    assert.equal(odd.balance, 'lots');
    assert.deepEqual(
      warnings.map((w) => [w.kind, w.operation, w.field, w.value]),
      [['value', 'QueryBalance2', 'balance', 'lots']],
    );
  });
  it('numbers read in one pass equal Number() of the text, for any digits with or without a point', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{0,18}(\.[0-9]{0,18})?$/), (text) => {
        fc.pre(text !== '' && text !== '.');
        assert.equal(parseLegacyResult('balance', text).balance, Number(text), text);
      }),
      { numRuns: 2000 },
    );
  });

  it('GetRecivedSMS2: ID,JobId;Sender;message;date with the comma quirk, a semicolon tolerated, ; in the message', () => {
    const raw = '1,77;+4917012345;Hi; there;2026-11-22 10:00:00\r\n2;0;+4917099999;Yes;22.11.2026 10:05\r\n';
    assert.deepEqual(normalize(parseLegacyResult('receivedSms2', raw)), {
      raw,
      ok: true,
      records: [
        {
          id: 1,
          jobId: 77,
          sender: '+4917012345',
          message: 'Hi; there',
          date: d('2026-11-22T10:00:00.000Z'),
        },
        { id: 2, jobId: 0, sender: '+4917099999', message: 'Yes', date: d('2026-11-22T10:05:00.000Z') },
      ],
    });
  });
  it('RecivedSMS2: Sender;date;message', () => {
    const r = parseLegacyResult('recivedSms2', '+4917;2026-11-22T10:00:00Z;a;b\n\n');
    assert.deepEqual(normalize(r.records), [
      { sender: '+4917', date: d('2026-11-22T10:00:00.000Z'), message: 'a;b' },
    ]);
  });
  it('GetNewRecivedSMS2: Sender;message;date;isStatusReport', () => {
    const r = parseLegacyResult(
      'newReceivedSms2',
      '+4917;Hello;22.11.2026 10:05:30;0\n+4918;DLR;11/22/2026 1:05:00 PM;1\n',
    );
    assert.deepEqual(normalize(r.records), [
      { sender: '+4917', message: 'Hello', date: d('2026-11-22T10:05:30.000Z'), isStatusReport: false },
      { sender: '+4918', message: 'DLR', date: d('2026-11-22T13:05:00.000Z'), isStatusReport: true },
    ]);
  });
  it('GetJobs1: records split by the caller’s Trennzeichen; numbers with decimal comma', () => {
    const raw = '5001;Promo;0,085;2026-11-22T10:00:00|5002;A;B;1.5;2026-11-23 08:00:00|';
    assert.deepEqual(normalize(parseLegacyResult('jobs', raw, { separator: '|' }).records), [
      { jobId: 5001, caption: 'Promo', cost: 0.085, sendTime: d('2026-11-22T10:00:00.000Z') },
      { jobId: 5002, caption: 'A;B', cost: 1.5, sendTime: d('2026-11-23T08:00:00.000Z') },
    ]);
  });
  it('GetJobs1: a caller who chose ";" as Trennzeichen gets the records back by counting fields', () => {
    const raw = '100001;x;1;2026-11-22 11:54:58;100002;y;0,5;2026-11-22 11:55:58;';
    assert.deepEqual(normalize(parseLegacyResult('jobs', raw, { separator: ';' }).records), [
      { jobId: 100001, caption: 'x', cost: 1, sendTime: d('2026-11-22T11:54:58.000Z') },
      { jobId: 100002, caption: 'y', cost: 0.5, sendTime: d('2026-11-22T11:55:58.000Z') },
    ]);
  });
  it('GetJobs1: an empty caption is kept; a record with too few fields is kept raw, the others read', () => {
    assert.deepEqual(normalize(parseLegacyResult('jobs', '7;;0.5;2026-11-22T10:00:00').records), [
      { jobId: 7, caption: '', cost: 0.5, sendTime: d('2026-11-22T10:00:00.000Z') },
    ]);
    const warnings: DecodeWarning[] = [];
    const r = parseLegacyResult('jobs', '7;0.5;2026-11-22T10:00:00\n8;b;1;2026-11-22T10:00:00', {
      warn: (w) => warnings.push(w),
      operation: 'GetJobs1',
    });
    assert.deepEqual(normalize(r.records), [
      { raw: '7;0.5;2026-11-22T10:00:00' },
      { jobId: 8, caption: 'b', cost: 1, sendTime: d('2026-11-22T10:00:00.000Z') },
    ]);
    assert.deepEqual(
      warnings.map((w) => [w.kind, w.field, w.value]),
      [['record', 'record', '7;0.5;2026-11-22T10:00:00']],
    );
  });
  it('an empty list result has no records', () => {
    assert.deepEqual(parseLegacyResult('jobs', ''), { raw: '', ok: true, records: [] });
    assert.deepEqual(parseLegacyResult('jobs', '\r\n'), { raw: '\r\n', ok: true, records: [] });
  });
  it('zone-less dates can be read as local time', () => {
    const r = parseLegacyResult('recivedSms2', 'x;2026-11-22 10:00:00;m', { zoneless: 'local' });
    assert.equal(
      (r.records as Array<{ date: Date }>)[0]!.date.getTime(),
      new Date(2026, 10, 22, 10).getTime(),
    );
  });
  it('fields that do not parse keep their text (one warning per field); the other records are read', () => {
    const warnings: DecodeWarning[] = [];
    const warn = (w: DecodeWarning) => warnings.push(w);
    const jobs = parseLegacyResult('jobs', 'x;y;z;2026-11-22\n9;ok;1;2026-11-22\n10;odd;q;2026-11-22', {
      warn,
    });
    assert.deepEqual(normalize(jobs.records), [
      { jobId: 'x', caption: 'y', cost: 'z', sendTime: d('2026-11-22T00:00:00.000Z') },
      { jobId: 9, caption: 'ok', cost: 1, sendTime: d('2026-11-22T00:00:00.000Z') },
      { jobId: 10, caption: 'odd', cost: 'q', sendTime: d('2026-11-22T00:00:00.000Z') },
    ]);
    const inbound = parseLegacyResult(
      'newReceivedSms2',
      '+49;hi;31.31.2026;maybe\n+48;yo;2026-11-22 10:00:00;0',
      {
        warn,
      },
    );
    assert.deepEqual(normalize(inbound.records), [
      { sender: '+49', message: 'hi', date: '31.31.2026', isStatusReport: 'maybe' },
      { sender: '+48', message: 'yo', date: d('2026-11-22T10:00:00.000Z'), isStatusReport: false },
    ]);
    assert.deepEqual(
      warnings.map((w) => [w.operation, w.field, w.value, w.type]),
      [
        ['jobs', 'jobId', 'x', 'number'],
        ['jobs', 'cost', 'z', 'number'],
        ['newReceivedSms2', 'date', '31.31.2026', 'date'],
        ['newReceivedSms2', 'isStatusReport', 'maybe', 'flag'],
      ],
    );
    assert.throws(
      () => parseLegacyResult('send', 'Maybe 12'),
      (e: unknown) => (e as GatewayError).code === 'PARSE',
    );
  });

  describe('GetJobs1 record separators (Trennzeichen): records are never merged', () => {
    const job = (id: number, caption: string) => `${id};${caption};0.09;2026-11-22 10:00:00`;
    const ids = (raw: string, separator: string) =>
      (
        parseLegacyResult('jobs', raw, { separator }).records as Array<{ jobId: unknown; caption: unknown }>
      ).map((r) => [r.jobId, r.caption]);
    for (const sep of [';', '|', '\n', '\t', '\r\n', '||', '#~#']) {
      it(`${JSON.stringify(sep)}: each record read back, also when a caption holds the separator`, () => {
        const captions = ['plain', `with ${sep} inside`, `${sep}leading`, 'last'];
        const raw = captions.map((c, i) => job(100 + i, c) + sep).join('');
        // A caption's own CR LF comes back as LF (line breaks are read in one form).
        assert.deepEqual(
          ids(raw, sep),
          captions.map((c, i) => [100 + i, c.replace(/\r\n/g, '\n')]),
        );
      });
    }
    it('line breaks are one separator whatever their form (an XML reader may turn CR LF into LF)', () => {
      const raw = `${job(1, 'a')}\n${job(2, 'b')}\r${job(3, 'c')}\r\n`;
      for (const sep of ['\n', '\r\n', '\r'])
        assert.deepEqual(ids(raw, sep), [
          [1, 'a'],
          [2, 'b'],
          [3, 'c'],
        ]);
      assert.deepEqual(ids(`${job(1, 'a')}|\n${job(2, 'b')}|\n`, '|\r\n'), [
        [1, 'a'],
        [2, 'b'],
      ]);
    });
  });
});
