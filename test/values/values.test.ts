import assert from 'node:assert/strict';
import fc from 'fast-check';
import { escapeAttr, escapeText } from '../../src/soap/escape';
import {
  formatBoolean,
  formatDateTime,
  formatDateTimeWithOffset,
  formatDouble,
  formatDoubleParam,
  parseBase64,
  parseBoolean,
  parseDateTime,
  parseDouble,
  parseInt32,
  ValueFormatError,
} from '../../src/soap/values';

describe('value codecs', () => {
  describe('dateTime', () => {
    it('reads zone-less, Z and offset forms with 0-7 fraction digits', () => {
      assert.equal(parseDateTime('2026-11-22T10:00:00')?.toISOString(), '2026-11-22T10:00:00.000Z');
      assert.equal(parseDateTime('2026-11-22T10:00:03.25Z')?.toISOString(), '2026-11-22T10:00:03.250Z');
      assert.equal(
        parseDateTime('2026-11-22T10:00:00.1234567+01:00')?.toISOString(),
        '2026-11-22T09:00:00.123Z',
      );
      assert.equal(parseDateTime('2026-11-22T10:00:00-05:30')?.toISOString(), '2026-11-22T15:30:00.000Z');
      assert.equal(parseDateTime('2026-11-22')?.toISOString(), '2026-11-22T00:00:00.000Z');
    });
    it("reads .NET's DateTime.MinValue as null", () => {
      assert.equal(parseDateTime('0001-01-01T00:00:00'), null);
      assert.equal(parseDateTime('0001-01-01T00:00:00+00:00'), null);
    });
    it('can read zone-less values as local time', () => {
      const d = parseDateTime('2026-11-22T10:00:00', { zoneless: 'local' });
      assert.equal(d?.getTime(), new Date(2026, 10, 22, 10, 0, 0).getTime());
    });
    it('rejects what is not a date', () => {
      for (const bad of ['', 'yesterday', '2026-13-01T00:00:00', '2026-11-22T10:61:00', '22.11.2026']) {
        assert.throws(() => parseDateTime(bad), ValueFormatError, bad);
      }
    });
    it('writes UTC with Z and trims zero milliseconds', () => {
      assert.equal(formatDateTime(new Date('2026-11-22T10:00:00Z')), '2026-11-22T10:00:00Z');
      assert.equal(formatDateTime(new Date('2026-11-22T10:00:00.250Z')), '2026-11-22T10:00:00.25Z');
      assert.equal(
        formatDateTimeWithOffset(new Date('2026-11-22T10:00:00Z'), 60),
        '2026-11-22T11:00:00+01:00',
      );
      assert.equal(
        formatDateTimeWithOffset(new Date('2026-11-22T10:00:00Z'), -90),
        '2026-11-22T08:30:00-01:30',
      );
    });
    it('round-trips any date', () => {
      fc.assert(
        fc.property(
          fc.date({ min: new Date('0002-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }),
          (d) => {
            assert.equal(parseDateTime(formatDateTime(d))?.getTime(), d.getTime());
          },
        ),
      );
    });
  });

  describe('numbers and booleans', () => {
    it('reads doubles as .NET writes them', () => {
      assert.equal(parseDouble('12.5'), 12.5);
      assert.equal(parseDouble('INF'), Infinity);
      assert.equal(parseDouble('-INF'), -Infinity);
      assert.ok(Number.isNaN(parseDouble('NaN')));
      assert.equal(parseDouble('1E+21'), 1e21);
      assert.ok(Object.is(parseDouble('-0'), -0));
      assert.throws(() => parseDouble('1,5'), ValueFormatError);
    });
    it("writes doubles in .NET's round-trip form", () => {
      assert.equal(formatDouble(12.5), '12.5');
      assert.equal(formatDouble(1e21), '1E+21');
      assert.equal(formatDouble(1e-7), '1E-07');
      assert.equal(formatDouble(Infinity), 'INF');
      assert.equal(formatDouble(-0), '-0');
      assert.equal(formatDoubleParam(-Infinity), '-Infinity');
    });
    it('round-trips any double', () => {
      fc.assert(
        fc.property(fc.double(), (n) => {
          assert.ok(Object.is(parseDouble(formatDouble(n)), n));
        }),
      );
    });
    it('reads ints within Int32 only', () => {
      assert.equal(parseInt32(' -7 '), -7);
      assert.throws(() => parseInt32('4.0'), ValueFormatError);
      assert.throws(() => parseInt32('2147483648'), ValueFormatError);
    });
    it('reads booleans strictly in SOAP and any case in GET/POST', () => {
      assert.equal(parseBoolean('1'), true);
      assert.throws(() => parseBoolean('True'), ValueFormatError);
      assert.equal(parseBoolean('True', true), true);
      assert.throws(() => parseBoolean('1', true), ValueFormatError);
      assert.equal(formatBoolean(false), 'false');
    });
    it('reads base64 with whitespace', () => {
      assert.deepEqual([...parseBase64('AAEC\r\nAwQ=')], [0, 1, 2, 3, 4]);
      assert.throws(() => parseBase64('not base64!'), ValueFormatError);
    });
  });

  describe('escaping', () => {
    it('escapes markup and never lets ]]> through', () => {
      assert.equal(escapeText('a<b & c]]>d'), 'a&lt;b &amp; c]]&gt;d');
      assert.equal(escapeAttr(`"x" 'y'\n`), '&quot;x&quot; &apos;y&apos;&#xA;');
    });
    it('drops characters XML 1.0 cannot carry', () => {
      assert.equal(escapeText('a\u0001b\uFFFEc'), 'abc');
      assert.equal(escapeText('emoji 😀 stays'), 'emoji 😀 stays');
      assert.equal(escapeText('lone \uD800 surrogate'), 'lone  surrogate');
    });
  });
});
