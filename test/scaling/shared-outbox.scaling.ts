/**
 * The outbox shared through Redis, on a real redis-server: two instances' outboxes (the pieces the config node
 * wires: a lease per instance, the shared store with its file fallback, the outbox) and a gateway stand-in
 * that counts the jobs made per reference and answers lookups. An instance killed with sends under way has its
 * entries taken over by the other once its lease lapses; each is looked up first, so every message is made once.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Lease } from '../../src/coordination/lease';
import { FallbackOutboxStore, ownedSender } from '../../src/coordination/outbox-fallback';
import { RedisLink } from '../../src/coordination/redis-link';
import { SharedOutboxStore } from '../../src/coordination/shared-outbox';
import { GatewayError } from '../../src/errors';
import { Outbox, type OutboxEntry, type OutboxSender } from '../../src/reliability/outbox';
import { JournalStore } from '../../src/reliability/outbox-journal';
import { createReference } from '../../src/reliability/reference';
import { startRedisServer, type RedisServer } from './redis-server';

const LEASE_MS = 600;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Jobs made per reference; a lookup finds them. */
class Gateway {
  readonly made = new Map<string, number>();
  lookups = 0;
  /** Behaviour per message text: 'ok', 'lost' (made, the answer never comes), 'hang' (never arrives). */
  sender(mode: (text: string) => 'ok' | 'lost' | 'hang' = () => 'ok'): OutboxSender {
    return async (entry, o) => {
      if (o.lookupFirst) {
        this.lookups++;
        if (this.made.has(o.reference)) return { recovered: true };
      }
      const m = mode(String(entry.params.SMSText));
      // A process that stops answering: only its close (the outbox's abort) ends the wait.
      const stuck = (): Promise<never> =>
        new Promise((_, reject) =>
          o.signal.addEventListener('abort', () =>
            reject(new GatewayError('TIMEOUT', 'aborted', { ambiguous: true })),
          ),
        );
      if (m === 'hang') return stuck();
      this.made.set(o.reference, (this.made.get(o.reference) ?? 0) + 1);
      if (m === 'lost') return stuck();
      return { ok: true };
    };
  }
}

describe('shared outbox (real redis-server)', function () {
  this.timeout(30_000);
  let redis: RedisServer;
  let dir: string;
  const closers: (() => Promise<unknown>)[] = [];

  before(async () => {
    redis = await startRedisServer();
    dir = mkdtempSync(join(tmpdir(), 'smsgw-shared-outbox-'));
  });
  after(async () => {
    for (const c of closers.reverse()) await c().catch(() => undefined);
    await redis?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const fileOf = (base: string, name: string): string => join(dir, `${base}-${name}.jsonl`);

  async function instance(name: string, base: string, send: OutboxSender) {
    const link = new RedisLink({ url: redis.url, prefix: '' });
    await link.ready();
    const alive = new Lease(link, SharedOutboxStore.aliveKey(base, name), { leaseMs: LEASE_MS });
    alive.start();
    while (!alive.held) await sleep(10);
    const store = new FallbackOutboxStore(
      new SharedOutboxStore(link, base, name, alive),
      new JournalStore({ file: fileOf(base, name) }),
    );
    // As the config node wires it: each attempt checks ownership in Redis (and hands a file entry over first).
    const owned = ownedSender(store, send, (why) => new GatewayError('NETWORK', why, { ambiguous: false }));
    const box = await Outbox.open({ store, send: owned, maxActive: 50, retryIntervalMs: 100 });
    const sent: string[] = [];
    box.on('sent', (e) => sent.push(e.reference));
    closers.push(async () => {
      await box.close();
      await alive.stop();
      await link.close();
    });
    return { link, alive, store, box, sent };
  }

  const sms = (text: string): Record<string, unknown> => ({
    Caption: 'shared',
    Sender: '',
    Recipient: ['+491701234567'],
    SMSText: text,
    SmsTyp: 'Standard',
  });

  it('an instance killed with sends under way: the other takes its entries over, each made once', async () => {
    const base = 'kill:outbox';
    const gw = new Gateway();
    const a = await instance(
      'a',
      base,
      gw.sender((t) => (Number(t) < 5 ? 'ok' : Number(t) < 10 ? 'lost' : 'hang')),
    );
    const accepted: string[] = [];
    const done: Promise<unknown>[] = [];
    for (let i = 0; i < 20; i++)
      done.push(
        a.box
          .submit('send', 'SendSMS', sms(String(i)), {
            onAccepted: ({ reference }) => accepted.push(reference),
          })
          .catch(() => undefined),
      );
    while (gw.made.size < 10) await sleep(10);
    assert.equal(accepted.length, 20);
    // kill -9: no release, no more renewals (the connection is gone); its lease lapses in Redis.
    await a.link.close();
    const b = await instance('b', base, gw.sender());
    let taken = 0;
    const end = Date.now() + 10_000;
    // At least the 15 without an answer; the 5 answered ones too if the kill came before their removal
    // reached Redis (then they are found by their reference, not made again).
    while (b.sent.length < 15 && Date.now() < end) {
      const entries = await b.store.shared.claim();
      taken += entries.length;
      b.box.adopt(entries);
      await sleep(100);
    }
    await b.box.idle();
    assert.ok(taken >= 15 && taken <= 20, `taken over: ${taken}`);
    assert.equal(b.sent.length, taken, 'each one taken over settled on the new owner');
    for (const r of accepted.slice(5)) assert.ok(b.sent.includes(r), `${r} settled by the new owner`);
    assert.deepEqual(
      accepted.map((r) => gw.made.get(r)),
      accepted.map(() => 1),
      'every message made exactly once',
    );
    assert.ok(gw.lookups >= 15, `each taken-over entry looked up first (${gw.lookups})`);
  });

  it('an instance whose entry was taken over while it lived forgets it instead of sending it', async () => {
    const base = 'fence:outbox';
    const gw = new Gateway();
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    // Its first attempt fails as surely not sent (gateway away), so the entry waits; then it is taken over.
    let first = true;
    const a = await instance('a2', base, async (entry, o) => {
      if (first) {
        first = false;
        throw new GatewayError('NETWORK', 'refused', { ambiguous: false });
      }
      await held;
      return gw.sender()(entry, o);
    });
    const outcome = a.box.submit('send', 'SendSMS', sms('x')).then(
      () => 'sent',
      (e: unknown) => (e instanceof Error && e.cause ? (e.cause as Error).constructor.name : String(e)),
    );
    while (a.box.kept === 0) await sleep(10);
    // Another instance takes it over (as if a2's lease had lapsed): its owner field now names b2.
    const r = a.link;
    await r.command(['HSET', `${base}:owner`, (a.box.list()[0] as { id: string }).id, 'b2']);
    release();
    await a.box.flush();
    assert.equal(await outcome, 'EntryTakenOver');
    assert.equal(gw.made.size, 0, 'not sent by the instance that lost it');
    assert.equal(a.box.size, 0);
  });

  it('messages accepted while Redis cannot take them wait in the file and go to Redis before they are sent', async () => {
    const base = 'hand:outbox';
    const gw = new Gateway();
    /** The owner field in Redis of each entry as it is sent. */
    const owners: unknown[] = [];
    const via: { link?: RedisLink } = {};
    const h = await instance('h', base, async (entry, o) => {
      owners.push(await via.link!.command(['HGET', `${base}:owner`, entry.id]));
      return gw.sender()(entry, o);
    });
    via.link = h.link;
    // No lease (as while Redis is away): Redis takes no entry, the file does.
    await h.alive.stop();
    const outcomes = [0, 1, 2].map((i) => h.box.submit('send', 'SendSMS', sms(`h${i}`)));
    const until = Date.now() + 2000;
    while (h.box.kept < 3 && Date.now() < until) await sleep(10);
    await sleep(300);
    assert.equal(gw.made.size, 0, 'nothing sent while Redis cannot take it');
    assert.equal(await h.link.command(['HLEN', base]), 0);
    h.alive.start();
    while (!h.alive.held) await sleep(10);
    await h.box.flush();
    await Promise.all(outcomes);
    assert.deepEqual(owners, ['h', 'h', 'h'], 'each one sent from Redis, owned by this instance');
    assert.deepEqual([...gw.made.values()], [1, 1, 1]);
    await sleep(50);
    assert.equal(await h.link.command(['HLEN', base]), 0, 'settled entries leave Redis');
    const left = new JournalStore({ file: fileOf(base, 'h') });
    assert.deepEqual(await left.load(), [], 'and the file');
    await left.close();
  });

  it('a restart after a hand-over that did not reach the file: each entry sent once, by one instance', async () => {
    const base = 'crash:outbox';
    const gw = new Gateway();
    const refs = ['', createReference(), createReference(), createReference()];
    const entry = (n: number): OutboxEntry => ({
      id: `e${n}`,
      reference: refs[n]!,
      service: 'send',
      operation: 'SendSMS',
      params: sms(`c${n}`),
      createdAt: new Date().toISOString(),
      attempts: 1,
      maybeSent: false,
      // Stored in flight before the attempt that handed it over.
      inFlight: true,
    });
    // The file of instance c still holds e1, e2, e3, handed over to Redis just before a kill -9:
    const file = new JournalStore({ file: fileOf(base, 'c') });
    await file.load();
    for (const n of [1, 2, 3]) await file.add(entry(n));
    await file.close();
    const r = new RedisLink({ url: redis.url, prefix: '' });
    await r.ready();
    closers.push(() => r.close());
    // e1: still in Redis, its owner (c before the restart) gone; the gateway got it before the kill.
    gw.made.set(refs[1]!, 1);
    await r.command(['HSET', base, 'e1', JSON.stringify(entry(1))]);
    await r.command(['HSET', `${base}:owner`, 'e1', 'gone']);
    // e2: taken over by another instance, which is alive and sends it.
    await r.command(['HSET', base, 'e2', JSON.stringify(entry(2))]);
    await r.command(['HSET', `${base}:owner`, 'e2', 'other']);
    await r.command(['SET', SharedOutboxStore.aliveKey(base, 'other'), 'x', 'PX', '30000']);
    // e3: taken over, made and settled by another instance already (gone from Redis).
    gw.made.set(refs[3]!, 1);
    const c = await instance('c', base, gw.sender());
    assert.equal(c.box.size, 3, 'the file loaded');
    await c.box.flush();
    while (c.box.size > 0) await sleep(10);
    assert.deepEqual(
      refs.slice(1).map((ref) => gw.made.get(ref) ?? 0),
      [1, 0, 1],
      'e1, e3 found by their reference; e2 left to the instance that owns it',
    );
    assert.ok(gw.lookups >= 2, `looked up first (${gw.lookups})`);
    assert.deepEqual(c.sent.sort(), [refs[1], refs[3]].sort(), 'e1, e3 settled here');
    await sleep(50);
    assert.equal(await r.command(['HGET', `${base}:owner`, 'e2']), 'other');
    const left = new JournalStore({ file: fileOf(base, 'c') });
    assert.deepEqual(await left.load(), [], 'nothing left in the file');
    await left.close();
  });
});
