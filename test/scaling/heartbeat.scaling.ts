/**
 * The heartbeat node on two real Node-RED runtimes with the same flows and one real redis-server: heartbeats of
 * six listed sources come in through either instance (HTTP in -> heartbeat), then stop; one instance is killed
 * with SIGKILL (and started again) while the sources fall due, the other one later while they come back. Each
 * overdue and each back is emitted exactly once across both instances.
 */
import assert from 'node:assert/strict';
import { coordinatedConfig, counterNode, Instance } from './cluster';
import { startRedisServer, type RedisServer } from './redis-server';
import { quietEmulator } from '../reliability/helpers';
import type { RunningEmulator } from '../../src/emulator';

const SOURCES = ['s0', 's1', 's2', 's3', 's4', 's5'];
const EVERY_S = 3;
const PREFIX = 'hbscale:';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function flows(emulatorUrl: string, redisUrl: string): unknown[] {
  return [
    { id: 'tab', type: 'tab', label: 'heartbeat scaling' },
    coordinatedConfig({ emulatorUrl, redisUrl, prefix: PREFIX, leaseS: 2 }),
    // POST /beat {source}: a heartbeat of that source, answered 200 once the node took it.
    { id: 'http-beat', z: 'tab', type: 'http in', url: '/beat', method: 'post', wires: [['hb']] },
    {
      id: 'hb',
      z: 'tab',
      type: 'smsgw-heartbeat',
      gateway: 'cfg',
      source: 'payload.source',
      sourceType: 'msg',
      every: EVERY_S,
      unit: 's',
      grace: 0,
      sources: SOURCES.join(', '),
      watch: false,
      wires: [['count-overdue'], ['count-back']],
    },
    { id: 'took', z: 'tab', type: 'complete', scope: ['hb'], uncaught: false, x: 0, y: 0, wires: [['ok']] },
    { id: 'ok', z: 'tab', type: 'http response', statusCode: '200', wires: [] },
    { id: 'refused', z: 'tab', type: 'catch', scope: ['hb'], uncaught: false, x: 0, y: 0, wires: [['err']] },
    { id: 'err', z: 'tab', type: 'http response', statusCode: '500', wires: [] },
    { z: 'tab', ...counterNode('count-overdue', 'overdue', 'msg.topic') },
    { z: 'tab', ...counterNode('count-back', 'back', 'msg.topic') },
  ];
}

describe('heartbeat on two Node-RED instances on one Redis, with kill -9', function () {
  this.timeout(300_000);
  let redis: RedisServer;
  let emu: RunningEmulator;
  const a = new Instance('hbA');
  const b = new Instance('hbB');
  const instances = [a, b];

  before(async function () {
    this.timeout(600_000);
    redis = await startRedisServer();
    emu = await quietEmulator({ port: 0, host: '127.0.0.1' });
    await Promise.all(instances.map((i) => i.prepare()));
    await Promise.all(instances.map((i) => i.start()));
    for (const i of instances) await i.deploy(flows(emu.url, redis.url));
  });

  after(async () => {
    await Promise.all(instances.map((i) => i.stop()));
    await emu?.close();
    await redis?.close();
  });

  /** A heartbeat of `source` through `via` (bounded retries: the instance may be starting). */
  async function beat(via: Instance, source: string): Promise<void> {
    for (let i = 0; i < 50; i++) {
      try {
        const res = await fetch(`${via.url}/beat`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ source }),
        });
        if (res.ok) return;
      } catch {
        // starting: try again
      }
      await sleep(200);
    }
    throw new Error(`${via.name} took no heartbeat of ${source}`);
  }

  /** Lines `<instance> <kind> <source>` of both count files, per source, of one kind. */
  const counted = (kind: string): Map<string, number> => {
    const m = new Map<string, number>();
    for (const line of instances.flatMap((i) => i.counted())) {
      const [, k, source] = line.split(' ');
      if (k === kind) m.set(source!, (m.get(source!) ?? 0) + 1);
    }
    return m;
  };
  const countsOf = (kind: string): number[] => SOURCES.map((s) => counted(kind).get(s) ?? 0);

  async function until(check: () => boolean, what: string, ms = 90_000): Promise<void> {
    const end = Date.now() + ms;
    while (!check()) {
      if (Date.now() > end) throw new Error(`not in time: ${what}`);
      await sleep(200);
    }
  }

  it('six sources fall quiet while one instance is killed, come back while the other is: each overdue once, each back once', async () => {
    // Heartbeats through both instances, for two periods.
    const end = Date.now() + 2 * EVERY_S * 1000;
    for (let round = 0; Date.now() < end || round < 2; round++) {
      await Promise.all(SOURCES.map((s, i) => beat((i + round) % 2 === 0 ? a : b, s)));
      await sleep(500);
    }
    // Quiet from now; A is killed at once and started again while they fall due.
    await a.kill();
    const restarted = a.start();
    await until(() => countsOf('overdue').every((n) => n >= 1), 'every source overdue');
    await restarted;
    // Another period and a check or two of both: a second alarm would show now.
    await sleep(2 * EVERY_S * 1000 + 6000);
    assert.deepEqual(
      countsOf('overdue'),
      SOURCES.map(() => 1),
      'each overdue once',
    );
    assert.deepEqual(
      countsOf('back'),
      SOURCES.map(() => 0),
    );

    // Back through A; B killed right after and started again.
    for (const s of SOURCES) await beat(a, s);
    await b.kill();
    const again = b.start();
    await until(() => countsOf('back').every((n) => n >= 1), 'every source back');
    await again;
    // Quiet again: each overdue a second time, once; the backs once.
    await until(() => countsOf('overdue').every((n) => n >= 2), 'every source overdue again');
    await sleep(2 * EVERY_S * 1000 + 6000);
    assert.deepEqual(
      countsOf('back'),
      SOURCES.map(() => 1),
      'each back once',
    );
    assert.deepEqual(
      countsOf('overdue'),
      SOURCES.map(() => 2),
      'each overdue once per quiet spell',
    );
    // Neither instance logged an error of the heartbeat node (Redis trouble, a lost key space).
    const errors = instances
      .flatMap((i) => i.log().split('\n'))
      .filter((l) => /\[error\].*heartbeat/.test(l));
    assert.deepEqual(errors, []);
  });
});
