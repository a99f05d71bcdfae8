/**
 * The hard cap on a message's text and data: 64 KiB, checked in O(1) before anything reads the
 * value, on every send path of the client, whatever the segment checks say. A 10 MB text took 3-8 s of analysis
 * before it was refused (with the checks off it was sent). Each case asserts VALIDATION naming the parameter,
 * nothing at the gateway, and that the refusal is O(1): refusing 10 MiB costs this thread about as much CPU time
 * as refusing the same call just over the cap (test/helpers/cpu-cost.ts; CPU time, not the event loop's blocks,
 * so that a loaded machine does not fail the test).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GatewayClient, type GatewayClientOptions } from '../../src/client';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { isGatewayError } from '../../src/errors';
import { Outbox, clientSender } from '../../src/reliability';
import { MAX_CONTENT_LENGTH } from '../../src/text';
import { bigText, leastCpuMs } from '../helpers/cpu-cost';

const USER = 'demo';
const PASSWORD = 'demo-password';
const TEN_MB = 10 * 1024 * 1024;
/** The shortest content refused. */
const OVER = MAX_CONTENT_LENGTH + 1;
/**
 * Refusing 10 MiB may cost at most this many times the CPU of refusing OVER. O(1) measured 0.8 to 1.5 with eight
 * busy processes on two cores, ~1 on a quiet machine (ten refusals cost 0.1 to 0.3 ms); one pass over the text
 * at ~1.1 ns a character measured ~130; the analysis the cap stops, thousands.
 */
const MOST_RATIO = 10;

/** The content a call carries: a text, or bytes. */
interface Content {
  text: string;
  bytes: Buffer;
}

describe('client: the hard cap on text and data (64 KiB, before any analysis)', function () {
  this.timeout(60_000);
  let emu: RunningEmulator;
  const text = bigText(TEN_MB);
  const bytes = Buffer.alloc(TEN_MB, 1);
  const over = { text: bigText(OVER), bytes: Buffer.alloc(OVER, 1) };

  before(async () => {
    emu = await startEmulator({ port: 0 });
    emu.control.setBalance(USER, 1_000_000);
  });
  after(() => emu.close());

  const jobs = (): number =>
    (emu.control.snapshot() as { accounts: { jobs: unknown[] }[] }).accounts.reduce(
      (n, a) => n + a.jobs.length,
      0,
    );

  const clientWith = (extra: Partial<GatewayClientOptions> = {}): GatewayClient =>
    new GatewayClient({ baseUrl: emu.url, user: USER, password: PASSWORD, retries: 0, ...extra });

  /**
   * Runs `call` with 10 MiB of content and with content just over the cap, alternately: both refused with
   * VALIDATION (the big one naming `name`), nothing at the gateway, and the big one costing at most MOST_RATIO
   * times the CPU of the other.
   */
  async function refused(call: (content: Content) => Promise<unknown>, name: RegExp): Promise<void> {
    const before = jobs();
    const errors: unknown[] = [];
    const smallErrors: unknown[] = [];
    const failure = (e: unknown): unknown => e;
    // Ten calls a run: one takes ~20 µs, near the clock's resolution.
    const cpu = await leastCpuMs({
      big: async () => {
        for (let i = 0; i < 10; i++)
          errors.push(await call({ text, bytes }).then(() => new Error('sent'), failure));
      },
      small: async () => {
        for (let i = 0; i < 10; i++)
          smallErrors.push(await call(over).then(() => new Error('sent'), failure));
      },
    });
    for (const err of errors) {
      assert.ok(isGatewayError(err), String(err));
      assert.equal(err.code, 'VALIDATION', err.message);
      assert.match(err.message, name);
      assert.match(err.message, /at most 65,536/);
      assert.equal(err.ambiguous, false);
    }
    for (const err of smallErrors) {
      assert.ok(isGatewayError(err), String(err));
      assert.match(err.message, /65,537 (characters|bytes), at most 65,536/);
    }
    assert.equal(jobs(), before, 'nothing reached the gateway');
    if (process.env.SMSGW_FIGURES)
      console.log(`      CPU: 10 MiB ${cpu.big.toFixed(3)} ms, ${OVER} ${cpu.small.toFixed(3)} ms`);
    assert.ok(
      cpu.big <= MOST_RATIO * cpu.small,
      `refusing 10 MiB cost ${cpu.big.toFixed(2)} ms of CPU, refusing ${OVER} ${cpu.small.toFixed(2)} ms: ` +
        `more than ${MOST_RATIO} times as much, so it reads the content`,
    );
  }

  const recipient = '+4917012345678';
  const base = { Caption: 'cap', Sender: 'Flow', SendDate: null };
  const paths: Array<
    [string, Partial<GatewayClientOptions>, (c: GatewayClient, v: Content) => Promise<unknown>, RegExp]
  > = [
    [
      'SendSMS (segment checks on)',
      {},
      (c, v) => c.send.sendSms({ ...base, Recipient: [recipient], SMSText: v.text, SmsTyp: 'Standard' }),
      /SMSText: 10,485,760 characters/,
    ],
    [
      'SendSMS with the segment checks and the recipient check off',
      { segmentLimits: false, checkRecipients: false },
      (c, v) => c.send.sendSms({ ...base, Recipient: [recipient], SMSText: v.text, SmsTyp: 'Standard' }),
      /SMSText: 10,485,760 characters/,
    ],
    [
      'SendMobileOrFixlineSMS',
      {},
      (c, v) =>
        c.send.sendMobileOrFixlineSms({ ...base, SendDate: '', Recipient: recipient, SMSText: v.text }),
      /SMSText/,
    ],
    [
      'SendUDH (hex data)',
      {},
      (c, v) => c.send.sendUdh({ ...base, SendDate: '', Recipient: recipient, Data: v.text }),
      /Data: 10,485,760 characters/,
    ],
    [
      'older service SendText',
      { segmentLimits: false },
      (c, v) =>
        c.legacy.sendText({ ...base, SendDate: '', Recipient: recipient, SMSText: v.text, SmsTyp: '1' }),
      /SMSText/,
    ],
    [
      'older service SMSCR (Msg)',
      {},
      (c, v) =>
        c.legacy.smscr({
          caption: 'cap',
          Sender: 'F',
          Msg: v.text,
          bRecipient: Buffer.from(recipient),
          SmsTyp: 1,
          SendDate: null,
        }),
      /Msg: 10,485,760 characters/,
    ],
    [
      'older service SendBinData (bytes)',
      {},
      (c, v) =>
        c.legacy.sendBinData({
          Recipient: recipient,
          strMsg: 'x',
          MsgType: 1,
          binTyp: 1,
          Data: v.bytes,
          sendDate: null,
        } as never),
      /Data: 10,485,760 bytes/,
    ],
    [
      'older service SendBinData (strMsg)',
      {},
      (c, v) =>
        c.legacy.sendBinData({
          Recipient: recipient,
          strMsg: v.text,
          MsgType: 1,
          binTyp: 1,
          Data: Buffer.from([1]),
          sendDate: null,
        } as never),
      /strMsg/,
    ],
    [
      'invoke() of a send',
      { segmentLimits: false },
      (c, v) => c.invoke('send', 'SendSMS', { Recipient: { string: [recipient] }, SMSText: v.text }),
      /SMSText: 10,485,760 characters/,
    ],
    [
      'invoke() of an operation the catalogue does not know',
      {},
      (c, v) => c.invoke('/gateway/Other.asmx', 'Whatever', { Data: v.bytes }),
      /Data: 10,485,760 bytes/,
    ],
  ];

  for (const [label, options, call, name] of paths) {
    it(`${label}: a 10 MB value is refused with VALIDATION at once`, async () => {
      const client = clientWith({ gatewayNamespace: 'urn:any', ...options });
      try {
        await refused((v) => call(client, v), name);
      } finally {
        await client.close();
      }
    });
  }

  it('the outbox stores nothing over the cap (VALIDATION before the journal is written)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'smsgw-cap-'));
    const client = clientWith({ segmentLimits: false });
    const outbox = await Outbox.open({ file: join(dir, 'outbox.jsonl'), send: clientSender(client) });
    try {
      await refused(
        (v) =>
          outbox.submit('send', 'SendSMS', {
            ...base,
            Recipient: [recipient],
            SMSText: v.text,
            SmsTyp: 'Standard',
          }),
        /SMSText/,
      );
      assert.equal(outbox.list().length, 0);
      assert.equal(outbox.size, 0);
    } finally {
      await outbox.close();
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a text of exactly 65,536 characters passes the cap (and meets the segment check instead)', async () => {
    const client = clientWith();
    try {
      const err = await client.send
        .sendSms({
          ...base,
          Recipient: [recipient],
          SMSText: 'a'.repeat(MAX_CONTENT_LENGTH),
          SmsTyp: 'StandardLong',
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.ok(isGatewayError(err));
      assert.equal(err.code, 'VALIDATION');
      assert.match(err.message, /65,536 characters, 429 segments/);
    } finally {
      await client.close();
    }
  });
});
