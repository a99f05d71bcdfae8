import assert from 'node:assert/strict';
import { Deadline, cancel, schedule, waitingDeadlines } from '../../src/transport/deadlines';

class Probe extends Deadline {
  expiredAt: number | undefined;
  constructor(
    readonly name: string,
    private readonly log: string[],
  ) {
    super();
  }
  expire(): void {
    this.expiredAt = Date.now();
    this.log.push(this.name);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// One list and one timer for the deadlines of all exchanges (src/transport/deadlines.ts).
describe('transport: shared deadlines', () => {
  it('expires each deadline once, in deadline order, not before it is due, whatever the order added', async () => {
    const log: string[] = [];
    const t0 = Date.now();
    const probes = [
      ['c', 90],
      ['a', 30],
      ['d', 90],
      ['b', 60],
    ].map(([name, ms]) => {
      const p = new Probe(name as string, log);
      schedule(p, t0 + (ms as number));
      return p;
    });
    assert.deepEqual(waitingDeadlines(), { count: 4, timer: true });
    await sleep(150);
    assert.deepEqual(log, ['a', 'b', 'c', 'd']);
    // Node's timers count on a monotonic clock that may run up to a millisecond ahead of Date.now(): a timer of
    // the exchange's own fires then too (deadlines.ts expires what was due by the time its timer was set for).
    for (const p of probes)
      assert.ok(p.expiredAt! >= p.at - 1, `${p.name} expired ${p.at - p.expiredAt!} ms early`);
    assert.deepEqual(waitingDeadlines(), { count: 0, timer: false });
  });

  it('never expires a cancelled deadline, and an earlier one added later moves the timer', async () => {
    const log: string[] = [];
    const t0 = Date.now();
    const late = new Probe('late', log);
    const gone = new Probe('gone', log);
    schedule(late, t0 + 200);
    schedule(gone, t0 + 40);
    const early = new Probe('early', log);
    schedule(early, t0 + 20);
    cancel(gone);
    cancel(gone); // twice: no effect
    await sleep(80);
    assert.deepEqual(log, ['early']);
    cancel(late);
    assert.deepEqual(waitingDeadlines(), { count: 0, timer: false });
  });

  it('holds no timer while nothing waits, so an idle client never keeps the process alive', async () => {
    const p = new Probe('p', []);
    schedule(p, Date.now() + 60_000);
    assert.deepEqual(waitingDeadlines(), { count: 1, timer: true });
    cancel(p);
    assert.deepEqual(waitingDeadlines(), { count: 0, timer: false });
    // Expired ones leave nothing behind either.
    const q = new Probe('q', []);
    schedule(q, Date.now() + 5);
    await sleep(40);
    assert.notEqual(q.expiredAt, undefined);
    assert.deepEqual(waitingDeadlines(), { count: 0, timer: false });
  });
});
