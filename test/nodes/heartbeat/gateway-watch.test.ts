/**
 * The heartbeat node's gateway watch (gateway-watch.ts) on a hand-moved clock: failed calls in a row raise the
 * "calls" alarm once and the next answered call clears it once; a low balance raises "balance" once and clears
 * once; what says nothing about the gateway counts neither way.
 */
import assert from 'node:assert/strict';
import { GatewayError } from '../../../src/errors';
import { GatewayWatch, FIRST_BALANCE_MS } from '../../../src/nodes/heartbeat/gateway-watch';
import type { GatewayAlarm, GatewayKind, Sources } from '../../../src/nodes/heartbeat/sources';
import { flush, ManualClock } from '../ask/engine-harness';

/** The sources' gateway part, in memory: what was raised and cleared, in order. */
class Alarms {
  readonly raised = new Map<GatewayKind, GatewayAlarm>();
  readonly log: string[] = [];
  asSources(): Sources {
    return {
      where: 'memory',
      start: () => Promise.resolve(),
      seen: () => Promise.resolve('watched'),
      forget: () => Promise.resolve(false),
      raise: (kind, alarm) => {
        if (this.raised.has(kind)) return Promise.resolve(false);
        this.raised.set(kind, alarm);
        this.log.push(`down:${kind}`);
        return Promise.resolve(true);
      },
      clear: (kind) => {
        if (!this.raised.delete(kind)) return Promise.resolve(false);
        this.log.push(`back:${kind}`);
        return Promise.resolve(true);
      },
      raised: (kind) => this.raised.has(kind),
      counts: () => ({ watched: 0, overdue: 0, gateway: [...this.raised.keys()] }),
      close: () => Promise.resolve(),
    };
  }
}

const err = (code: string): GatewayError => new GatewayError(code as never, `${code} happened`);

describe('nodes: heartbeat gateway watch', () => {
  const codes = new Set(['NETWORK', 'TIMEOUT', 'HTTP', 'AUTH']);

  function watch(over: { balanceBelow?: number; balances?: number[] } = {}) {
    const alarms = new Alarms();
    const clock = new ManualClock();
    const failed: unknown[] = [];
    const balances = [...(over.balances ?? [])];
    let reads = 0;
    const w = new GatewayWatch({
      sources: alarms.asSources(),
      failures: 3,
      codes,
      balanceBelow: over.balanceBelow,
      balanceEveryMs: 60 * 60_000,
      readBalance: () => {
        reads++;
        const b = balances.shift();
        return b === undefined ? Promise.reject(err('NETWORK')) : Promise.resolve(b);
      },
      failed: (e) => failed.push(e),
      clock,
    });
    return { w, alarms, clock, failed, reads: () => reads };
  }

  it('3 failed calls in a row raise "calls" once; more failures raise nothing more; the next success clears once', async () => {
    const { w, alarms } = watch();
    w.outcome(err('NETWORK'));
    w.outcome(err('AUTH'));
    await flush();
    assert.deepEqual(alarms.log, [], 'two are not enough');
    w.outcome(err('TIMEOUT'));
    await flush();
    assert.deepEqual(alarms.log, ['down:calls']);
    assert.deepEqual(
      [alarms.raised.get('calls')?.failures, alarms.raised.get('calls')?.code],
      [3, 'TIMEOUT'],
    );
    for (let i = 0; i < 20; i++) w.outcome(err('NETWORK'));
    await flush();
    assert.deepEqual(alarms.log, ['down:calls']);
    w.outcome(undefined);
    w.outcome(undefined);
    await flush();
    assert.deepEqual(alarms.log, ['down:calls', 'back:calls']);
    assert.equal(w.failuresInRow, 0);
  });

  it('a success between failures starts the count again', async () => {
    const { w, alarms } = watch();
    for (let i = 0; i < 10; i++) {
      w.outcome(err('NETWORK'));
      w.outcome(err('NETWORK'));
      w.outcome(undefined);
    }
    await flush();
    assert.deepEqual(alarms.log, []);
  });

  it('errors before any request count neither way; an error the gateway answered with clears like a success', async () => {
    const { w, alarms } = watch();
    w.outcome(err('NETWORK'));
    w.outcome(err('VALIDATION'));
    w.outcome(err('QUEUE_FULL'));
    w.outcome(err('BUDGET'));
    w.outcome(new Error('no code at all'));
    w.outcome(err('NETWORK'));
    assert.equal(w.failuresInRow, 2, 'the refusals before a request left the count as it was');
    w.outcome(err('HTTP'));
    await flush();
    assert.deepEqual(alarms.log, ['down:calls']);
    w.outcome(err('VALIDATION'));
    await flush();
    assert.deepEqual(alarms.log, ['down:calls'], 'a refusal before a request does not clear it');
    w.outcome(err('REJECTED'));
    await flush();
    assert.deepEqual(alarms.log, ['down:calls', 'back:calls'], 'the gateway answered (refusing a number)');
  });

  it('the balance below the threshold raises "balance" once; at or above it clears once; a failed read is said', async () => {
    const { w, alarms, clock, failed, reads } = watch({
      balanceBelow: 10,
      balances: [50, 9, 8, 5, 10, 12],
    });
    w.start();
    await clock.advance(FIRST_BALANCE_MS);
    assert.equal(reads(), 1);
    assert.deepEqual(alarms.log, []);
    for (let i = 0; i < 5; i++) await clock.advance(60 * 60_000);
    assert.equal(reads(), 6);
    assert.deepEqual(alarms.log, ['down:balance', 'back:balance']);
    assert.deepEqual(
      [alarms.raised.get('balance'), failed],
      [undefined, []],
      'nothing raised now, nothing failed',
    );
    // The next read fails (the gateway is down): that is a failed call (the config's hook counts it), not a balance.
    await clock.advance(60 * 60_000);
    assert.equal(reads(), 7);
    assert.deepEqual(alarms.log, ['down:balance', 'back:balance']);
    w.close();
    await clock.advance(10 * 60 * 60_000);
    assert.equal(reads(), 7, 'no read after close');
  });

  it('without a threshold the balance is never read', async () => {
    const { w, clock, reads } = watch();
    w.start();
    await clock.advance(10 * 60 * 60_000);
    assert.equal(reads(), 0);
  });
});
