/**
 * The ask node's questions in Redis, on a real redis-server: the store's writes are fenced by the
 * lease of the inbound reader, any instance hands questions in, and two engines sharing one lease (two instances)
 * act on each question once: the one that does not hold hands in, the holder asks; when the holder stops, the
 * other takes over and the step still ends when it would have, once.
 */
import assert from 'node:assert/strict';
import { Lease } from '../../src/coordination/lease';
import { RedisLink } from '../../src/coordination/redis-link';
import { AskEngine, type Authority } from '../../src/nodes/ask/engine';
import { numberKey } from '../../src/nodes/ask/numbers';
import type { AskSms, Question } from '../../src/nodes/ask/question';
import type { Hold } from '../../src/nodes/ask/store';
import { RedisAskStore } from '../../src/nodes/ask/store-redis';
import { resolveTexts } from '../../src/nodes/ask/texts';
import { startRedisServer, type RedisServer } from './redis-server';

const LEASE_MS = 900;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const A = '+491701110001';
const B = '+491701110002';

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(20);
  }
}

function leaseAuthority(lease: Lease): Authority {
  return {
    current: () => lease.current(),
    isCurrent: (h: Hold) => lease.isCurrent(h),
    onAcquired: (l) => lease.on('acquired', l),
    onLost: (l) => lease.on('lost', l),
  };
}

let seq = 0;
function question(waitMs: number): Question {
  const ack = ['1'];
  return {
    id: `rq${Date.now().toString(36)}${++seq}`,
    node: 'ask1',
    question: 'Freezer too warm',
    numbers: [A, B],
    keys: [A, B].map((n) => numberKey(n)),
    settings: {
      waitMs,
      rounds: 1,
      ack,
      pass: [],
      tell: 'none',
      tellCancel: false,
      critical: false,
      smsType: 'Standard',
      sender: '',
      caption: 'x',
      texts: resolveTexts({}, ack, []),
    },
    msg: { payload: 'Freezer too warm' },
    createdAt: Date.now(),
    state: 'new',
    step: -1,
    stepAt: Date.now(),
    sms: [],
  };
}

describe('ask questions in Redis (real redis-server)', function () {
  this.timeout(30_000);
  let redis: RedisServer;
  const closers: (() => Promise<unknown>)[] = [];
  const prefix = (): string => `ask${Date.now().toString(36)}:`;

  before(async () => {
    redis = await startRedisServer();
  });
  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c().catch(() => undefined);
  });
  after(async () => {
    await redis?.close();
  });

  function instance(p: string): { link: RedisLink; lease: Lease; store: RedisAskStore } {
    const link = new RedisLink({ url: redis.url, prefix: p });
    const lease = new Lease(link, `${p}cfg:smsgw-inbound:lease`, { leaseMs: LEASE_MS });
    const store = new RedisAskStore(link, lease.key, `${p}cfg:smsgw-ask`);
    closers.push(() => link.close());
    closers.push(() => lease.stop());
    return { link, lease, store };
  }

  /** Sent SMS, outputs and warnings of two engines X and Y, each an instance of its own on one Redis prefix. */
  interface Seen {
    sent: { by: string; sms: AskSms; resume: boolean }[];
    outputs: string[];
    warnings: string[];
  }

  /** Two engines on one prefix, X holding the lease (started first), Y started after it. */
  async function twoEngines(p: string, seen: Seen) {
    const engines = ['X', 'Y'].map((name) => {
      const i = instance(p);
      const engine = new AskEngine({
        store: i.store,
        authority: leaseAuthority(i.lease),
        send: (_q, sms, resume) => {
          seen.sent.push({ by: name, sms, resume });
          return Promise.resolve(1000 + seen.sent.length);
        },
        numberKey: (t) => numberKey(t),
        warn: (t) => seen.warnings.push(`${name} ${t}`),
        inboxEveryMs: 100,
      });
      engine.register('ask1', {
        output: (q) => seen.outputs.push(`${name} ${q.state}`),
        failed: () => undefined,
        changed: () => undefined,
      });
      closers.push(() => engine.close());
      return { name, engine, ...i };
    });
    const [x, y] = engines as [(typeof engines)[0], (typeof engines)[0]];
    await x.link.ready();
    x.lease.start();
    await until(() => x.lease.held, 3000, 'X holds');
    await x.engine.start();
    await y.link.ready();
    y.lease.start();
    await y.engine.start();
    return [x, y] as const;
  }

  it('only the lease holder writes; any instance hands questions and cancellations in', async () => {
    const p = prefix();
    const one = instance(p);
    await one.link.ready();
    one.lease.start();
    await until(() => one.lease.held, 3000, 'lease');
    const q = question(60_000);
    await one.store.submit(q);
    await one.store.requestCancel({ key: 'c1', node: 'ask1', topic: 't', at: 1 });
    const inbox = await one.store.inbox();
    assert.deepEqual(
      inbox.questions.map((x) => x.id),
      [q.id],
    );
    assert.deepEqual(
      inbox.cancels.map((c) => [c.key, c.topic]),
      [['c1', 't']],
    );
    assert.equal(await one.store.put({ token: 'not-the-holder', generation: 1 }, q, true), false);
    assert.equal((await one.store.load()).questions.length, 0, 'a write with another token is refused');
    assert.equal(await one.store.put(one.lease.current()!, { ...q, code: 'a' }, true), true);
    assert.deepEqual(
      (await one.store.load()).questions.map((x) => x.id),
      [q.id],
    );
    assert.equal((await one.store.inbox()).questions.length, 0, 'taken from the inbox in the same step');
    const stranger = { token: 'not-the-holder', generation: 1 };
    assert.equal(await one.store.remove(stranger, { ...q, code: 'a' }, 1000), false);
    assert.equal(await one.store.cancelDone(stranger, 'c1'), false);
    assert.equal((await one.store.load()).questions.length, 1, 'a removal with another token is refused');
    assert.equal((await one.store.inbox()).cancels.length, 1, 'so is dropping a cancellation');
    assert.equal(await one.store.cancelDone(one.lease.current()!, 'c1'), true);
    assert.equal((await one.store.inbox()).cancels.length, 0);
    assert.equal(await one.store.remove(one.lease.current()!, { ...q, code: 'a' }, 1000), true);
    const after = await one.store.load();
    assert.deepEqual([after.questions.length, after.freed], [0, { a: 1000 }]);
  });

  it('two instances: the one not holding hands in, the holder asks once; after the holder stops the other ends the step on time, once', async () => {
    const p = prefix();
    const seen: Seen = { sent: [], outputs: [], warnings: [] };
    const { sent, outputs } = seen;
    const [x, y] = await twoEngines(p, seen);
    await sleep(200);
    assert.ok(!y.lease.held);

    const WAIT_MS = 2500;
    const asked = Date.now();
    await y.engine.ask(question(WAIT_MS)); // handed in where it does not hold
    await until(() => sent.length === 1, 3000, 'the first step');
    assert.deepEqual([sent[0]!.by, sent[0]!.sms.to], ['X', A]);
    await x.lease.stop(); // released: Y takes over
    await x.engine.close();
    await until(() => y.lease.held, 3000, 'Y holds');
    await until(() => sent.length === 2, WAIT_MS + 3000, 'the second step');
    const at = Date.now() - asked;
    assert.deepEqual([sent[1]!.by, sent[1]!.sms.to], ['Y', B]);
    assert.ok(at >= WAIT_MS - 50 && at < WAIT_MS + 1500, `passed on after ${at} ms (step ${WAIT_MS} ms)`);
    await until(() => outputs.length === 1, WAIT_MS + 3000, 'output 2');
    await sleep(500);
    assert.deepEqual(outputs, ['Y unanswered']);
    assert.equal(sent.length, 2);
    assert.equal((await y.store.load()).questions.length, 0, 'closed and gone');
  });

  it('two instances: a resolve and a duplicate handed in where it does not hold: the holder merges, sends each SMS once; after a take-over nothing again, and the quiet time holds', async () => {
    const p = prefix();
    const seen: Seen = { sent: [], outputs: [], warnings: [] };
    const { sent, outputs, warnings } = seen;
    const [x, y] = await twoEngines(p, seen);
    await sleep(200);
    assert.ok(!y.lease.held);
    const keyed = (text: string): Question => {
      const q = question(60_000);
      q.topic = 'freezer';
      q.question = text;
      q.dedupe = 'freezer';
      q.settings.quietMs = 600_000;
      return q;
    };
    await y.engine.ask(keyed('Freezer too warm: -9 C'));
    await until(() => sent.length === 1, 3000, 'the first step');
    await y.engine.ask(keyed('Freezer too warm: -8 C'));
    const hits = await y.engine.cancel({
      key: 'res-y',
      node: 'ask1',
      topic: 'freezer',
      at: Date.now(),
      resolve: { text: 'Freezer back to -18 C' },
    });
    assert.equal(hits, undefined, 'applied by the holder, not here');
    await until(() => outputs.length === 1 && sent.length === 2, 3000, 'resolved');
    assert.deepEqual(
      sent.map((s) => [s.by, s.sms.kind, s.sms.to, s.sms.text.split('\n')[0]]),
      [
        ['X', 'ask', A, 'Freezer too warm: -9 C'],
        ['X', 'resolve', A, 'Resolved: Freezer back to -18 C'],
      ],
    );
    await x.lease.stop();
    await x.engine.close();
    await until(() => y.lease.held, 3000, 'Y holds');
    await y.engine.ask(keyed('Freezer too warm: -7 C'));
    await until(() => warnings.some((w) => w.startsWith('Y') && w.includes('quiet time')), 3000, 'dropped');
    assert.deepEqual(outputs, ['X resolved']);
    assert.equal(sent.length, 2, 'nothing sent again, nothing asked in the quiet time');
  });

  it('two instances: answers to a person (the reply limiter) are counted in Redis; after a take-over a reply offered again gets none, and the count goes on', async () => {
    const p = prefix();
    const seen: Seen = { sent: [], outputs: [], warnings: [] };
    const { sent } = seen;
    const [x, y] = await twoEngines(p, seen);
    // Two questions to A (a minute per step): a "1" without a code is asked back, at most 3 times (the limit).
    for (let i = 0; i < 2; i++) {
      const q = question(60_000);
      q.numbers = [A];
      q.keys = [numberKey(A)];
      q.settings.replyLimit = 3;
      await x.engine.ask(q);
    }
    await until(() => sent.length === 2, 3000, 'both asked');
    // Each answer by the reference it was planned with (one X planned may be sent again by Y, looked up first).
    const answers = (): string[] => {
      const by = new Map<string, string>();
      for (const s of sent)
        if (s.sms.kind === 'answer' && !by.has(s.sms.reference)) by.set(s.sms.reference, s.by);
      return [...by.values()];
    };
    const first = { key: 'r1', from: A, text: '1' };
    await x.engine.take([first, { key: 'r2', from: A, text: '1' }]);
    await until(() => answers().length === 2, 3000, 'two answers');
    await x.lease.stop(); // released: Y takes over
    await x.engine.close();
    await until(() => y.lease.held && y.engine.holding, 3000, 'Y holds');
    // The first reply again (X's reader had not noted it), then three new ones: one more answer, then the limit.
    for (const r of [first, ...['r3', 'r4', 'r5'].map((key) => ({ key, from: A, text: '1' }))])
      await y.engine.take([r]);
    await until(() => answers().length === 3, 3000, 'the third answer');
    await sleep(300);
    assert.deepEqual(answers(), ['X', 'X', 'Y']);
  });
});
