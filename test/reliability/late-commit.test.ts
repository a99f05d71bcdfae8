import assert from 'node:assert/strict';
import { GatewayClient } from '../../src/client';
import type { GatewayClientOptions } from '../../src/client';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { GatewayError } from '../../src/errors';
import { PASSWORD, jobsPerMessage, CAPTION_MATCH } from './helpers';
import { SlowGateway } from './slow-gateway';

// The race of a lookup with a gateway that commits late: the request timed out, the gateway is still on it.

const send = (client: GatewayClient, i: number) =>
  client.send.sendSms({
    Caption: `m${i}`,
    Sender: 'Shop',
    Recipient: ['+4917012345678'],
    SMSText: `message ${i}`,
    SmsTyp: 'Standard',
    SendDate: null,
  });

describe('reliability: a gateway that commits after the client gave up', function () {
  this.timeout(30_000);
  let gw: SlowGateway;
  let emu: RunningEmulator<SlowGateway>;
  let client: GatewayClient;

  const start = async (
    duplicateWindowMs: number,
    safe: GatewayClientOptions['safeRetries'],
  ): Promise<void> => {
    gw = new SlowGateway({
      captionMatch: CAPTION_MATCH,
      password: PASSWORD,
      balance: 1e6,
      timing: { processingMs: 0, deliveryMs: 0 },
      duplicateWindowMs,
    });
    emu = await startEmulator({ backend: gw, console: false });
    client = new GatewayClient({
      baseUrl: emu.url,
      user: 'demo',
      password: PASSWORD,
      timeoutMs: 200,
      reference: true,
      safeRetries: safe,
    });
    await client.information.queryAccountBalance(); // namespace discovered before the timing matters
  };
  afterEach(async () => {
    await client.close();
    await emu.close();
  });

  it('commit within the settle time: the lookup finds it, no second attempt (duplicate detection off)', async () => {
    await start(0, { settleMs: 1500 });
    gw.lateSends = 1;
    gw.lateMs = 350;
    const job = await send(client, 0);
    assert.equal((job as { recovered?: boolean }).recovered, true);
    assert.deepEqual(jobsPerMessage(emu, 'm', 1), [1]);
    assert.equal(job.JobId, emu.state.jobs()[0]!.id);
    assert.equal(client.stats.attempts, 1);
  });

  it('commit after the retry: the gateway refuses the late original as a duplicate → one job', async () => {
    await start(60_000, { settleMs: 50 });
    gw.lateSends = 1;
    gw.lateMs = 800;
    const job = await send(client, 0);
    await new Promise((r) => setTimeout(r, 900)); // let the original land
    assert.deepEqual(jobsPerMessage(emu, 'm', 1), [1]);
    assert.equal(job.JobId, emu.state.jobs()[0]!.id);
    assert.equal(client.stats.attempts, 2);
  });

  it('the limit: commit after the retry on a gateway without duplicate detection makes a second job', async () => {
    await start(0, { settleMs: 50 });
    gw.lateSends = 1;
    gw.lateMs = 1500;
    await send(client, 0);
    await new Promise((r) => setTimeout(r, 1600));
    assert.deepEqual(jobsPerMessage(emu, 'm', 1), [2], 'documented in docs/reliability.md');
  });

  it('every attempt too slow: the last lookup, after settling, finds the job instead of failing', async () => {
    await start(0, { maxAttempts: 1, settleMs: 1500 });
    gw.lateSends = 1;
    gw.lateMs = 300;
    const job = await send(client, 0);
    assert.equal((job as { recovered?: boolean }).recovered, true);
    assert.deepEqual(jobsPerMessage(emu, 'm', 1), [1]);
  });

  it('a stale lookup, then DuplicateSMSJobFound on the retry: resolves to the existing job', async () => {
    await start(60_000, { settleMs: 10 });
    emu.faults.add({ kind: 'commitThenDrop', operation: 'SendSMS' });
    gw.staleLookups = 1;
    const job = await send(client, 0);
    assert.equal(job.JobId, emu.state.jobs()[0]!.id);
    assert.deepEqual(jobsPerMessage(emu, 'm', 1), [1]);
    assert.equal(client.stats.duplicatesResolved, 1);
    // The same on the older service, whose answer is "Error Duplicate SMS job found: <id>".
    emu.faults.add({ kind: 'commitThenDrop', operation: 'SendText' });
    gw.staleLookups = 1;
    const r = await client.legacy.sendText({
      Caption: 'm1',
      Sender: 'Shop',
      Recipient: '+4917012345678',
      SMSText: 'legacy',
      SmsTyp: '1',
      SendDate: '',
    });
    assert.equal(Number(r.id), emu.state.jobs()[1]!.id);
    assert.deepEqual(jobsPerMessage(emu, 'm', 2), [1, 1]);
  });

  it('a lookup that cannot be done: fails as ambiguous, naming the reference, without a second attempt', async () => {
    await start(0, { settleMs: 10, lookupAttempts: 3, backoffMs: 5 });
    emu.faults.add({ kind: 'commitThenDrop', operation: 'SendSMS' });
    emu.faults.add({ kind: 'http503', operation: 'QueryJobInfoByJobCaption', count: 1000 });
    const err = await send(client, 0).then(
      () => assert.fail('expected a rejection'),
      (e: unknown) => e as GatewayError,
    );
    assert.ok(err instanceof GatewayError);
    assert.equal(err.ambiguous, true);
    assert.match(
      err.message,
      /lookup of the reference failed.*may have been sent \(reference [a-z0-9]{10}\)/,
    );
    assert.equal(client.stats.attempts, 1);
    assert.ok(client.stats.lookupFailures >= 3);
    assert.deepEqual(jobsPerMessage(emu, 'm', 1), [1]);
  });
});
