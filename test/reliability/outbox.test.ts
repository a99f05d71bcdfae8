import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_NAMESPACES } from '../../src/catalogue';
import { GatewayClient } from '../../src/client';
import { GatewayState, startEmulator, type RunningEmulator } from '../../src/emulator';
import { GatewayError } from '../../src/errors';
import { Outbox, clientSender, type OutboxEntry, type OutboxSender } from '../../src/reliability';
import { PASSWORD, jobsPerMessage, report } from './helpers';

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

describe('reliability: durable outbox', function () {
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
  const openBox = async (send: OutboxSender = clientSender(client)): Promise<Outbox> => {
    const box = await Outbox.open({ file, send, retryIntervalMs: 30, maxRetryIntervalMs: 120 });
    open.push(box);
    return box;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'smsgw-outbox-'));
    file = join(dir, 'outbox.json');
    state = new GatewayState({
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

  it('gateway away (answers lost, then port refusing), process restarted: every message sent exactly once', async () => {
    const started = Date.now();
    const first = await openBox();
    // 1. Gateway up: sent at once.
    const direct = await Promise.all([0, 1, 2, 3, 4].map((i) => first.submit('send', 'SendSMS', sms(i))));
    assert.deepEqual(
      direct.map((r) => r.state),
      ['sent', 'sent', 'sent', 'sent', 'sent'],
    );
    // 2. The gateway creates the jobs but the answers are lost and it cannot be asked about them.
    emu!.faults.add({ kind: 'commitThenDrop', operation: 'SendSMS', count: 10 });
    emu!.faults.add({ kind: 'http503', operation: 'QueryJobInfoByJobCaption', count: 100_000 });
    const lostAnswers = await Promise.all(
      [5, 6, 7, 8, 9, 10, 11, 12, 13, 14].map((i) => first.submit('send', 'SendSMS', sms(i))),
    );
    assert.ok(lostAnswers.every((r) => r.state === 'kept'));
    assert.equal(jobsPerMessage(emu!, 'm', 15).slice(5).join(','), '1,1,1,1,1,1,1,1,1,1', 'jobs exist');
    // 3. Gateway down: connection refused.
    await down();
    const refused = await Promise.all(
      Array.from({ length: 25 }, (_, k) => first.submit('send', 'SendSMS', sms(15 + k))),
    );
    assert.ok(refused.every((r) => r.state === 'kept'));
    assert.equal(first.size, 35);
    // 4. Process "restart": the first instance stops, a new one loads the same file.
    await first.close();
    const text = await readFile(file, 'utf8');
    assert.ok(!text.includes(PASSWORD) && !/"password"/i.test(text), 'no credentials in the file');
    const second = await openBox();
    assert.equal(second.size, 35);
    assert.equal(second.list().filter((e) => e.maybeSent).length, 10, 'lost answers are looked up first');
    const sent: Array<[OutboxEntry, unknown]> = [];
    second.on('sent', (e, r) => sent.push([e, r]));
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
    assert.equal(sent.length, 35);
    assert.equal(recovered, 10, 'the ten delivered before the outage were found, not sent again');
    assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), { version: 1, entries: [] });
  });

  it('a crash during a send from the outbox: the next instance finds the job instead of sending again', async () => {
    await down();
    const first = await openBox(
      (() => {
        const real = clientSender(client);
        let n = 0;
        return async (entry, options) => {
          const result = await real(entry, options);
          // The third send reaches the gateway, then the process dies before it can note that.
          if (++n === 3) await new Promise(() => undefined);
          return result;
        };
      })(),
    );
    for (let i = 0; i < 5; i++) assert.equal((await first.submit('send', 'SendSMS', sms(i))).state, 'kept');
    await up();
    await until(() => jobsPerMessage(emu!, 'm', 5)[2] === 1);
    const second = await openBox();
    const stored = second.list();
    assert.equal(stored.length, 3);
    assert.equal(stored[0]!.maybeSent, true, 'the interrupted entry is looked up first');
    const results: unknown[] = [];
    second.on('sent', (_e, r) => results.push(r));
    await second.flush();
    assert.equal(second.size, 0);
    assert.deepEqual(jobsPerMessage(emu!, 'm', 5), [1, 1, 1, 1, 1]);
    assert.equal((results[0] as { recovered?: boolean }).recovered, true);
  });

  it('refusals are not kept; list, remove and clear; a damaged file is moved aside', async () => {
    const box = await openBox();
    await assert.rejects(
      box.submit('send', 'SendSMS', { ...sms(0), SMSText: 'BLACKLISTED words' }),
      (e: GatewayError) => e.code === 'REJECTED',
    );
    await assert.rejects(
      box.submit('legacy', 'SendSimpleSMS', { Recipient: '+49170', SMSText: 'x' }),
      (e: GatewayError) => e.code === 'VALIDATION' && /Caption/.test(e.message),
    );
    await down();
    const kept = await box.submit('send', 'SendSMS', {
      ...sms(1),
      Password: 'other-secret',
      SendDate: new Date(0),
    });
    assert.equal(kept.state, 'kept');
    await box.submit('send', 'SendSMS', sms(2));
    const [a, b] = box.list();
    assert.equal(a!.params.Password, undefined, 'a password parameter is not stored');
    assert.equal(a!.params.SendDate, '1970-01-01T00:00:00.000Z');
    assert.ok(!(await readFile(file, 'utf8')).includes('other-secret'));
    assert.equal(await box.remove(a!.id), true);
    assert.deepEqual(
      box.list().map((e) => e.id),
      [b!.id],
    );
    assert.equal(await box.clear(), 1);
    await box.close();
    await writeFile(file, '{"version":1,"entries":[{"id":');
    const again = await openBox();
    assert.equal(again.size, 0);
    assert.match(again.warnings[0] ?? '', /moved to .*damaged/);
  });
});
