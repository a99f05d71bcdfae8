/** Text from phones and the gateway made safe for one log line, status or error message (src/text/untrusted.ts). */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { GatewayError } from '../../src/errors';
import { oneLine, safeText, SHOWN_MAX } from '../../src/text/untrusted';

/** Every character that may end a line or turn text around where a log is shown. */
// eslint-disable-next-line no-control-regex -- control characters are what this looks for
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('text: untrusted text in one line', () => {
  it('writes line breaks and other controls as visible escapes; leaves ordinary text, emoji and umlauts alone', () => {
    assert.equal(oneLine('x\n26 Nov 00:00:00 - [error] FORGED'), 'x\\n26 Nov 00:00:00 - [error] FORGED');
    assert.equal(
      oneLine('a\r\nb\tc\u0000d\u001be\u007ff\u0085g'),
      'a\\r\\nb\\tc\\u0000d\\u001be\\u007ff\\u0085g',
    );
    assert.equal(oneLine('line\u2028para\u2029'), 'line\\u2028para\\u2029');
    // A mark that turns the rest of the line around ("gnp.exe" shown as "exe.png").
    assert.equal(oneLine('a\u202eb\u2066c'), 'a\\u202eb\\u2066c');
    assert.equal(oneLine('Grüße 😀 +49 170 1234567, ok'), 'Grüße 😀 +49 170 1234567, ok');
  });

  it('cuts a long text with … (at most the length asked for), never inside an escape or a surrogate pair', () => {
    assert.equal(safeText('x'.repeat(10_000_000)).length, SHOWN_MAX);
    assert.ok(safeText('x'.repeat(300)).endsWith('…'));
    assert.equal(safeText('short'), 'short');
    assert.equal(safeText(42), '42');
    assert.equal(safeText('abcdefg\nh', 9), 'abcdefg…');
    assert.equal(safeText('abc😀😀😀', 6), 'abc😀…');
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 400 }),
        fc.integer({ min: 2, max: 300 }),
        (s, max) => {
          const out = safeText(s, max);
          assert.ok(out.length <= max, `${out.length} > ${max}`);
          assert.ok(!UNSAFE.test(out), JSON.stringify(out));
          assert.ok(!/\\u[0-9a-f]{0,3}…$/.test(out) && !/\\…$/.test(out), 'no escape cut in half');
          assert.ok(!/[\ud800-\udbff]…$/.test(out), 'no half of a surrogate pair before the cut');
        },
      ),
    );
  });

  it('an error message is one line, whatever the gateway put into it; its status keeps the text as it came', () => {
    const e = new GatewayError('REJECTED', `refused: Error x\n26 Nov 00:00:00 - [error] FORGED`, {
      operation: 'SendText',
      status: 'Error x\nFORGED',
    });
    assert.equal(e.message, 'SendText: refused: Error x\\n26 Nov 00:00:00 - [error] FORGED');
    assert.equal(e.status, 'Error x\nFORGED');
    assert.ok(new GatewayError('FAULT', 'y'.repeat(100_000)).message.length <= 2000);
  });
});
