import assert from 'node:assert/strict';
import { mkdtemp, readFile, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLine } from '../../src/store';
import { Agent } from 'undici';
import { DEFAULT_NAMESPACES } from '../../src/catalogue';
import { GatewayClient } from '../../src/client';
import { GatewayState, startEmulator, type RunningEmulator } from '../../src/emulator';
import { GatewayError } from '../../src/errors';
import {
  JournalStore,
  Outbox,
  clientSender,
  readJournal,
  type Delivered,
  type OutboxEntry,
  type OutboxOptions,
  type OutboxSender,
  type OutboxStore,
} from '../../src/reliability';
import { PASSWORD, jobsPerMessage, report, CAPTION_MATCH } from './helpers';

const sms = (i: number): Record<string, unknown> => ({
  Caption: `m${i}`,
  Sender: 'Shop',
  Recipient: ['+4917012345678'],
  SMSText: `message ${i}`,
  SmsTyp: 'Standard',
  SendDate: null,
});

async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function eventually(cond: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The entries a journal file holds, as a process reading it after a crash would see them. */
const held = async (file: string): Promise<OutboxEntry[]> =>
  readJournal(await readFile(file, 'utf8').catch(() => '')).entries;

const never = new Promise<never>(() => undefined);

/** How a promise ends, observed at once (no unhandled rejection while the test is not looking yet). */
const outcome = <T>(p: Promise<T>): Promise<PromiseSettledResult<T>> =>
  p.then(
    (value) => ({ status: 'fulfilled', value }),
    (reason: unknown) => ({ status: 'rejected', reason }),
  );

describe('reliability: write-ahead outbox', function () {
  this.timeout(60_000);
  let dir: string;
  let file: string;
  let state: GatewayState;
  let emu: RunningEmulator | undefined;
  let port: number;
  let client: GatewayClient;
  const open: Outbox[] = [];

  const up = async (): Promise<void> => {
    emu = await startEmulator({ backend: state, port, console: false });
    port = emu.port;
  };
  const down = async (): Promise<void> => {
    await emu?.close();
    emu = undefined;
  };
  const openBox = async (
    send: OutboxSender = clientSender(client),
    store?: OutboxStore,
    extra: Partial<OutboxOptions> = {},
  ): Promise<Outbox> => {
    const box = await Outbox.open({
      ...(store ? { store } : { file }),
      send,
      retryIntervalMs: 30,
      maxRetryIntervalMs: 120,
      maxActive: 32,
      ...extra,
    });
    open.push(box);
    return box;
  };
  /**
   * An outbox in a process that can die: after `kill()` it neither sends nor writes anything more (requests
   * already on the wire go on, as they would), and it is never closed. The next instance opens the same file.
   * Its journal's file descriptor is closed as the system closes a dead process's files (left open, it was
   * closed by the garbage collector: DEP0137).
   */
  const mortal = async (send: OutboxSender): Promise<{ box: Outbox; kill(): void }> => {
    let dead = false;
    const store = new JournalStore({ file });
    const frozen =
      <A extends unknown[]>(fn: (...a: A) => Promise<void>) =>
      (...a: A) =>
        dead ? never : fn(...a);
    const box = await openBox((e, o) => (dead ? never : send(e, o)), {
      location: store.location,
      warnings: store.warnings,
      stats: store.stats,
      load: () => store.load(),
      add: frozen((e) => store.add(e)),
      update: frozen((e) => store.update(e)),
      remove: frozen((id) => store.remove(id)),
      close: frozen(() => store.close()),
    });
    return {
      box,
      kill: () => {
        dead = true;
        open.splice(open.indexOf(box), 1);
        box.removeAllListeners();
        void (store as unknown as { fh: FileHandle | undefined }).fh?.close();
      },
    };
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'smsgw-outbox-'));
    file = join(dir, 'outbox.jsonl');
    state = new GatewayState({
      captionMatch: CAPTION_MATCH,
      password: PASSWORD,
      balance: 1e9,
      timing: { processingMs: 0, deliveryMs: 0 },
      duplicateWindowMs: 0,
    });
    port = 0;
    await up();
    client = new GatewayClient({
      baseUrl: emu!.url,
      user: 'demo',
      password: PASSWORD,
      gatewayNamespace: DEFAULT_NAMESPACES.gateway,
      legacyNamespace: DEFAULT_NAMESPACES.legacy,
      timeoutMs: 500,
      retryDelayMs: 5,
      safeRetries: { maxAttempts: 2, backoffMs: 5, settleMs: 20, lookupAttempts: 2 },
    });
  });
  afterEach(async () => {
    for (const box of open.splice(0))
      await Promise.race([box.close(), new Promise((r) => setTimeout(r, 200))]);
    await client.close();
    await down();
    await rm(dir, { recursive: true, force: true });
  });

  it('a message is durable (journal flushed) before its first attempt and removed only once settled', async () => {
    const seen: Array<{ inJournal: boolean; syncs: number; accepted: boolean }> = [];
    let accepted = false;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const ref: { box?: Outbox } = {};
    const real = clientSender(client);
    const box = await openBox(async (entry, options) => {
      const syncs = ref.box!.stats.store.syncs;
      seen.push({
        inJournal: (await held(file)).some((e) => e.id === entry.id && e.reference === options.reference),
        syncs,
        accepted,
      });
      await gate;
      return real(entry, options);
    });
    ref.box = box;
    const syncsAtOpen = box.stats.store.syncs;
    const done = box.submit('send', 'SendSMS', sms(0), { onAccepted: () => (accepted = true) });
    await until(() => seen.length === 1);
    assert.deepEqual(seen[0], { inJournal: true, syncs: syncsAtOpen + 1, accepted: true });
    assert.equal((await held(file)).length, 1, 'kept while the gateway has not answered');
    release();
    const r = await done;
    assert.equal((r.result as { Status: string }).Status, 'Ok');
    await box.idle();
    await eventually(async () => (await held(file)).length === 0);
    await until(() => box.stats.store.records === 2); // its add and its remove, flushed
    assert.deepEqual(jobsPerMessage(emu!, 'm', 1), [1]);
  });

  it('accepts only what the store has made durable: a failing write is refused, not acknowledged', async () => {
    let allow = false;
    const inner = new JournalStore({ file });
    const store: OutboxStore = {
      location: inner.location,
      warnings: inner.warnings,
      stats: inner.stats,
      load: () => inner.load(),
      add: (e) => (allow ? inner.add(e) : Promise.reject(new Error('EIO: disk gone'))),
      update: (e) => inner.update(e),
      remove: (id) => inner.remove(id),
      close: () => inner.close(),
    };
    const calls: string[] = [];
    const box = await openBox(async () => {
      calls.push('send');
      return { Status: 'Ok', JobId: 1 };
    }, store);
    let acknowledged = 0;
    const told: Array<string | undefined> = [];
    box.on('store', (why) => told.push(why));
    await assert.rejects(
      box.submit('send', 'SendSMS', sms(0), { onAccepted: () => acknowledged++ }),
      (e: GatewayError) =>
        e.code === 'CONFIG' && /^outbox unavailable: EIO: disk gone \(.*outbox\.jsonl\)/.test(e.message),
    );
    assert.equal(acknowledged, 0);
    assert.deepEqual(calls, [], 'nothing was attempted');
    assert.equal(box.size, 0);
    // Said once (the nodes show "outbox unavailable"), and tried again by the next submit.
    assert.equal(box.problem, 'EIO: disk gone');
    await assert.rejects(box.submit('send', 'SendSMS', sms(0)), /outbox unavailable: EIO/);
    assert.deepEqual(told, ['EIO: disk gone']);
    allow = true;
    await box.submit('send', 'SendSMS', sms(1), { onAccepted: () => acknowledged++ });
    assert.equal(acknowledged, 1);
    assert.deepEqual(calls, ['send']);
    assert.equal(box.problem, undefined);
    assert.deepEqual(told, ['EIO: disk gone', undefined]);
  });

  it('group commit: a burst of 1,000 costs a few flushes, not 1,000', async () => {
    const box = await openBox(async (entry) => ({
      Status: 'Ok',
      JobId: Number(entry.params.Caption === ''),
    }));
    const before = box.stats.store.syncs;
    const started = Date.now();
    const all = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => box.submit('send', 'SendSMS', sms(i))),
    );
    await box.idle();
    await eventually(async () => (await held(file)).length === 0);
    const syncs = box.stats.store.syncs - before;
    report('outbox group commit', {
      messages: 1000,
      records: box.stats.store.records,
      syncs,
      syncsPerMessage: syncs / 1000,
      compactions: box.stats.store.compactions,
      ms: Date.now() - started,
    });
    assert.equal(all.length, 1000);
    assert.ok(syncs <= 30, `${syncs} flushes for 1,000 messages (an add and a remove each)`);
  });

  it('one flush per message sent alone: the remove of a sent message rides on the next flush', async () => {
    const box = await openBox(async () => ({ Status: 'Ok', JobId: 1 }));
    const before = box.stats.store.syncs;
    for (let i = 0; i < 20; i++) await box.submit('send', 'SendSMS', sms(i));
    await box.idle();
    await eventually(async () => (await held(file)).length === 0);
    // 20 adds, each flushed before its attempt; the 20 removes are written and flushed with the next add.
    assert.equal(box.stats.store.syncs - before, 20);
    await box.close();
    assert.deepEqual(readJournal(await readFile(file, 'utf8')).entries, []);
  });

  it('a refused connection or a DNS failure keeps the message at once: one attempt, no retries', async () => {
    await down();
    const box = await openBox();
    const kept: string[] = [];
    const pending = [0, 1, 2].map((i) =>
      box.submit('send', 'SendSMS', sms(i), { onKept: (why) => kept.push(why) }),
    );
    await until(() => kept.length === 3, 5000);
    assert.equal(client.stats.attempts, 3, 'each message tried once: kept without the client retrying');
    assert.equal(client.stats.retries, 0);
    assert.match(kept[0]!, /ECONNREFUSED/);
    // DNS: a resolver that knows no such host (nothing leaves this machine).
    const dns = new GatewayClient({
      baseUrl: 'http://gateway.example.invalid',
      user: 'demo',
      password: PASSWORD,
      gatewayNamespace: DEFAULT_NAMESPACES.gateway,
      dispatcher: new Agent({
        connect: {
          lookup: (_host, _opts, cb) => {
            const err = Object.assign(new Error('getaddrinfo ENOTFOUND gateway.example.invalid'), {
              code: 'ENOTFOUND',
            });
            cb(err, '', 4);
          },
        },
      }),
    });
    const dnsKept: string[] = [];
    const dnsBox = await Outbox.open({ file: join(dir, 'dns.jsonl'), send: clientSender(dns) });
    open.push(dnsBox);
    void dnsBox
      .submit('send', 'SendSMS', sms(9), { onKept: (why) => dnsKept.push(why) })
      .catch(() => undefined);
    await until(() => dnsKept.length === 1, 5000);
    assert.equal(dns.stats.attempts, 1);
    assert.match(dnsKept[0]!, /ENOTFOUND/);
    await dns.close();
    // The gateway is back: each is sent once.
    await up();
    const sent = await Promise.all(pending);
    assert.ok(sent.every((r) => r.kept));
    assert.deepEqual(jobsPerMessage(emu!, 'm', 3), [1, 1, 1]);
  });

  it('a message whose lookup keeps failing waits on its own backoff: the messages behind it are sent', async () => {
    const box = await openBox(clientSender(client), undefined, { maxActive: 1 });
    emu!.faults.add({ kind: 'commitThenDrop', operation: 'SendSMS', count: 1 });
    emu!.faults.add({ kind: 'http503', operation: 'QueryJobInfoByJobCaption', count: 100_000 });
    const kept: string[] = [];
    const stuck = outcome(box.submit('send', 'SendSMS', sms(0), { onKept: (w) => kept.push(w) }));
    await until(() => kept.length === 1);
    const behind = await Promise.all(
      Array.from({ length: 20 }, (_, i) => box.submit('send', 'SendSMS', sms(1 + i))),
    );
    assert.equal(behind.length, 20);
    assert.deepEqual(jobsPerMessage(emu!, 'm', 21), new Array(21).fill(1));
    assert.equal(box.size, 1, 'the one whose lookup cannot run is still kept (it may have been sent)');
    emu!.faults.clear();
    const found = await stuck;
    assert.equal(
      ((found as PromiseFulfilledResult<Delivered>).value.result as { recovered?: boolean }).recovered,
      true,
    );
    assert.deepEqual(jobsPerMessage(emu!, 'm', 21), new Array(21).fill(1), 'found, not sent again');
  });

  it('gateway away (answers lost, then port refusing), process restarted: every message sent exactly once', async () => {
    const started = Date.now();
    const first = await openBox();
    // 1. Gateway up: sent at once.
    const direct = await Promise.all([0, 1, 2, 3, 4].map((i) => first.submit('send', 'SendSMS', sms(i))));
    assert.deepEqual(
      direct.map((r) => r.kept),
      [false, false, false, false, false],
    );
    // 2. The gateway creates the jobs but the answers are lost and it cannot be asked about them.
    emu!.faults.add({ kind: 'commitThenDrop', operation: 'SendSMS', count: 10 });
    emu!.faults.add({ kind: 'http503', operation: 'QueryJobInfoByJobCaption', count: 100_000 });
    const keptWhy: string[] = [];
    const waiting: Array<Promise<PromiseSettledResult<Delivered>>> = [];
    for (const i of [5, 6, 7, 8, 9, 10, 11, 12, 13, 14])
      waiting.push(outcome(first.submit('send', 'SendSMS', sms(i), { onKept: (w) => keptWhy.push(w) })));
    await until(() => keptWhy.length === 10);
    assert.equal(jobsPerMessage(emu!, 'm', 15).slice(5).join(','), '1,1,1,1,1,1,1,1,1,1', 'jobs exist');
    // 3. Gateway down: connection refused.
    await down();
    for (let k = 0; k < 25; k++)
      waiting.push(outcome(first.submit('send', 'SendSMS', sms(15 + k), { onKept: (w) => keptWhy.push(w) })));
    await until(() => keptWhy.length === 35);
    assert.equal(first.size, 35);
    // 4. Process "restart": the first instance stops (its waiting callers are told the messages stay).
    await first.close();
    const stopped = await Promise.all(waiting);
    assert.ok(stopped.every((s) => s.status === 'rejected' && /stays in the outbox/.test(String(s.reason))));
    const text = await readFile(file, 'utf8');
    assert.ok(!text.includes(PASSWORD) && !/"password"/i.test(text), 'no credentials in the file');
    const sent: Array<[OutboxEntry, unknown]> = [];
    const second = await openBox();
    second.on('sent', (e, r) => sent.push([e, r]));
    assert.equal(second.size, 35);
    // Those whose answers were lost are looked up first (so are any the pause held back before their first try).
    const lookedUp = second.list().filter((e) => e.maybeSent);
    assert.deepEqual(
      lookedUp.map((e) => Number(String(e.params.Caption).slice(1))).filter((i) => i < 15),
      [5, 6, 7, 8, 9, 10, 11, 12, 13, 14],
    );
    // 5. Gateway back (same state, same port, no more faults).
    await up();
    emu!.faults.clear();
    await until(() => sent.length === 35);
    assert.equal(second.size, 0);
    const counts = jobsPerMessage(emu!, 'm', 40);
    const recovered = sent.filter(([, r]) => (r as { recovered?: boolean }).recovered === true).length;
    report('outbox', {
      messages: 40,
      sentDirectly: 5,
      kept: 35,
      sentFromOutbox: sent.length,
      recoveredByLookup: recovered,
      lost: counts.filter((c) => c === 0).length,
      duplicates: counts.reduce((s, c) => s + Math.max(0, c - 1), 0),
      ms: Date.now() - started,
    });
    assert.deepEqual(counts, new Array(40).fill(1), 'exactly one job per message');
    assert.equal(recovered, 10, 'the ten delivered before the outage were found, not sent again');
    await eventually(async () => (await held(file)).length === 0);
  });

  it('a crash after acceptance, with attempts under way: the next instance looks each one up, none is sent twice', async () => {
    const real = clientSender(client);
    let n = 0;
    // The process dies with 20 messages accepted: the odd ones reached the gateway, the even ones never left.
    const { box: first, kill } = await mortal(async (entry, options) => {
      if (n++ % 2 === 0) return never;
      await real(entry, options);
      return never;
    });
    let accepted = 0;
    for (let i = 0; i < 20; i++)
      void first.submit('send', 'SendSMS', sms(i), { onAccepted: () => accepted++ }).catch(() => undefined);
    await until(() => accepted === 20 && n === 20);
    await until(() => state.jobs().length === 10);
    kill();
    const lookups: boolean[] = [];
    const second = await openBox((entry, options) => {
      lookups.push(options.lookupFirst);
      return real(entry, options);
    });
    const results: unknown[] = [];
    second.on('sent', (_e, r) => results.push(r));
    await until(() => results.length === 20);
    assert.deepEqual(jobsPerMessage(emu!, 'm', 20), new Array(20).fill(1));
    assert.ok(
      lookups.length >= 20 && lookups.every(Boolean),
      'every entry of the crashed process looked up first',
    );
    assert.equal(results.filter((r) => (r as { recovered?: boolean }).recovered === true).length, 10);
  });

  it('a crash during a retry from the outbox: the next instance finds the job instead of sending again', async () => {
    await down();
    const real = clientSender(client);
    let n = 0;
    const { box: first, kill } = await mortal(async (entry, options) => {
      const result = await real(entry, options);
      // The third send that gets through reaches the gateway, then the process dies before it can note that.
      if (++n === 3) return never;
      return result;
    });
    for (let i = 0; i < 5; i++) void first.submit('send', 'SendSMS', sms(i)).catch(() => undefined);
    await until(() => first.kept === 5);
    await up();
    await until(() => jobsPerMessage(emu!, 'm', 5)[2] === 1);
    kill();
    const second = await openBox();
    const results: unknown[] = [];
    second.on('sent', (_e, r) => results.push(r));
    await until(() => second.size === 0);
    assert.deepEqual(jobsPerMessage(emu!, 'm', 5), [1, 1, 1, 1, 1]);
    assert.ok(results.some((r) => (r as { recovered?: boolean }).recovered === true));
  });

  it('refusals are not kept; list, remove and clear; a damaged record is skipped and the file copied aside', async () => {
    // Kept entries wait long enough here to be listed and removed before their next try.
    const box = await openBox(clientSender(client), undefined, { retryIntervalMs: 60_000 });
    await assert.rejects(
      box.submit('send', 'SendSMS', { ...sms(0), SMSText: 'BLACKLISTED words' }),
      (e: GatewayError) => e.code === 'REJECTED',
    );
    await assert.rejects(
      box.submit('legacy', 'SendSimpleSMS', { Recipient: '+49170', SMSText: 'x' }),
      (e: GatewayError) => e.code === 'VALIDATION' && /Caption/.test(e.message),
    );
    await down();
    const kept: number[] = [];
    const a1 = outcome(
      box.submit('send', 'SendSMS', { ...sms(1), Password: 'other-secret', SendDate: new Date(0) }),
    );
    const a2 = outcome(box.submit('send', 'SendSMS', sms(2), { onKept: () => kept.push(2) }));
    await until(() => kept.length === 1 && box.kept === 2);
    const [a, b] = box.list();
    assert.equal(a!.params.Password, undefined, 'a password parameter is not stored');
    assert.equal(a!.params.SendDate, '1970-01-01T00:00:00.000Z');
    assert.ok(!(await readFile(file, 'utf8')).includes('other-secret'));
    assert.equal(await box.remove(a!.id), true);
    assert.match(String(((await a1) as PromiseRejectedResult).reason), /removed from the outbox/);
    assert.deepEqual(
      box.list().map((e) => e.id),
      [b!.id],
    );
    assert.equal(await box.clear(), 1);
    assert.match(String(((await a2) as PromiseRejectedResult).reason), /removed from the outbox/);
    await box.close();
    assert.deepEqual(await held(file), []);
    const good = JSON.stringify({ add: { ...b!, id: 'e2' } });
    await writeFile(file, `{"version":2,"entries":[]}\n{"add":{"id":\n${good}\n{"remove":"e2"`);
    // Never answers, but stops when the outbox closes (as the client does): close() can close the journal.
    const again = await openBox(
      (_e, o) =>
        new Promise((_r, reject) => {
          const stop = (): void => reject(o.signal.reason as Error);
          if (o.signal.aborted) stop();
          else o.signal.addEventListener('abort', stop);
        }),
    );
    assert.equal(again.size, 1, 'the readable add is kept; the torn last record ignored');
    assert.match(
      again.warnings.join('\n'),
      /could not be read whole \(1 unreadable record\): copied to .*damaged-\d+\. Kept and used: 1 message/,
    );
    assert.match(again.warnings.join('\n'), /unfinished last record/);
  });
});

describe('reliability: outbox journal', function () {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'smsgw-journal-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const entry = (i: number): OutboxEntry => ({
    id: `id-${i}`,
    reference: `ref${String(i).padStart(6, '0')}`,
    service: 'send',
    operation: 'SendSMS',
    params: sms(i),
    createdAt: new Date(0).toISOString(),
    attempts: 0,
    maybeSent: false,
    inFlight: false,
  });

  it('loads a version 1 outbox file (the whole file one JSON document): entries, maybeSent and inFlight kept', async () => {
    const file = join(dir, 'cfg.jsonl');
    const v1 = {
      version: 1,
      entries: [
        { ...entry(1), attempts: 2, lastError: 'ECONNREFUSED' },
        { ...entry(2), maybeSent: true },
        { ...entry(3), inFlight: true },
      ],
    };
    await writeFile(file, JSON.stringify(v1));
    const store = new JournalStore({ file });
    const loaded = await store.load();
    assert.deepEqual(
      loaded.map((e) => [e.id, e.attempts, e.maybeSent, e.inFlight, e.lastError]),
      [
        ['id-1', 2, false, false, 'ECONNREFUSED'],
        ['id-2', 0, true, false, undefined],
        ['id-3', 0, false, true, undefined],
      ],
    );
    // The file was not newline-terminated: read as a whole document, not as a torn record.
    assert.deepEqual(store.warnings, []);
    await store.close();
    assert.equal(JSON.parse(openLine((await readFile(file, 'utf8')).split('\n')[0]!)!).version, 3);
    // An outbox opened on it looks up the two that may have been sent.
    const lookups: string[] = [];
    const box = await Outbox.open({
      file,
      send: async (e, o) => {
        if (o.lookupFirst) lookups.push(e.id);
        return { Status: 'Ok', JobId: 1 };
      },
    });
    await box.idle();
    assert.deepEqual(lookups.sort(), ['id-2', 'id-3']);
    await box.close();
  });

  it('a record given the moment the previous one is flushed is written too (no write left waiting)', async () => {
    // The next record comes from the continuation of the last one's flush: it is queued while the writer is
    // finishing. It must start a write of its own rather than wait for one that never comes.
    const file = join(dir, 'chain.jsonl');
    const store = new JournalStore({ file });
    await store.load();
    const chain = (async () => {
      for (let i = 0; i < 20; i++) await store.add(entry(i));
      return 'written';
    })();
    const stalled = new Promise((r) => setTimeout(() => r('stalled'), 5000).unref());
    assert.equal(await Promise.race([chain, stalled]), 'written');
    await store.close();
    assert.equal(readJournal(await readFile(file, 'utf8')).entries.length, 20);
  });

  it('compaction keeps the file in proportion to what it holds', async () => {
    const file = join(dir, 'c.jsonl');
    const store = new JournalStore({ file, compactAfter: 100 });
    await store.load();
    for (let round = 0; round < 10; round++) {
      await Promise.all(Array.from({ length: 100 }, (_, i) => store.add(entry(round * 100 + i))));
      await Promise.all(Array.from({ length: 100 }, (_, i) => store.remove(`id-${round * 100 + i}`)));
    }
    await store.add(entry(5000));
    await store.close();
    const text = await readFile(file, 'utf8');
    assert.ok(store.stats.compactions >= 5, `${store.stats.compactions} compactions`);
    assert.ok(text.split('\n').length < 210, `${text.split('\n').length} lines`);
    assert.deepEqual(
      readJournal(text).entries.map((e) => e.id),
      ['id-5000'],
    );
  });

  // Pipelined group commit: a record given while a flush is under way is written at once and
  // flushed by a flush of its own, which covers everything written before it; it does not wait for the flush
  // under way to return. At most two flushes run at once.
  /** The store's fdatasync calls, each held until released; what the file holds when each one starts. */
  async function gatedStore(file: string): Promise<{
    store: JournalStore;
    started: string[][];
    release(i: number): void;
  }> {
    const store = new JournalStore({ file });
    await store.load();
    const fh = (store as unknown as { fh: FileHandle }).fh;
    const real = fh.datasync.bind(fh);
    const started: string[][] = [];
    const gates: Array<() => void> = [];
    const opened: Array<Promise<void>> = [];
    fh.datasync = async () => {
      started.push(readJournal(await readFile(file, 'utf8')).entries.map((e) => e.id));
      const i = opened.length;
      opened.push(new Promise<void>((r) => (gates[i] = r)));
      await opened[i];
      return real();
    };
    return { store, started, release: (i) => gates[i]!() };
  }

  const settled = (p: Promise<unknown>): (() => boolean) => {
    let done = false;
    void p.then(
      () => (done = true),
      () => (done = true),
    );
    return () => done;
  };

  it('a record given while a flush is under way gets the next flush at once, not after that one returns', async () => {
    const file = join(dir, 'pipe.jsonl');
    const { store, started, release } = await gatedStore(file);
    const first = settled(store.add(entry(1)));
    await until(() => started.length === 1);
    const second = store.add(entry(2));
    const secondDone = settled(second);
    // The second record is written and its own flush starts while the first flush is still held.
    await until(() => started.length === 2);
    assert.deepEqual(started, [['id-1'], ['id-1', 'id-2']], 'each flush starts after its record was written');
    release(1);
    await second;
    assert.equal(first(), false, 'the first flush has not returned yet');
    assert.equal(secondDone(), true);
    release(0);
    await until(first, 5000);
    await store.close();
    assert.deepEqual(
      readJournal(await readFile(file, 'utf8')).entries.map((e) => e.id),
      ['id-1', 'id-2'],
    );
  });

  it('at most two flushes under way: a third batch waits for one of them, then is written and flushed', async () => {
    const file = join(dir, 'cap.jsonl');
    const { store, started, release } = await gatedStore(file);
    const a = store.add(entry(1));
    await until(() => started.length === 1);
    const b = store.add(entry(2));
    await until(() => started.length === 2);
    const c = settled(store.add(entry(3)));
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(started.length, 2, 'no third flush while two are under way');
    assert.equal(c(), false);
    release(0);
    await a;
    await until(() => started.length === 3);
    assert.deepEqual(started[2], ['id-1', 'id-2', 'id-3']);
    release(1);
    release(2);
    await b;
    await until(c, 5000);
    await store.close();
  });

  // Appends to a journal whose file is no longer at its path would be found by no restart.
  it('a journal removed while open is written again from what it holds; one replaced by another file is refused, not written over', async () => {
    const file = join(dir, 'moved.jsonl');
    const store = new JournalStore({ file });
    await store.load();
    await store.add(entry(1));
    await store.add(entry(2));
    await rm(file);
    await store.add(entry(3));
    assert.deepEqual(
      readJournal(await readFile(file, 'utf8')).entries.map((e) => e.id),
      ['id-1', 'id-2', 'id-3'],
    );
    assert.match(store.warnings.join('\n'), /moved or removed: written again/);
    // Another writer's journal in its place (an instance still closing, a copy put back by hand).
    const other = `${JSON.stringify({ version: 2, entries: [entry(9)] })}\n`;
    await writeFile(`${file}.other`, other);
    await rename(`${file}.other`, file);
    await assert.rejects(store.add(entry(4)), /could not store the message: .*replaced by another file/);
    await assert.rejects(store.remove('id-1'), /replaced by another file/);
    assert.equal(await readFile(file, 'utf8'), other, 'not written over');
    await store.close();
  });

  it('a flush that fails refuses only its own batch; the journal is rewritten before the next record', async () => {
    const file = join(dir, 'fail.jsonl');
    const store = new JournalStore({ file });
    await store.load();
    const fh = (store as unknown as { fh: FileHandle }).fh;
    const real = fh.datasync.bind(fh);
    let calls = 0;
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    fh.datasync = async () => {
      calls++;
      if (calls === 1) {
        await held;
        throw new Error('EIO: flush failed');
      }
      return real();
    };
    const bad = store.add(entry(1)).then(
      () => 'stored',
      (e: Error) => e.message,
    );
    await until(() => calls === 1);
    await store.add(entry(2));
    release();
    assert.match(await bad, /could not store the message: EIO/);
    await store.add(entry(3));
    assert.equal(store.stats.compactions, 2, 'the open and the rewrite after the failure');
    await store.close();
    assert.deepEqual(
      readJournal(await readFile(file, 'utf8')).entries.map((e) => e.id),
      ['id-2', 'id-3'],
    );
  });
});
