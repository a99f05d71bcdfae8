/**
 * The opt-out list shared through Redis, with a real redis-server: a STOP read by one instance (the reader's lease
 * holder) refuses the number on the other; a STOP taken by the other refuses it here; Redis emptied while both
 * run: the list is marked lost on both (sends refused) and written back from what each held, until a person
 * confirms.
 */
import assert from 'node:assert/strict';
import type { Node } from 'node-red';
import { RedisLink } from '../../src/coordination/redis-link';
import { RedisOptOutList } from '../../src/nodes/optout/store-redis';
import { sendSmsNode } from '../nodes/send-sms-node';
import {
  collect,
  flowWith,
  helper,
  loadFlow,
  pollUntil,
  send,
  startEnv,
  stopEnv,
  waitFor,
  type Env,
  type FlowNode,
} from '../nodes/helpers';
import { startRedisServer, type RedisServer } from './redis-server';

type Rec = Record<string, unknown>;

const A = '+4917022220001';
const B = '+4917022220002';
const C = '+4917022220003';
const keyOf = (n: string): string => n.slice(1);

describe('shared opt-out list (real redis-server)', function () {
  this.timeout(60_000);
  let redis: RedisServer;
  const links: RedisLink[] = [];
  const lists: RedisOptOutList[] = [];

  before(async () => {
    redis = await startRedisServer();
  });
  after(async () => {
    await Promise.all(lists.map((l) => l.close()));
    await Promise.all(links.map((l) => l.close()));
    await redis?.close();
  });

  async function other(prefix: string): Promise<RedisOptOutList> {
    const link = new RedisLink({ url: redis.url, prefix });
    links.push(link);
    await link.ready();
    const list = new RedisOptOutList(link, `${prefix}cfg:optout`, { refreshMs: 0 });
    lists.push(list);
    await list.ready();
    return list;
  }

  it('two lists on one Redis: a change on one is on the other after its look; a change of many numbers at once is seen whole', async () => {
    const prefix = `l${Date.now().toString(36)}:`;
    const one = await other(prefix);
    const two = await other(prefix);
    await one.change([{ key: keyOf(A), out: true, source: 'reply' }]);
    assert.equal(two.book.refusing(keyOf(A)), undefined, 'not read yet');
    await two.refresh();
    assert.ok(two.book.refusing(keyOf(A)));
    await two.change(
      Array.from({ length: 50 }, (_, i) => ({
        key: String(4917030000000 + i),
        out: true,
        source: 'import' as const,
      })),
    );
    await one.refresh();
    assert.equal(one.book.count, 51);
    assert.deepEqual(
      (await one.recent(2)).map((c) => [c.key, c.action, c.source]),
      [
        ['4917030000049', 'added', 'import'],
        ['4917030000048', 'added', 'import'],
      ],
    );
  });

  it('Redis emptied while both run: lost on both, what each held written back, sends refused until confirmed', async () => {
    const prefix = `x${Date.now().toString(36)}:`;
    const one = await other(prefix);
    const two = await other(prefix);
    await one.change([{ key: keyOf(B), out: true, source: 'reply' }]);
    await two.refresh();
    await links[0]!.command(['FLUSHALL']);
    await one.refresh();
    assert.ok(one.book.lost, 'the list id is gone: lost');
    await two.refresh();
    assert.ok(two.book.lost, 'the other instance sees the loss');
    // Written back: the number is on the list in Redis again (from what an instance held).
    await one.markLost('Redis lost its data', Date.now());
    const fresh = await other(prefix);
    assert.ok(fresh.book.refusing(keyOf(B)));
    assert.ok(fresh.book.lost);
    assert.ok(await one.confirm('a test'));
    await two.refresh();
    assert.equal(two.book.lost, undefined);
    assert.ok(two.book.refusing(keyOf(B)));
  });

  describe('a coordinating config in Node-RED', () => {
    let env: Env;
    before(async () => {
      env = await startEnv();
    });
    after(() => stopEnv(env));
    afterEach(() => helper.unload());

    it('a STOP read here refuses the number on the other instance; a STOP taken there refuses it here', async () => {
      const prefix = `n${Date.now().toString(36)}:`;
      const inbound: FlowNode = {
        id: 'inb',
        type: 'smsgw-inbound',
        gateway: 'cfg',
        interval: 60,
        inputs: 1,
        wires: [['out2']],
      };
      const flow = flowWith(env.emu.url, [inbound, sendSmsNode({ recipient: `${A},${C}` })], {
        coordinate: true,
        redisUrl: redis.url,
        redisPrefix: prefix,
        redisLease: 2,
        optOut: true,
      });
      await loadFlow(flow, { cfg: { user: 'demo', password: 'demo-password' } });
      const theirs = await other(prefix);
      const replies = collect('out2');
      env.emu.control.injectInbound({ from: A, text: 'STOP' });
      await pollUntil('inb', () => replies.messages.length === 1);
      assert.equal(replies.messages[0]!.optOut, 'added');
      await theirs.refresh();
      assert.ok(theirs.book.refusing(keyOf(A)), 'the other instance refuses A');
      // The other instance takes C's STOP: this one refuses C once it looked (every 2 s).
      await theirs.change([{ key: keyOf(C), out: true, source: 'reply' }]);
      const here = (helper.getNode('cfg') as unknown as Node & { optOutHost: { list: RedisOptOutList } })
        .optOutHost.list;
      await waitFor(() => here.book.refusing(keyOf(C)) !== undefined, 20_000);
      const out = collect('out');
      const caught = collect('caught');
      send('n1', { payload: 'x', topic: 'shared-optout' });
      await waitFor(() => caught.messages.length === 1);
      assert.equal(out.messages.length, 0);
      assert.equal((caught.messages[0]!.error as Rec).code, 'OPTED_OUT');
    });
  });
});
