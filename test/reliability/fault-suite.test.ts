import assert from 'node:assert/strict';
import { GatewayClient } from '../../src/client';
import type { RunningEmulator } from '../../src/emulator';
import { GatewayError } from '../../src/errors';
import { startEmulator } from '../../src/emulator';
import {
  FULL,
  PASSWORD,
  injectRandomFaults,
  jobsPerMessage,
  pool,
  quietEmulator,
  report,
  seeded,
  CAPTION_MATCH,
} from './helpers';
import { SlowGateway } from './slow-gateway';

// Every send resolves with exactly one job although a fifth of all requests (sends and lookups) fail in one
// of five ways. The emulator's own duplicate detection is off: only the client's lookups prevent duplicates.

const N = Number(process.env.SMSGW_FAULT_SENDS ?? (FULL ? 1000 : 300));
const TIMEOUT_MS = 2000;
const SEED = Number(process.env.SMSGW_FAULT_SEED ?? 7);

describe(`reliability: ${N} sends, 20% of requests faulted (lost 0, duplicates 0)`, function () {
  this.timeout(240_000);
  let emu: RunningEmulator;
  let client: GatewayClient;

  const connect = (settleMs = 100): void => {
    client = new GatewayClient({
      baseUrl: emu.url,
      user: 'demo',
      password: PASSWORD,
      timeoutMs: TIMEOUT_MS,
      reference: true,
      retryDelayMs: 5,
      safeRetries: { maxAttempts: 8, backoffMs: 10, maxBackoffMs: 200, settleMs, lookupAttempts: 8 },
    });
  };
  beforeEach(async function () {
    if (this.currentTest?.title.includes('commits late')) return;
    emu = await quietEmulator({ duplicateWindowMs: 0 });
    connect();
  });
  afterEach(async () => {
    await client.close();
    await emu.close();
  });

  const check = (
    label: string,
    outcomes: Array<PromiseSettledResult<number>>,
    faults: ReturnType<typeof injectRandomFaults>,
    started: number,
  ): void => {
    const counts = jobsPerMessage(emu, 'm', N);
    const jobIds = new Map(emu.state.jobs().map((j) => [j.id, j.caption]));
    const failed = outcomes.filter((o) => o.status === 'rejected');
    const lost = counts.filter((c) => c === 0).length;
    const duplicates = counts.reduce((sum, c) => sum + Math.max(0, c - 1), 0);
    const wrongId = outcomes.filter(
      (o, i) => o.status === 'fulfilled' && !jobIds.get(o.value)?.startsWith(`m${i} #`),
    ).length;
    report(label, {
      lateCommits: emu.state instanceof SlowGateway ? emu.state.lateCommits : 0,
      requests: faults.requests,
      faulted: faults.faulted,
      byKind: faults.byKind,
      ...client.stats,
      failedSends: failed.length,
      lost,
      duplicates,
      ms: Date.now() - started,
    });
    assert.ok(faults.faulted > N / 10, 'faults were injected');
    assert.ok(client.stats.recovered > 0, 'some sends were recovered by a lookup');
    assert.equal(duplicates, 0, 'duplicates');
    assert.equal(lost, 0, 'lost');
    assert.deepEqual(
      failed
        .map((f) => (f as PromiseRejectedResult).reason as GatewayError)
        .map((e) => `${e.code} ${e.message}`),
      [],
      'every send resolved',
    );
    assert.equal(wrongId, 0, 'every send resolved with the JobId of its own job');
  };

  /** N typed SendSMS calls, 25 at a time: each message's JobId, or what it failed with. */
  const sendAll = () =>
    pool(N, 25, async (i) => {
      const job = await client.send.sendSms({
        Caption: `m${i}`,
        Sender: 'Shop',
        Recipient: ['+4917012345678'],
        SMSText: `message ${i}`,
        SmsTyp: 'Standard',
        SendDate: null,
      });
      return job.JobId;
    });

  it('typed service: SendSMS over SOAP 1.1', async () => {
    const faults = injectRandomFaults(emu, { share: 0.2, seed: SEED, delayMs: TIMEOUT_MS * 2 });
    const started = Date.now();
    const outcomes = await sendAll();
    check('typed SendSMS', outcomes, faults, started);
  });

  it('older service: SendText (RPC) and SendSMS2 (document), looked up with GetJobs1', async () => {
    const faults = injectRandomFaults(emu, { share: 0.2, seed: SEED + 4, delayMs: TIMEOUT_MS * 2 });
    const started = Date.now();
    const outcomes = await pool(N, 25, async (i) => {
      const common = { Caption: `m${i}`, Sender: 'Shop', SMSText: `message ${i}` };
      const r =
        i % 2 === 0
          ? await client.legacy.sendText({
              ...common,
              Recipient: '+4917012345678',
              SmsTyp: '1',
              SendDate: '',
            })
          : await client.legacy.sendSms2({
              ...common,
              Recipient: ['+4917012345678'],
              SmsTyp: 1,
              SendDate: null,
            });
      return Number(r.id);
    });
    check('legacy SendText/SendSMS2', outcomes, faults, started);
  });

  it('typed service, and a tenth of the sends committed after the client timed out (no duplicate detection)', async () => {
    // "commits late": the gateway finishes 300 ms after the request arrived, whether the client waited or not.
    const gw = new SlowGateway({
      captionMatch: CAPTION_MATCH,
      password: PASSWORD,
      balance: 1e9,
      timing: { processingMs: 0, deliveryMs: 0 },
      duplicateWindowMs: 0,
    });
    const late = seeded(SEED + 8);
    gw.lateWhen = () => late() < 0.1;
    gw.lateMs = TIMEOUT_MS + 50;
    emu = (await startEmulator({
      backend: gw,
      console: false,
      requestLogSize: 1,
    })) as unknown as RunningEmulator;
    // A request may reach the gateway just before the client gives up: settling must outlast its processing.
    connect(gw.lateMs + 1000);
    const faults = injectRandomFaults(emu, { share: 0.2, seed: SEED + 9, delayMs: TIMEOUT_MS * 2 });
    const started = Date.now();
    const outcomes = await sendAll();
    assert.ok(gw.lateCommits > N / 20, 'late commits happened');
    check('typed SendSMS, late commits', outcomes, faults, started);
  });
});
