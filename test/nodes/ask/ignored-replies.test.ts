/** The lines about ignored replies: one per number per minute, with a count, on a fake clock. */
import assert from 'node:assert/strict';
import { IGNORED_NUMBERS_MAX, IgnoredReplies, type Timers } from '../../../src/nodes/ask/ignored-replies';

/** A clock the test moves: timers fire when `advance` passes them, in order. */
class FakeClock implements Timers {
  private t = 1_000_000;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private next = 1;
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.next++;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((x) => x.id !== handle);
  }
  advance(ms: number): void {
    const end = this.t + ms;
    for (let i = 0; i < 10_000; i++) {
      const due = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = due.at;
      due.fn();
    }
    this.t = end;
  }
  get pending(): number {
    return this.timers.length;
  }
}

describe('ask: ignored replies in the log', () => {
  const setup = (): { clock: FakeClock; lines: string[]; ignored: IgnoredReplies } => {
    const clock = new FakeClock();
    const lines: string[] = [];
    return { clock, lines, ignored: new IgnoredReplies((l) => lines.push(l), clock) };
  };
  const why = (n: number, from = '+4917011'): string =>
    `ask: "wrong ${n}" from ${from} is not an accepted answer to question a`;

  it('300 wrong replies within a minute: the first at once, the other 299 in one line when the minute is over', () => {
    const { clock, lines, ignored } = setup();
    for (let i = 0; i < 300; i++) {
      ignored.note('+4917011', '+4917011', why(i));
      clock.advance(100);
    }
    assert.deepEqual(lines, [why(0)]);
    clock.advance(60_000 - 300 * 100);
    assert.deepEqual(lines, [
      why(0),
      'ask: 299 more ignored replies from +4917011 in the last minute (the last: "wrong 299" from +4917011 is not an accepted answer to question a)',
    ]);
  });

  it('while they keep coming, one line a minute; after a quiet minute the next is written at once again', () => {
    const { clock, lines, ignored } = setup();
    ignored.note('k', '+4917011', why(0));
    for (let minute = 0; minute < 3; minute++) {
      for (let i = 0; i < 12; i++) {
        clock.advance(4_000);
        ignored.note('k', '+4917011', why(i));
      }
      clock.advance(12_000);
    }
    assert.equal(lines.length, 4);
    assert.deepEqual(
      lines.slice(1).map((l) => /^ask: (\d+) more ignored replies/.exec(l)?.[1]),
      ['12', '12', '12'],
    );
    // A minute without any: the window ends, nothing to say, the number is forgotten.
    clock.advance(60_000);
    assert.equal(lines.length, 4);
    assert.equal(ignored.size, 0);
    assert.equal(clock.pending, 0, 'no timer left running');
    ignored.note('k', '+4917011', why(99));
    assert.equal(lines.at(-1), why(99));
  });

  it('each number has its own minute; one reply held back says "1 more ignored reply"', () => {
    const { clock, lines, ignored } = setup();
    ignored.note('a', 'A', why(1, 'A'));
    ignored.note('b', 'B', why(1, 'B'));
    ignored.note('a', 'A', why(2, 'A'));
    clock.advance(60_000);
    assert.deepEqual(lines, [
      why(1, 'A'),
      why(1, 'B'),
      'ask: 1 more ignored reply from A in the last minute (the last: "wrong 2" from A is not an accepted answer to question a)',
    ]);
  });

  it(`memory is bounded: past ${IGNORED_NUMBERS_MAX} numbers, the others share one line a minute`, () => {
    const { clock, lines, ignored } = setup();
    for (let i = 0; i < IGNORED_NUMBERS_MAX + 500; i++) ignored.note(`n${i}`, `n${i}`, `ask: from n${i}`);
    assert.equal(ignored.size, IGNORED_NUMBERS_MAX + 1);
    assert.equal(lines.length, IGNORED_NUMBERS_MAX + 1);
    assert.match(
      lines.at(-1)!,
      /^ask: from n1000 \(replies from more than 1000 numbers share one line a minute\)$/,
    );
    clock.advance(60_000);
    assert.match(
      lines.at(-1)!,
      /^ask: 499 more ignored replies from other numbers in the last minute \(the last: from n1499\)$/,
    );
    clock.advance(60_000);
    assert.equal(ignored.size, 0);
  });

  it('closing writes what is held back and stops the timer', () => {
    const { clock, lines, ignored } = setup();
    ignored.note('a', 'A', why(1, 'A'));
    ignored.note('a', 'A', why(2, 'A'));
    ignored.close();
    assert.equal(lines.length, 2);
    assert.match(lines[1]!, /^ask: 1 more ignored reply from A/);
    assert.equal(clock.pending, 0);
    ignored.note('a', 'A', why(3, 'A'));
    assert.equal(lines.length, 2);
  });
});
