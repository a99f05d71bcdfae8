/**
 * Pacing per number shared through Redis, with a real redis-server: the Lua script answers as the file book's rule
 * step by step (slots, the critical allowance, a reservation found again by its id, stale ones, settle, release,
 * refuse-now), two instances sending to 3 numbers keep every window together (counted from the slots, no timing),
 * Redis emptied makes unknown numbers wait out the longest window, and Redis away reserves nothing (NETWORK).
 */
import assert from 'node:assert/strict';
import type { RedisLink } from '../../src/coordination/redis-link';
import { SharedPacer } from '../../src/coordination/shared-pacing';
import { PaceBook, STALE_MS, type PaceRequest, type PaceSettings } from '../../src/reliability/pacing';
import { pacedSender } from '../../src/reliability/pacing-sender';
import type { OutboxEntry, OutboxSendOptions } from '../../src/reliability/outbox';
import { ManualClock } from '../helpers/manual-clock';
import { sendSmsNode } from '../nodes/send-sms-node';
import {
  collect,
  flowWith,
  helper,
  loadFlow,
  send,
  startEnv,
  stopEnv,
  waitFor,
  type Env,
} from '../nodes/helpers';
import { redisForSuite } from './redis-server';

const MIN = 60_000;
const SETTINGS: PaceSettings = {
  rules: [
    { count: 1, ms: MIN },
    { count: 5, ms: 15 * MIN },
    { count: 12, ms: 60 * MIN },
  ],
  critical: [{ count: 2, ms: 15 * MIN }],
};
const T0 = Date.parse('2024-05-03T10:00:00.000Z');

describe('shared pacing per number (real redis-server)', function () {
  this.timeout(60_000);
  const suite = redisForSuite();
  const link = (prefix: string): Promise<RedisLink> => suite.link(prefix);

  /** A number's times as the shared book holds them. */
  async function times(l: RedisLink, pacer: SharedPacer, key: string): Promise<number[]> {
    const v = await l.command(['GET', pacer.timesKey(key)]);
    return typeof v === 'string' && v !== '' ? v.split(',').map(Number) : [];
  }

  it("the Lua script answers as the file book's rule, step by step", async () => {
    const l = await link('s:');
    const clock = new ManualClock(T0);
    const shared = new SharedPacer(l, `s${Date.now().toString(36)}:cfg:pacing`, SETTINGS, clock);
    const book = new PaceBook(SETTINGS);
    type Step =
      | ['reserve', string, string[], number, { critical?: boolean; onlyNow?: boolean }?]
      | ['settle' | 'release', string, number];
    const steps: Step[] = [
      ['reserve', 'a1', ['1'], 0],
      ['reserve', 'a2', ['1'], 1_000],
      ['reserve', 'a3', ['1', '2'], 2_000],
      // Found again by its id (an outbox entry's later attempt), unchanged.
      ['reserve', 'a2', ['1'], 3_000],
      ['settle', 'a1', 4_000],
      ['reserve', 'r1', ['1'], 5_000, { onlyNow: true }],
      ['reserve', 'r2', ['3'], 5_000, { onlyNow: true }],
      ['reserve', 'c1', ['1'], 6_000, { critical: true }],
      ['reserve', 'c2', ['1', '2'], 7_000, { critical: true }],
      // The critical allowance (2 per 15 min) is used up: the third waits like the others.
      ['reserve', 'c3', ['1'], 8_000, { critical: true }],
      ['release', 'a3', 9_000],
      ['reserve', 'a4', ['2'], 10_000],
      ['release', 'c2', 11_000],
      ['reserve', 'c4', ['2'], 12_000, { critical: true }],
      ['reserve', 'b1', ['1'], 13_000],
      ['reserve', 'b2', ['1'], 14_000],
      ['reserve', 'b3', ['1'], 15_000],
      ['reserve', 'b4', ['1'], 16_000],
      ['reserve', 'b5', ['1'], 17_000],
      ['reserve', 'b6', ['1'], 18_000],
      // Released while others wait after it: its slot goes, theirs stay.
      ['release', 'b3', 19_000],
      ['reserve', 'b7', ['1', '3'], 20_000],
      // Twenty minutes later: the first minute's times have left the 15-minute window.
      ['reserve', 'd1', ['3'], 20 * MIN],
      ['settle', 'd1', 20 * MIN],
      ['reserve', 'd2', ['3'], 20 * MIN + 1_000, { onlyNow: true }],
      // a2's slot passed more than STALE_MS ago unsent: stale, it gets a new slot.
      ['reserve', 'a2', ['1'], 40 * MIN],
      // Two hours on: everything has left the longest window.
      ['reserve', 'e1', ['1'], 2 * 60 * MIN + 30 * MIN],
      ['reserve', 'e2', ['2', '3'], 2 * 60 * MIN + 30 * MIN],
      ['reserve', 'e3', ['2'], 2 * 60 * MIN + 30 * MIN, { critical: true }],
    ];
    assert.ok(40 * MIN > 2_000 + 2 * MIN + STALE_MS, 'a2 is stale by then');
    for (const step of steps) {
      if (step[0] === 'reserve') {
        const [, id, keys, dt, opts] = step;
        clock.t = T0 + dt;
        const req: PaceRequest = {
          id,
          keys,
          critical: opts?.critical === true,
          now: T0 + dt,
          ...(opts?.onlyNow ? { onlyNow: true } : {}),
        };
        const local = book.reserve(req);
        const { now: _now, ...asked } = req;
        assert.deepEqual(await shared.reserve(asked), local, `reserve ${id} at +${dt}`);
      } else {
        const [op, id, dt] = step;
        clock.t = T0 + dt;
        if (op === 'settle') {
          book.settle(id);
          await shared.settleNow(id);
        } else {
          book.release(id);
          await shared.releaseNow(id);
        }
      }
      for (const key of ['1', '2', '3'])
        assert.deepEqual(
          await times(l, shared, key),
          book.times(key),
          `times of ${key} after ${step[0]} ${step[1]}`,
        );
    }
    // Settled stays counted, released goes: what is pending is what the book holds.
    for (const id of ['a1', 'a3', 'c2', 'b3', 'd1']) assert.equal(book.reservation(id), undefined);
    assert.equal(await l.command(['EXISTS', `${shared.base}:p:a1`]), 0);
    assert.equal(await l.command(['EXISTS', `${shared.base}:p:b4`]), 1);
  });

  it('two instances sending 600 messages to 3 numbers keep every window of every number together', async () => {
    const base = `t${Date.now().toString(36)}:cfg:pacing`;
    const clock = new ManualClock(T0);
    const pacers = [
      new SharedPacer(await link('ta:'), base, SETTINGS, clock),
      new SharedPacer(await link('tb:'), base, SETTINGS, clock),
    ];
    const numbers = ['4915100000001', '4915100000002', '4915100000003'];
    const slots = new Map<string, number[]>(numbers.map((n) => [n, []]));
    const reference = new PaceBook(SETTINGS);
    // In rounds of 60 at once, alternating over the instances, the clock moving a minute per round.
    for (let round = 0; round < 10; round++) {
      clock.t = T0 + round * MIN;
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, i) => {
          const n = round * 60 + i;
          const key = numbers[n % 3]!;
          return pacers[n % 2]!.reserve({ id: `m${n}`, keys: [key], critical: false }).then((a) => ({
            key,
            a,
          }));
        }),
      );
      for (let i = 0; i < 60; i++) {
        const n = round * 60 + i;
        reference.reserve({ id: `m${n}`, keys: [numbers[n % 3]!], critical: false, now: clock.t });
      }
      for (const { key, a } of answers) {
        assert.equal(a.reserved, true, 'none refused, none lost: each waits for its slot');
        assert.equal(a.via, 'normal');
        slots.get(key)!.push(a.at);
      }
    }
    for (const [key, list] of slots) {
      assert.equal(list.length, 200, `${key}: every message has a slot`);
      const sorted = [...list].sort((a, b) => a - b);
      assert.equal(new Set(sorted).size, 200, `${key}: no slot given twice`);
      // No window of any rule holds more than its count, wherever it starts.
      for (const rule of SETTINGS.rules)
        for (let i = 0; i + rule.count < sorted.length; i++)
          assert.ok(
            sorted[i + rule.count]! - sorted[i]! >= rule.ms,
            `${key}: ${rule.count + 1} slots within ${rule.ms} ms (${sorted[i]} … ${sorted[i + rule.count]})`,
          );
      // As one book would have given them, fed the same rounds (each instance alone: twice as many per window).
      assert.deepEqual(
        sorted,
        reference.times(key).filter((t) => t >= T0),
        `${key}: as one book`,
      );
      assert.ok(sorted[199]! - sorted[0]! >= 16 * 60 * MIN, `${key}: 200 at 12 per hour take 16 h at least`);
    }
  });

  it('Redis emptied: numbers the book does not know wait out the longest window from the loss', async () => {
    const base = `e${Date.now().toString(36)}:cfg`;
    const l = await link('e:');
    const clock = new ManualClock(T0);
    const pacer = new SharedPacer(l, `${base}:pacing`, SETTINGS, clock);
    assert.equal((await pacer.reserve({ id: 'x1', keys: ['1'], critical: false })).at, T0);
    assert.equal(pacer.lost, undefined);
    await suite.server().restartEmpty();
    for (let i = 0; i < 200 && !l.up; i++) await new Promise((r) => setTimeout(r, 50));
    clock.t = T0 + MIN;
    const after = await pacer.reserve({ id: 'x2', keys: ['2'], critical: false });
    assert.ok(pacer.lost, 'the loss is seen');
    const since = pacer.lost.since;
    assert.equal(after.at, since + 60 * MIN, 'waits until the longest window since the loss has passed');
    // Critical messages keep their own allowance.
    const alarm = await pacer.reserve({ id: 'x3', keys: ['3'], critical: true });
    assert.deepEqual(alarm, { at: T0 + MIN, via: 'critical', reserved: true });
  });

  it('Redis away: nothing is reserved and nothing sent (NETWORK), never paced by one instance alone', async () => {
    const l = await link('w:');
    const clock = new ManualClock(T0);
    const pacer = new SharedPacer(l, `w${Date.now().toString(36)}:cfg:pacing`, SETTINGS, clock);
    const sent: string[] = [];
    const send = pacedSender({ pacer, mode: 'wait', clock, keysOf: () => ['1'] }, (entry) => {
      sent.push(entry.id);
      return Promise.resolve('ok');
    });
    const entry = (id: string): OutboxEntry =>
      ({ id, operation: 'SendSMS', params: {} }) as unknown as OutboxEntry;
    const options: OutboxSendOptions = {
      reference: 'r',
      lookupFirst: false,
      since: T0,
      signal: new AbortController().signal,
    };
    assert.equal(await send(entry('before'), options), 'ok');
    await suite.server().stop();
    try {
      await assert.rejects(
        send(entry('away'), options),
        (e: { code?: string; ambiguous?: boolean; message?: string }) =>
          e.code === 'NETWORK' && e.ambiguous === false && /pacing/.test(e.message ?? ''),
      );
      assert.deepEqual(sent, ['before']);
    } finally {
      await suite.server().start();
    }
    for (let i = 0; i < 200 && !l.up; i++) await new Promise((r) => setTimeout(r, 50));
    // Back: the book is where it was (the one sent is counted; the next waits a minute).
    assert.equal((await pacer.reserve({ id: 'back', keys: ['1'], critical: false })).at, T0 + MIN);
  });
  describe('a send node of a coordinating config', () => {
    let env: Env;
    before(async () => {
      env = await startEnv();
    });
    after(() => stopEnv(env));
    afterEach(() => helper.unload());

    it("keeps the numbers' limits together with another instance (refuse: PACED)", async () => {
      const prefix = `n${Date.now().toString(36)}:`;
      const flow = flowWith(env.emu.url, [sendSmsNode()], {
        coordinate: true,
        redisUrl: suite.server().url,
        redisPrefix: prefix,
        redisLease: 2,
        pacing: true,
        paceOver: 'refuse',
      });
      await loadFlow(flow, { cfg: { user: 'demo', password: 'demo-password' } });
      // The other instance: the same config (id cfg), the same Redis keys; it texted the node's number just now.
      const other = new SharedPacer(await link(prefix), `${prefix}cfg:pacing`, SETTINGS);
      const mine = await other.reserve({ id: 'other-1', keys: ['4917000000001'], critical: false });
      assert.equal(mine.reserved, true);
      const out = collect('out');
      const caught = collect('caught');
      send('n1', { payload: 'one minute too early', topic: 'shared-pacing' });
      await waitFor(() => out.messages.length + caught.messages.length === 1, 20_000);
      assert.equal(out.messages.length, 0, 'not sent: the other instance used the minute');
      assert.equal((caught.messages[0]!.error as Record<string, unknown>).code, 'PACED');
      // Another number has room; the other instance sees what this one sent.
      send('n1', { payload: 'to another number', topic: 'shared-pacing', recipient: '+4917000000002' });
      await waitFor(() => out.messages.length === 1, 20_000);
      const theirs = await other.reserve({
        id: 'other-2',
        keys: ['4917000000002'],
        critical: false,
        onlyNow: true,
      });
      assert.equal(theirs.reserved, false, "the other instance sees this one's send");
    });
  });
});
