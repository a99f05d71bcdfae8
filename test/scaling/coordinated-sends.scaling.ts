/**
 * Send nodes of a config that coordinates instances through Redis, in one Node-RED (the test helper) against a
 * real redis-server: while Redis cannot be reached the shared rate limit cannot be kept, so a send waits in
 * the outbox (or is refused at once without it), the node says so, and a kept one goes out once Redis is back.
 */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { RedisLink } from '../../src/coordination/redis-link';
import { sendSmsNode } from '../nodes/send-sms-node';
import {
  flowWith,
  helper,
  loadFlow,
  nextMessage,
  send,
  startEnv,
  statuses,
  stopEnv,
  waitFor,
  type Env,
} from '../nodes/helpers';
import { startRedisServer, type RedisServer } from './redis-server';

type Rec = Record<string, unknown>;

describe('coordinated sends (real redis-server)', function () {
  this.timeout(30_000);
  let redis: RedisServer;
  let env: Env;

  before(async () => {
    redis = await startRedisServer();
    env = await startEnv();
  });
  after(async () => {
    await stopEnv(env);
    await redis?.close();
  });
  afterEach(async () => {
    await helper.unload();
    await redis.start().catch(() => undefined);
  });

  const coordination = (extra: Rec = {}): Rec => ({
    coordinate: true,
    redisUrl: redis.url,
    redisPrefix: `s${Date.now().toString(36)}:`,
    redisLease: 2,
    rate: 10,
    ...extra,
  });
  const jobs = (caption: string): number =>
    (env.emu.control.snapshot() as { accounts: { jobs: { caption: string }[] }[] }).accounts.flatMap((a) =>
      a.jobs.filter((j) => j.caption.startsWith(`${caption} #`)),
    ).length;
  const texts = (id: string): string[] => statuses(id).map((s) => String(s.text ?? ''));
  /** The config node's Redis connection is up. */
  const linkUp = (): boolean =>
    (helper.getNode('cfg') as unknown as { coordination?: { link?: { up: boolean } } }).coordination?.link
      ?.up === true;

  it('outbox off: refused at once with a clear error while Redis is away, nothing sent; sent again once it is back', async () => {
    await loadFlow(flowWith(env.emu.url, [sendSmsNode({ id: 'n1' })], coordination()));
    await waitFor(linkUp, 5000);
    const first = nextMessage('out');
    send('n1', { payload: 'up', topic: 'c-up' });
    assert.equal(((await first).payload as Rec).CreateStatus, 'Ok');

    await redis.stop();
    await waitFor(() => texts('n1').some((t) => /redisDown|Redis unreachable/.test(t)), 10_000);
    const caught = nextMessage('caught', 10_000);
    send('n1', { payload: 'down', topic: 'c-down' });
    const err = (await caught).error as Rec;
    assert.equal(err.code, 'NETWORK');
    assert.match(String(err.message), /not sent: Redis cannot be reached.*switch on the outbox/);
    assert.equal(jobs('c-down'), 0);

    await redis.start();
    await waitFor(linkUp, 10_000);
    const again = nextMessage('out', 10_000);
    send('n1', { payload: 'back', topic: 'c-back' });
    assert.equal(((await again).payload as Rec).CreateStatus, 'Ok');
    assert.equal(jobs('c-back'), 1);
  });

  it('outbox on: kept (not sent) while Redis is away, shown on the node; sent once when it is back', async () => {
    await loadFlow(flowWith(env.emu.url, [sendSmsNode({ id: 'n1' })], coordination({ outbox: true })));
    await waitFor(linkUp, 5000);
    await redis.stop();
    await waitFor(() => texts('n1').some((t) => /redisDown|Redis unreachable/.test(t)), 10_000);
    const later = nextMessage('out', 20_000);
    send('n1', { payload: 'kept', topic: 'c-kept' });
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(jobs('c-kept'), 0, 'not sent while Redis is away');

    await redis.start();
    const p = (await later).payload as Rec;
    assert.equal(p.outbox, true);
    assert.equal(p.CreateStatus, 'Ok');
    assert.equal(jobs('c-kept'), 1);
  });

  // Each send tries an outbox that could not be opened again; one that still fails must not leave
  // the lease it took in Redis (an instance that seems alive to the others, with a renewal timer per send).
  it('outbox on but its journal cannot be read: each send refused (CONFIG), no lease left behind; readable again, sent', async () => {
    const journal = join(env.userDir, 'smsgw-outbox', 'cfg.jsonl');
    rmSync(journal, { force: true }); // the earlier tests' (all settled)
    mkdirSync(journal, { recursive: true }); // a directory where the journal goes: EISDIR when it is read
    const extra = coordination({ outbox: true });
    const alive = async (): Promise<number> => {
      const link = (helper.getNode('cfg') as unknown as { coordination: { link: RedisLink } }).coordination
        .link;
      return ((await link.command(['KEYS', `${String(extra.redisPrefix)}*:outbox:alive:*`])) as unknown[])
        .length;
    };
    try {
      await loadFlow(flowWith(env.emu.url, [sendSmsNode({ id: 'n1' })], extra));
      await waitFor(linkUp, 5000);
      await waitFor(() => texts('n1').some((t) => /outboxDown|outbox unavailable/.test(t)), 10_000);
      for (let i = 0; i < 3; i++) {
        const caught = nextMessage('caught', 15_000);
        send('n1', { payload: 'no outbox', topic: `c-noout-${i}` });
        const err = (await caught).error as Rec;
        assert.equal(err.code, 'CONFIG');
        assert.match(String(err.message), /^outbox unavailable: EISDIR/);
      }
      assert.equal(jobs('c-noout-0') + jobs('c-noout-1') + jobs('c-noout-2'), 0);
      assert.equal(await alive(), 0, 'no lease of a failed open left in Redis');
    } finally {
      rmSync(journal, { recursive: true, force: true });
    }
    const sent = nextMessage('out', 15_000);
    send('n1', { payload: 'outbox back', topic: 'c-outbox-back' });
    assert.equal(((await sent).payload as Rec).CreateStatus, 'Ok');
    assert.equal(jobs('c-outbox-back'), 1);
    assert.equal(await alive(), 1, 'the lease of the outbox that opened');
  });
});
