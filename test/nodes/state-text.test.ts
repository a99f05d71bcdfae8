import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';
import { sealLine } from '../../src/store/seal';
import { readState, stateText } from '../../src/store/state-text';
import { legacyStateText } from '../store/legacy-text';

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

/** Every value read back is one of the state's own, whole, in order (a damaged line in the middle drops one item). */
function assertOwnValues(read: Rec | undefined, state: Rec): void {
  for (const [key, value] of Object.entries(read ?? {})) {
    const original = state[key];
    if (Array.isArray(value)) {
      assert.ok(Array.isArray(original), key);
      let at = 0;
      for (const item of value) {
        while (at < original.length && JSON.stringify(original[at]) !== JSON.stringify(item)) at++;
        assert.ok(at < original.length, `${key}: ${JSON.stringify(item)} is one of its own items, in order`);
        at++;
      }
    } else if (value && typeof value === 'object' && !Array.isArray(original)) {
      for (const [k, v] of Object.entries(value)) assert.deepEqual(v, (original as Rec)[k], `${key}.${k}`);
    } else assert.deepEqual(value, original, key);
  }
}

// A state file is written one record per line, each line with its checksum: a damaged file costs the lines it
// damaged, and a changed byte is found, never read as another value.
describe('store: state file text (one sealed record per line, read back whole or in part)', () => {
  it('one record per line, each sealed with its checksum, a header first and the line count last', () => {
    const state = pendingState();
    const text = stateText(state);
    const lines = text.trimEnd().split('\n');
    assert.ok(
      lines.every((l) => /\t[0-9a-f]{8}$/.test(l)),
      'every line sealed',
    );
    const bodies = lines.map((l) => l.slice(0, -9));
    assert.equal(bodies[0], '{"smsgw-state":2}');
    assert.equal(bodies.at(-1), `["end",${lines.length}]`);
    assert.ok(bodies.includes('["m","cursor","2026-01-02T03:04:05.000Z"]'));
    assert.ok(bodies.includes('["m","empty",[]]'));
    assert.ok(bodies.includes('["o","reports","17",1767323045000]'));
    assert.equal(bodies.filter((l) => l.startsWith('["a","pending",')).length, 3, 'one record per line');
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
    assert.deepEqual(readState(text).value, JSON.parse(JSON.stringify(state)));
    assert.equal(readState(text).damage, undefined);
  });

  it('the seal of a line is the CRC-32 of its UTF-8 bytes, 8 lowercase hex digits', () => {
    for (const line of ['', '["end",2]', '["o","seen","17",1767323045000]', 'Grüße — 😀', '\u0000\uffff']) {
      const crc = crc32(Buffer.from(line, 'utf8')).toString(16).padStart(8, '0');
      assert.equal(sealLine(line), `${line}\t${crc}`);
    }
    // Every byte value in every position of the seal.
    for (let i = 0; i < 2000; i++) {
      const line = `["o","seen","${i}",${i * 7919}]`;
      assert.equal(sealLine(line), `${line}\t${crc32(line).toString(16).padStart(8, '0')}`);
    }
  });

  it('cut anywhere: noticed, what is read is whole and the state own; every record before the cut line is kept', () => {
    const state = pendingState();
    const text = stateText(state);
    for (let at = 0; at < text.length; at++) {
      const cut = text.slice(0, at);
      const read = readState(cut);
      // Only the final newline may go unnoticed: the last line is whole without it.
      if (at < text.length - 1) assert.notEqual(read.damage, undefined, `cut at ${at} is noticed`);
      assertWholeParts(read.value, state);
      const whole = cut.split('\n').slice(0, -1);
      const recordLines = whole.filter((l) => l.startsWith('["a","pending",'));
      assert.ok(
        ((read.value?.pending as unknown[]) ?? []).length >= recordLines.length,
        `cut at ${at}: ${recordLines.length} whole record lines, kept ${JSON.stringify(read.value?.pending)}`,
      );
    }
  });

  it('one byte changed anywhere: found, the values kept are the state own, only that line is lost', () => {
    const state = pendingState();
    const text = stateText(state);
    const lines = text.split('\n').length - 1;
    for (let at = 0; at < text.length; at++) {
      for (const flip of [0x01, 0x20, 0x80]) {
        const bytes = Buffer.from(text, 'utf8');
        if (at >= bytes.length) continue;
        bytes[at] = bytes[at]! ^ flip;
        const read = readState(bytes.toString('utf8'));
        assert.notEqual(read.damage, undefined, `byte ${at} ^ ${flip} found`);
        assertOwnValues(read.value, state);
        const kept = Object.values(read.value ?? {}).reduce<number>(
          (n, v) =>
            n +
            (Array.isArray(v)
              ? Math.max(1, v.length)
              : v && typeof v === 'object'
                ? Object.keys(v).length || 1
                : 1),
          0,
        );
        // Header and end line hold no record; a newline changed joins two lines: at most two records lost.
        assert.ok(kept >= lines - 2 - 2, `byte ${at}: ${kept} records kept of ${lines - 2}`);
      }
    }
  });

  it('garbage written over a line costs that line only: the records after it are kept, the loss named', () => {
    const state = pendingState();
    const lines = stateText(state).split('\n');
    const i = lines.findIndex((l) => l.includes('second'));
    lines[i] = '\u0000\u0000garbage\u00ff{{{,';
    const j = lines.findIndex((l) => l.startsWith('["m","cursor"'));
    lines[j] = '["m","cursor","2026-01-02T0\u0000';
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
    assert.deepEqual(read.lost, ['1 unreadable item of pending', '1 unreadable line']);
  });

  it('a file of the version before checksums (JSON, one value per line) is read as it was written', () => {
    const state = pendingState();
    assert.deepEqual(readState(legacyStateText(state)), {
      value: state,
      damage: undefined,
      kept: [],
      lost: [],
    });
  });

  it('the version before checksums: cut anywhere, what is read is whole; every record before the cut line is kept', () => {
    const state = pendingState();
    const text = legacyStateText(state);
    for (let at = 0; at < text.length; at++) {
      const cut = text.slice(0, at);
      const read = readState(cut);
      if (read.damage === undefined) assert.deepEqual(read.value, state, `cut at ${at} is noticed`);
      assertWholeParts(read.value, state);
      const whole = cut.split('\n').slice(0, -1);
      const recordLines = whole.filter((l) => /^\{"payload":/.test(l) && l.endsWith(','));
      assert.ok(((read.value?.pending as unknown[]) ?? []).length >= recordLines.length, `cut at ${at}`);
    }
  });

  it('the version before checksums: a number cut short on the last line is not trusted, though it parses', () => {
    const text = legacyStateText({ seen: ['a'], count: 1234 });
    const read = readState(text.slice(0, text.indexOf('1234') + 2));
    assert.equal(read.value?.count, undefined);
    assert.deepEqual(read.value?.seen, ['a']);
    assert.match(read.lost.join(', '), /unreadable value/);
  });

  it('the version before checksums: garbage over a line costs that line only', () => {
    const state = pendingState();
    const lines = legacyStateText(state).split('\n');
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
