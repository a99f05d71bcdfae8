/**
 * The spending guard shared through Redis, with a real redis-server: two instances keep one
 * count (1,000 alarms split over them, a daily limit of 50: exactly 50 counted, one warning at 40 across both),
 * the Lua script answers as the file ledger's rule does step by step, and a send node of a coordinating config
 * shares its count with another instance and keeps it over a restart.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { KeySpace } from '../../src/coordination/key-space';
import type { RedisLink } from '../../src/coordination/redis-link';
import { Manifest, StateFile } from '../../src/store';
import { SharedBudgetLedger } from '../../src/coordination/shared-budget';
import { Budget, type BudgetEvent } from '../../src/reliability/budget';
import { BudgetBook, type ReserveRequest } from '../../src/reliability/budget-ledger';
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

type Rec = Record<string, unknown>;

describe('shared spending guard (real redis-server)', function () {
  this.timeout(60_000);
  const suite = redisForSuite();
  const link = (prefix: string): Promise<RedisLink> => suite.link(prefix);

  it('two instances share one count: 1,000 alarms, daily limit 50: exactly 50 counted, one warning at 40', async () => {
    const base = `b${Date.now().toString(36)}:cfg:budget`;
    const instances = [
      new Budget({ limits: { day: 50 } }, new SharedBudgetLedger(await link('a:'), base)),
      new Budget({ limits: { day: 50 } }, new SharedBudgetLedger(await link('b:'), base)),
    ];
    const events: [number, BudgetEvent][] = [];
    instances.forEach((b, i) => b.on('event', (e) => events.push([i, e])));
    // All at once, alternating between the instances.
    const outcomes = await Promise.allSettled(
      Array.from({ length: 1000 }, (_, i) => instances[i % 2]!.reserve(`alarm-${i}`, 1)),
    );
    const counted = outcomes.filter((o) => o.status === 'fulfilled').length;
    const refused = outcomes.filter(
      (o) => o.status === 'rejected' && (o.reason as { code?: string }).code === 'BUDGET',
    ).length;
    assert.equal(counted, 50);
    assert.equal(refused, 950);
    // Each instance reads its own Redis connection: which of the two hears its answer first is not
    // fixed, so the events are compared by count (one warning at 40, one limit at 50 across both).
    assert.deepEqual(
      events.map(([, e]) => [e.event, e.count]).sort((a, b) => Number(a[1]) - Number(b[1])),
      [
        ['warning', 40],
        ['limit', 50],
      ],
    );
    for (const b of instances) assert.equal((await b.windows(true))[0]!.count, 50);
  });

  it("the Lua script answers as the file ledger's rule, step by step (hour, day, month, pending, release)", async () => {
    const ledger = new SharedBudgetLedger(await link('p:'), `p${Date.now().toString(36)}:budget`);
    const book = new BudgetBook();
    const t0 = Date.parse('2024-05-03T10:00:00.400Z');
    const limits = { hour: 6, day: 9, month: 12 };
    const warnAt = { hour: 5, day: 7, month: 10 };
    const steps: Array<
      ['reserve', string, number, number, string] | ['release' | 'confirm', string, number]
    > = [
      ['reserve', 'a', 2, 0, '2024-05-03'],
      ['reserve', 'b', 3, 1_000, '2024-05-03'],
      ['reserve', 'b', 3, 2_000, '2024-05-03'],
      ['reserve', 'c', 2, 3_000, '2024-05-03'],
      ['release', 'b', 4_000],
      ['reserve', 'c', 2, 5_000, '2024-05-03'],
      ['reserve', 'd', 1, 6_000, '2024-05-03'],
      ['confirm', 'c', 7_000],
      ['reserve', 'e', 2, 8_000, '2024-05-03'],
      // The hour has moved on: 'a' (2) left it, 'c', 'd' are still in.
      ['reserve', 'f', 3, 3_601_000, '2024-05-03'],
      ['reserve', 'g', 1, 3_602_000, '2024-05-03'],
      ['reserve', 'h', 3, 3_603_000, '2024-05-03'],
      // The next day: the day's count starts again, the month's goes on.
      ['reserve', 'i', 1, 50_000_000, '2024-05-04'],
      ['release', 'f', 50_001_000],
      ['reserve', 'j', 4, 50_002_000, '2024-05-04'],
      ['reserve', 'k', 2, 90_000_000, '2024-05-04'],
      ['reserve', 'l', 1, 90_001_000, '2024-05-04'],
    ];
    for (const step of steps) {
      if (step[0] === 'reserve') {
        const [, key, cost, dt, day] = step;
        const req: ReserveRequest = { key, cost, now: t0 + dt, day, month: '2024-05', limits, warnAt };
        const local = book.reserve(req);
        const shared = await ledger.reserve(req);
        assert.deepEqual(shared, { ...local, hourFreeAt: local.hourFreeAt }, `reserve ${key} at +${dt}`);
      } else {
        const [op, key, dt] = step;
        if (op === 'release') {
          book.release(key, t0 + dt);
          await ledger.release(key, t0 + dt);
        } else {
          book.confirm(key);
          await ledger.confirm(key);
        }
        assert.deepEqual(
          await ledger.counts(t0 + dt, '2024-05-03', '2024-05'),
          book.counts(t0 + dt, '2024-05-03', '2024-05'),
        );
      }
      // The spend history (the panel's chart) shared the same way: per clock hour and per day.
      const now = t0 + (step[0] === 'reserve' ? step[3] : step[2]);
      const days = ['2024-05-02', '2024-05-03', '2024-05-04'];
      assert.deepEqual(await ledger.history(now, days), book.history(now, days), `history after ${step[1]}`);
    }
    const last = await ledger.history(t0 + 90_001_000, ['2024-05-03', '2024-05-04']);
    assert.deepEqual(
      last.days.map((d) => d.units),
      book.history(t0 + 90_001_000, ['2024-05-03', '2024-05-04']).days.map((d) => d.units),
    );
    assert.ok(last.days.every((d) => d.units > 0) && last.hours.some((h) => h.units > 0));
  });

  /** Tries `n` sends alternating over the instances: how many were counted (billed). */
  async function billed(instances: Budget[], n: number, tag: string): Promise<number> {
    let counted = 0;
    for (let i = 0; i < n; i++)
      await instances[i % instances.length]!.reserve(`${tag}-${i}`, 1).then(
        () => counted++,
        (e: { code?: string }) => assert.equal(e.code, 'BUDGET'),
      );
    return counted;
  }

  const until = async (check: () => boolean, what: string): Promise<void> => {
    for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(check(), what);
  };

  // On the version before: 20 more billed after the restart (30 against a cap of 20), the guard said 20, no log line.
  it('Redis restarted empty while two instances run: the counts are lost, nothing more billed until a person confirms', async () => {
    const base = `e${Date.now().toString(36)}:cfg:budget`;
    const links = [await link('ea:'), await link('eb:')];
    const instances = links.map((l) => new Budget({ limits: { day: 20 } }, new SharedBudgetLedger(l, base)));
    const lost: unknown[] = [];
    instances.forEach((b) => b.on('lost', (l) => lost.push(l)));
    assert.equal(await billed(instances, 10, 'before'), 10);
    await suite.server().stop();
    // Away: the guard fails closed (not counted, not sent).
    await assert.rejects(instances[0]!.reserve('away', 1), (e: { code?: string }) => e.code === 'NETWORK');
    await suite.server().restartEmpty();
    await until(() => links.every((l) => l.up), 'both reconnected');
    assert.equal(await billed(instances, 20, 'after'), 0, 'nothing billed on counts read as 0');
    assert.equal(lost.length, 2, 'each instance tells the loss once');
    for (const b of instances)
      assert.deepEqual(
        (await b.windows(true)).map((w) => w.count),
        [20],
      );
    // A person confirms on one instance: both count on from there (the other takes the confirmed key space).
    await instances[0]!.confirmLost('the editor (admin)');
    assert.equal(await billed(instances, 4, 'confirmed'), 4);
    assert.deepEqual(
      (await instances[1]!.windows(true)).map((w) => w.count),
      [4],
    );
  });

  it('Redis emptied while both instances were down: the epoch each remembered in its state file tells after the restart', async () => {
    const prefix = `d${Date.now().toString(36)}:`;
    const dirs = [
      mkdtempSync(path.join(tmpdir(), 'smsgw-ks-')),
      mkdtempSync(path.join(tmpdir(), 'smsgw-ks-')),
    ];
    try {
      const start = async (): Promise<Budget[]> => {
        Manifest.forgetAll();
        return Promise.all(
          dirs.map(async (dir) => {
            const l = await link(prefix);
            const local = new StateFile<{ base?: string; epoch?: string }>(dir, 'smsgw-redis.cfg', {
              kind: 'keyspace',
            });
            const keySpace = new KeySpace(l, `${prefix}cfg`, local);
            return new Budget(
              { limits: { day: 20 } },
              new SharedBudgetLedger(l, `${prefix}cfg:budget`, keySpace),
            );
          }),
        );
      };
      const first = await start();
      assert.equal(await billed(first, 10, 'before'), 10);
      // Both stop (their epoch on disk), Redis loses its data meanwhile, both start again.
      await new Promise((r) => setTimeout(r, 100));
      await suite.server().restartEmpty();
      const second = await start();
      await until(() => true, 'started');
      assert.equal(await billed(second, 20, 'after'), 0);
      assert.ok(second.every((b) => b.lost !== undefined));
      assert.match(second[0]!.lost!.why, /Redis lost its data/);
    } finally {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  });

  it('a clock set back keeps the day (the Lua script as the file ledger): 10 at 00:30, none at 22:30 the day before', async () => {
    const ledger = new SharedBudgetLedger(await link('c:'), `c${Date.now().toString(36)}:budget`);
    const req = (key: string, now: number, day: string): ReserveRequest => ({
      key,
      cost: 1,
      now,
      day,
      month: '2024-05',
      limits: { day: 10 },
      warnAt: {},
    });
    const t = Date.parse('2024-05-03T00:30:00Z');
    for (let i = 0; i < 10; i++)
      assert.equal((await ledger.reserve(req(`a${i}`, t, '2024-05-03'))).result, 'reserved');
    const back = t - 2 * 3_600_000;
    assert.equal((await ledger.reserve(req('b', back, '2024-05-02'))).result, 'refused');
    assert.equal((await ledger.counts(back, '2024-05-02', '2024-05')).day, 10);
  });

  describe('a send node of a coordinating config', () => {
    let env: Env;
    before(async () => {
      env = await startEnv();
    });
    after(() => stopEnv(env));
    afterEach(() => helper.unload());

    it('shares its count with another instance and keeps it over a restart', async () => {
      const prefix = `n${Date.now().toString(36)}:`;
      const flow = flowWith(env.emu.url, [sendSmsNode()], {
        coordinate: true,
        redisUrl: suite.server().url,
        redisPrefix: prefix,
        redisLease: 2,
        budgetDay: 50,
      });
      await loadFlow(flow, { cfg: { user: 'demo', password: 'demo-password' } });
      // The other instance: the same config (id cfg), the same Redis keys.
      const other = new Budget(
        { limits: { day: 50 } },
        new SharedBudgetLedger(await link(prefix), `${prefix}cfg:budget`),
      );
      const out = collect('out');
      const caught = collect('caught');
      for (let i = 0; i < 10; i++) send('n1', { payload: `alarm ${i}`, topic: 'shared' });
      await waitFor(() => out.messages.length === 10, 20_000);
      // Restart this instance: the count lives in Redis.
      await helper.unload();
      await loadFlow(flow, { cfg: { user: 'demo', password: 'demo-password' } });
      const out2 = collect('out');
      const caught2 = collect('caught');
      const theirs = Promise.allSettled(
        Array.from({ length: 500 }, (_, i) => other.reserve(`other-${i}`, 1)),
      );
      for (let i = 0; i < 490; i++) send('n1', { payload: `alarm ${i}`, topic: 'shared' });
      await waitFor(() => out2.messages.length + caught2.messages.length === 490, 30_000);
      const otherCounted = (await theirs).filter((o) => o.status === 'fulfilled').length;
      assert.equal(caught.messages.length, 0);
      assert.equal(10 + out2.messages.length + otherCounted, 50);
      assert.ok(caught2.messages.every((m) => (m.error as Rec).code === 'BUDGET'));
      assert.equal((await other.windows(true))[0]!.count, 50);
    });

    it('Redis away: a send with the outbox on is kept (not counted, not sent); back, it goes out and counts once', async () => {
      const prefix = `r${Date.now().toString(36)}:`;
      const flow = flowWith(env.emu.url, [sendSmsNode()], {
        coordinate: true,
        redisUrl: suite.server().url,
        redisPrefix: prefix,
        redisLease: 2,
        outbox: true,
        budgetDay: 5,
      });
      await loadFlow(flow, { cfg: { user: 'demo', password: 'demo-password' } });
      const linkUp = (): boolean =>
        (helper.getNode('cfg') as unknown as { coordination?: { link?: { up: boolean } } }).coordination?.link
          ?.up === true;
      await waitFor(linkUp, 5000);
      const out = collect('out');
      const caught = collect('caught');
      await suite.server().stop();
      try {
        await waitFor(() => !linkUp(), 10_000);
        send('n1', { payload: 'while Redis is away', topic: 'budget-redis-away' });
        await new Promise((r) => setTimeout(r, 1500));
        assert.equal(out.messages.length + caught.messages.length, 0, 'neither sent nor refused');
      } finally {
        await suite.server().start();
      }
      await waitFor(() => out.messages.length === 1, 20_000);
      assert.equal(caught.messages.length, 0);
      assert.equal((out.messages[0]!.payload as Rec).outbox, true);
      const view = new Budget(
        { limits: { day: 5 } },
        new SharedBudgetLedger(await link(prefix), `${prefix}cfg:budget`),
      );
      assert.equal((await view.windows(true))[0]!.count, 1);
    });
  });
});
