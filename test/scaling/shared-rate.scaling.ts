/**
 * The rate limit shared through Redis: two flow controls (as two instances' config nodes would have), one
 * token bucket in a real redis-server.
 */
import assert from 'node:assert/strict';
import { RedisLink } from '../../src/coordination/redis-link';
import { SharedRate } from '../../src/coordination/shared-rate';
import { FlowControl } from '../../src/reliability/flow-control';
import { startRedisServer, type RedisServer } from './redis-server';

const RATE = 20;
const BURST = 2;

describe('shared rate limit (real redis-server)', function () {
  this.timeout(30_000);
  let redis: RedisServer;
  const links: RedisLink[] = [];

  before(async () => {
    redis = await startRedisServer();
  });
  after(async () => {
    await Promise.all(links.map((l) => l.close()));
    await redis?.close();
  });

  async function instance(key: string): Promise<FlowControl> {
    const link = new RedisLink({ url: redis.url, prefix: 'rate-test:' });
    links.push(link);
    await link.ready();
    const flow = new FlowControl({ ratePerSecond: RATE, burst: BURST, maxQueue: 10_000 });
    const bucket = new SharedRate(link, link.key(key), RATE, BURST);
    flow.share(() => bucket.take());
    return flow;
  }

  /** Starts `n` tasks on each flow control at once; the times (ms after the start) at which they ran. */
  async function run(flows: FlowControl[], n: number): Promise<number[]> {
    const t0 = performance.now();
    const times: number[] = [];
    await Promise.all(
      flows.flatMap((f) =>
        Array.from({ length: n }, () =>
          f.run(async () => {
            times.push(performance.now() - t0);
          }),
        ),
      ),
    );
    return times.sort((a, b) => a - b);
  }

  it('two instances together keep to one rate', async () => {
    const flows = [await instance('a'), await instance('a')];
    const times = await run(flows, 20);
    // 40 requests at 20/s with a burst of 2: the last one cannot start before (40 - 2) / 20 s. Alone, each
    // instance's local bucket would let both finish after (20 - 2) / 20 s.
    const inFirstSecond = times.filter((t) => t < 1000).length;
    assert.ok(inFirstSecond <= RATE + BURST + 1, `${inFirstSecond} requests started in the first second`);
    assert.ok(times.at(-1)! >= ((40 - BURST) / RATE) * 1000 * 0.95, `last at ${times.at(-1)} ms`);
  });

  it('Redis away: each instance keeps its own limit and goes on', async () => {
    const flows = [await instance('b'), await instance('b')];
    await redis.stop();
    try {
      const times = await run(flows, 6);
      assert.equal(times.length, 12);
      // Each alone: 6 at 20/s with a burst of 2 take at least (6 - 2) / 20 s.
      assert.ok(times.at(-1)! >= ((6 - BURST) / RATE) * 1000 * 0.9, `last at ${times.at(-1)} ms`);
    } finally {
      await redis.start();
    }
  });
});
