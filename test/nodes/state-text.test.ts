import assert from 'node:assert/strict';
import { readState, stateText } from '../../src/nodes/polling/state-text';

type Rec = Record<string, unknown>;

/** A poller state as poll-node saves it: seen ids, then the records fetched but not yet emitted. */
const pendingState = (): Rec => ({
  seen: ['id:1', 'id:2', 'id:3'],
  cursor: '2026-01-02T03:04:05.000Z',
  count: 1234,
  reports: { '17': 1767323045000, '18': 1767323046000 },
  pending: [
    { payload: 'first, with "quotes", commas and ] brackets }', topic: '+4917012377001', sms: { Id: 1 } },
    { payload: 'second\nwith a newline', topic: '+4917012377002', sms: { Id: 2, Date: { $date: null } } },
    { payload: 'third', topic: '+4917012377003', sms: { Id: 3 } },
  ],
  empty: [],
});

/** Every value read back is one of the state's own, whole (never a record cut in the middle). */
function assertWholeParts(read: Rec | undefined, state: Rec): void {
  for (const [key, value] of Object.entries(read ?? {})) {
    const original = state[key];
    if (Array.isArray(value)) {
      assert.ok(Array.isArray(original), key);
      assert.deepEqual(
        value,
        (original as unknown[]).slice(0, value.length),
        `${key}: a prefix of whole items`,
      );
    } else if (value && typeof value === 'object' && !Array.isArray(original)) {
      for (const [k, v] of Object.entries(value)) assert.deepEqual(v, (original as Rec)[k], `${key}.${k}`);
    } else assert.deepEqual(value, original, key);
  }
}

// Issue 19 §4: a state file is written one value per line, so a damaged file costs the lines it damaged.
describe('nodes: state file text (one value per line, read back whole or in part)', () => {
  it('is JSON with one member, and one item of a list or map, per line', () => {
    const state = pendingState();
    const text = stateText(state);
    assert.deepEqual(JSON.parse(text), state);
    const lines = text.trimEnd().split('\n');
    assert.equal(lines[0], '{');
    assert.equal(lines.at(-1), '}');
    assert.ok(lines.includes('"cursor":"2026-01-02T03:04:05.000Z",'));
    assert.ok(lines.includes('"empty":[]'));
    assert.equal(
      lines.filter((l) => /^\{"payload":/.test(l)).length,
      3,
      'each pending record on its own line',
    );
    assert.deepEqual(readState(text), { value: state, damage: undefined, kept: [], lost: [] });
  });

  it('writes what JSON.stringify writes: toJSON applied (a Date, a Map-backed set), undefined left out', () => {
    class Seen {
      private readonly map = new Map([
        ['17', 1],
        ['18', 2],
      ]);
      toJSON(): Record<string, number> {
        return Object.fromEntries(this.map);
      }
    }
    const state = {
      when: new Date(0),
      seen: new Seen(),
      gone: undefined,
      list: [1, undefined, 'x'],
      map: { a: 1, b: undefined, c: { d: new Date(1) } },
      onlyUndefined: { a: undefined },
    };
    const text = stateText(state);
    assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(state)));
    assert.deepEqual(readState(text).value, JSON.parse(JSON.stringify(state)));
    assert.ok(text.includes('\n"17":1,\n"18":2\n'), text);
  });

  it('cut anywhere: what is read is whole and the state own; every record before the cut line is kept', () => {
    const state = pendingState();
    const text = stateText(state);
    const lines = text.split('\n');
    for (let at = 0; at < text.length; at++) {
      const cut = text.slice(0, at);
      const read = readState(cut);
      // Only the final newline may go unnoticed: the JSON is whole without it.
      if (read.damage === undefined) assert.deepEqual(read.value, state, `cut at ${at} is noticed`);
      assertWholeParts(read.value, state);
      // Records whose line (and its comma) is complete before the cut are all kept.
      const whole = cut.split('\n').slice(0, -1);
      const recordLines = whole.filter((l) => /^\{"payload":/.test(l) && l.endsWith(','));
      assert.ok(
        ((read.value?.pending as unknown[]) ?? []).length >= recordLines.length,
        `cut at ${at}: ${recordLines.length} whole record lines, kept ${JSON.stringify(read.value?.pending)}`,
      );
    }
    assert.ok(lines.length > 10);
  });

  it('a number cut short on the last line is not trusted, though it parses', () => {
    const text = stateText({ seen: ['a'], count: 1234 });
    const read = readState(text.slice(0, text.indexOf('1234') + 2));
    assert.equal(read.value?.count, undefined);
    assert.deepEqual(read.value?.seen, ['a']);
    assert.match(read.lost.join(', '), /unreadable value/);
  });

  it('garbage written over a line costs that line only: the records after it are kept', () => {
    const state = pendingState();
    const lines = stateText(state).split('\n');
    const i = lines.findIndex((l) => l.includes('second'));
    lines[i] = '\u0000\u0000garbage\u00ff{{{,';
    const j = lines.findIndex((l) => l.startsWith('"cursor"'));
    lines[j] = '"cursor":"2026-01-02T0\u0000';
    const read = readState(lines.join('\n'));
    assert.equal(read.damage, 'some lines are unreadable');
    assert.deepEqual(
      (read.value?.pending as Rec[]).map((p) => p.topic),
      ['+4917012377001', '+4917012377003'],
    );
    assert.deepEqual(read.value?.seen, state.seen);
    assert.equal(read.value?.cursor, undefined);
    assert.deepEqual(read.kept, [
      'seen (3 items)',
      'count',
      'reports (2 entries)',
      'pending (2 items)',
      'empty (0 items)',
    ]);
    assert.deepEqual(read.lost, ['1 unreadable item of pending', '1 unreadable value (cursor)']);
  });

  it('a file of an older version (one line), cut: the members and the records complete before the cut are kept', () => {
    const state = pendingState();
    const text = JSON.stringify(state);
    const at = text.indexOf('"third"');
    const read = readState(text.slice(0, at));
    assert.equal(read.damage, 'the file is cut short or damaged');
    assertWholeParts(read.value, state);
    assert.equal((read.value?.pending as unknown[]).length, 2);
    assert.deepEqual(read.value?.reports, state.reports);
    assert.deepEqual(read.lost, ['the rest of pending', 'whatever followed the damage']);
    for (let cut = 0; cut < text.length; cut++) assertWholeParts(readState(text.slice(0, cut)).value, state);
  });

  it('empty, garbage or JSON that holds no state object: nothing kept, said so', () => {
    for (const [text, why] of [
      ['', 'the file is empty'],
      ['\n \n', 'the file is empty'],
      ['\u0000\u0001binary', 'it is not JSON'],
      ['[1,2]', 'it holds no state object'],
      ['null', 'it holds no state object'],
      ['{garbage', 'the file is cut short or damaged'],
    ] as const) {
      const read = readState(text);
      assert.equal(read.value, undefined, JSON.stringify(text));
      assert.equal(read.damage, why, JSON.stringify(text));
      assert.equal(read.kept.length, 0);
    }
  });
});
