/**
 * Counts in messages ("250,000") are written without Intl: the first toLocaleString of a process sets up ICU's
 * number formatting, 25-60 ms of blocked event loop, paid in the error raised while a hostile answer
 * or a huge text is refused.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { count, counted } from '../../src/count';
import { AnswerGate } from '../../src/generic/gate';
import { overContentCap } from '../../src/text/cap';
import { lengthMessage } from '../../src/text/limits';

/** Runs `fn` with every way to ICU's number formatting refused. */
function withoutIntl<T>(fn: () => T): T {
  const toLocale = Object.getOwnPropertyDescriptor(Number.prototype, 'toLocaleString')!;
  const format = Object.getOwnPropertyDescriptor(Intl, 'NumberFormat')!;
  const refuse = (): never => {
    throw new Error('ICU number formatting used');
  };
  Object.defineProperty(Number.prototype, 'toLocaleString', { ...toLocale, value: refuse });
  Object.defineProperty(Intl, 'NumberFormat', { ...format, value: refuse });
  try {
    return fn();
  } finally {
    Object.defineProperty(Number.prototype, 'toLocaleString', toLocale);
    Object.defineProperty(Intl, 'NumberFormat', format);
  }
}

describe('count: numbers in messages', () => {
  it("writes whole numbers as toLocaleString('en-US') does", () => {
    for (const n of [
      0,
      1,
      12,
      999,
      1000,
      65_536,
      250_000,
      1_000_000,
      10_485_760,
      -1234,
      Number.MAX_SAFE_INTEGER,
    ]) {
      assert.equal(count(n), n.toLocaleString('en-US'), String(n));
    }
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => count(n) === n.toLocaleString('en-US')),
      { numRuns: 500 },
    );
  });

  it('the refusals that name counts use no ICU number formatting', () => {
    withoutIntl(() => {
      assert.equal(count(250_000), '250,000');
      const gate = new AnswerGate({
        maxElements: 1000,
        maxDepth: 64,
        maxTextLength: 1 << 20,
        maxDecodedLength: 1 << 22,
      });
      assert.throws(
        () => gate.write(Buffer.from(`<r>${'<a>1</a>'.repeat(1001)}</r>`)),
        /more than 1,000 elements \(maxElements\)/,
      );
      assert.match(overContentCap('SMSText', 'x'.repeat(70_000)) ?? '', /70,000 characters, at most 65,536/);
      assert.match(
        lengthMessage({ characters: 2000, segments: 14, encoding: 'GSM-7', type: 'Standard', allowed: 1 }),
        /^2,000 characters, 14 segments/,
      );
    });
  });
});

describe('counted: a count with its noun', () => {
  it('says one in the singular and every other count in the plural, never "(s)"', () => {
    assert.equal(counted(1, 'item'), '1 item');
    assert.equal(counted(0, 'item'), '0 items');
    assert.equal(counted(2500, 'segment'), '2,500 segments');
    assert.equal(counted(1, 'entry', 'entries'), '1 entry');
    assert.equal(counted(3, 'entry', 'entries'), '3 entries');
  });
});
